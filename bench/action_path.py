"""Server-path work per action: what one action costs the session, without the network.

Each action goes the way the server takes it (``Session.perform``, then
``Session.commit``, then ``Room.diff``): the engine applies it, the status
is found, the legal moves, the counters and the view are published, and
the view is diffed against the last one.  Two workloads over 200 games:

- ``draw``: WordLink draw 3 games where every action is a draw, as
  ``bench/server.py`` and ``bench/profile.py`` play them;
- ``play``: WordLink draw 1 games playing a random legal move from the
  published ``legal`` list, undoing one action in eight (and a lost
  game's last), and starting a game that ends again as a new session.

Each workload runs with the engine as it is (``kept``: WordLink keeps the
moves of its columns and foundations while those piles stay the same)
and with a reference game that searches those piles again after every
action, as every action did before they were kept (``searched``).  The
samples of the two alternate, and the times are CPU time of this thread,
so the load of other processes moves both alike; the figure to read is
the ratio of the medians.  The garbage collector runs with the server's
thresholds (``server.runtime.collector``).

    python bench/action_path.py [--seconds 2] [--samples 5]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from typing import Callable

if not __package__:
    # Run as a file, Python puts bench/ first on sys.path, where a file of
    # this folder could shadow a package it imports.
    sys.path.pop(0)

from engine.games.klondike import Board, Klondike  # noqa: E402
from engine.game import Position  # noqa: E402
from protocol.parts import Owner  # noqa: E402
from server.games.room import Room  # noqa: E402
from server.model.records import Action, SessionHeader  # noqa: E402
from server.model.session import ActionKind, Session  # noqa: E402
from server.runtime.collector import SERVER_THRESHOLDS  # noqa: E402

GAMES = 200
OWNER = Owner(player_id="p_bench", name="bench")


class Searched(Klondike):
    """WordLink searching its columns and foundations on every action: the
    reference the kept board moves are measured against."""

    def _board_moves(self, pos: Position) -> Board:
        return self._search_board(pos)


def rooms(kind: type[Klondike], draw: int) -> list[Room]:
    """``GAMES`` rooms of WordLink ``draw`` games still playing at the
    deal (``bench/server.py``'s deals: from ``10 n + 1`` on)."""
    result = []
    for number in range(GAMES):
        deal = number * 10
        while True:
            deal += 1
            header = SessionHeader(
                game_id=f"g{number}", game="klondike", deal=deal, options={"draw": draw}, owner=OWNER.player_id, created_ms=0
            )
            session = Session(header, kind(deal, draw=draw))
            if session.status == "playing":
                result.append(Room(session, OWNER))
                break
    return result


def act(room: Room, kind: str, text: str, at_ms: int) -> None:
    """One action the server's way: perform, commit (the store accepted
    it), and the diff message every watcher gets."""
    session = room.session
    logged, _ = session.perform(kind, text)
    room.diff(session.commit(Action(kind, logged, at_ms)))


def draws(room: Room, at_ms: int, _: random.Random) -> None:
    act(room, ActionKind.MOVE, "draw", at_ms)


def random_play(room: Room, at_ms: int, chooser: random.Random) -> None:
    """A finished game (won, or lost past undoing) restarts as a new
    session of the same deal, as a player's next game would."""
    session = room.session
    if session.result is not None:
        room.session = Session(session.header, type(session.game)(session.header.deal, **session.header.options))
    elif not session.legal or chooser.random() < 1 / 8 and session.game.can_undo():
        act(room, ActionKind.UNDO, "", at_ms)
    else:
        act(room, ActionKind.MOVE, chooser.choice(session.legal), at_ms)


WORKLOADS: dict[str, tuple[int, Callable[[Room, int, random.Random], None]]] = {
    "draw": (3, draws),
    "play": (1, random_play),
}


def sample(workload: str, kind: type[Klondike], seconds: float, seed: int) -> float:
    """Microseconds of this thread's CPU per action over ``seconds`` of it."""
    draw, step = WORKLOADS[workload]
    chooser = random.Random(seed)
    playing = rooms(kind, draw)
    gc.collect()
    actions = 0
    start = time.thread_time()
    deadline = start + seconds
    while time.thread_time() < deadline:
        for room in playing:
            step(room, actions, chooser)
            actions += 1
    return (time.thread_time() - start) / actions * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds of one sample")
    parser.add_argument("--samples", type=int, default=5, help="samples per workload and engine (the median is reported)")
    args = parser.parse_args()
    gc.set_threshold(*SERVER_THRESHOLDS)
    print(f"{'workload':<10}{'engine':<10}{'median µs/action':>18}{'min':>8}{'max':>8}{'vs searched':>13}")
    for workload in WORKLOADS:
        times: dict[type[Klondike], list[float]] = {Searched: [], Klondike: []}
        for number in range(args.samples):
            for kind, found in times.items():
                found.append(sample(workload, kind, args.seconds, seed=number))
        reference = statistics.median(times[Searched])
        for kind, name in ((Searched, "searched"), (Klondike, "kept")):
            median = statistics.median(times[kind])
            print(
                f"{workload:<10}{name:<10}{median:>18.1f}{min(times[kind]):>8.1f}{max(times[kind]):>8.1f}"
                f"{median / reference:>12.2f}x"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
