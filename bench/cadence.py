"""How often the cadence rule (``server.model.fair_play.inhuman``) flags a
person, and how often it catches a replayed line.

    python bench/cadence.py [--games N] [--seed S]

Every game is a real winning line (the certificates of the verified
pools, ``engine/data``, every pool variant), replayed through the
server's own ``Session`` once, then timed again and again: each action
gets the time the server would have logged for it, and the server's
rule judges the log.  Nothing here is recorded from real people; the
people are a model of their timing, written down so it can be argued
with (``Person``):

- an interval is log-normal around the player's median for its kind
  (a card moved, or a click on the stock, which is quicker: ``draw``),
  with sigma 0.45 (a quarter of a player's moves take more than 1.35
  times the median, a quarter less than 0.74 times);
- with probability ``pause_p`` a pause to think is added, log-normal
  around 4 s with sigma 0.8 (a game of 150 actions holds a few);
- the network adds a jitter of up to 15 ms either way.

The profiles run from a casual player to a blitz player clicking the
stock at 180 ms and moving a card every 450 ms (faster than the quickest
people the timing literature reports, around 200 ms for a bare reaction
and 500 ms or more for a chosen move).  The scripts replay a known line:
at once, at steady paces, with one pause, and with a person's timing.

The baseline, measured in the same run on the same games, is each half
of the rule alone (the median under ``cadence_median_ms`` over at least
``cadence_min_actions`` actions; a win with no interval over
``cadence_pause_ms``): the rule flags a game either half flags.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from dataclasses import dataclass
from typing import Callable

if not __package__:
    # Run as a file, Python puts bench/ first on sys.path, where
    # bench/engine.py would shadow the engine package.
    sys.path.pop(0)

import engine  # noqa: E402
from engine.solver.pools import VARIANTS  # noqa: E402
from server.model.fair_play import inhuman  # noqa: E402
from server.deals.pools import load_pool  # noqa: E402
from server.model.session import ActionKind, Session  # noqa: E402
from server.runtime.settings import Settings  # noqa: E402
from server.model.records import Action, SessionHeader

LINES_PER_VARIANT = 25
START_MS = 1_700_000_000_000
Timing = Callable[[random.Random, str, int, int], float]
"""The interval before an action (ms), given its move's notation, its
index in the line and the line's length."""


@dataclass(frozen=True)
class Person:
    """A player's timing: median ms before a card move and before a stock
    click, and the chance of a pause to think before any action."""

    move_ms: float
    draw_ms: float
    pause_p: float

    def __call__(self, rng: random.Random, move: str, index: int, length: int) -> float:
        median = self.draw_ms if move == "draw" else self.move_ms
        interval = median * math.exp(rng.gauss(0, 0.45))
        if rng.random() < self.pause_p:
            interval += 4000 * math.exp(rng.gauss(0, 0.8))
        return interval + rng.uniform(-15, 15)


def steady(ms: float, spread: float, pause_at: float | None = None) -> Timing:
    """A script: ``ms`` apart, give or take ``spread``, with one pause of
    2 s at the fraction ``pause_at`` of the line if given."""

    def timing(rng: random.Random, move: str, index: int, length: int) -> float:
        pause = 2000 if pause_at is not None and index == int(pause_at * length) else 0
        return ms + rng.uniform(-spread, spread) + pause

    return timing


PEOPLE: dict[str, Timing] = {
    "casual (1.6 s, stock 450 ms)": Person(1600, 450, 0.08),
    "practised (900 ms, stock 320 ms)": Person(900, 320, 0.05),
    "fast (600 ms, stock 230 ms)": Person(600, 230, 0.03),
    "blitz (450 ms, stock 180 ms)": Person(450, 180, 0.02),
}
SCRIPTS: dict[str, Timing] = {
    "replay at once (1-8 ms)": steady(4.5, 3.5),
    "replay 100 ms apart": steady(100, 20),
    "replay 200 ms apart": steady(200, 40),
    "replay 300 ms apart": steady(300, 60),
    "replay 300 ms apart, one 2 s pause": steady(300, 60, pause_at=0.5),
    "replay with a fast person's timing": Person(600, 230, 0.03),
}


def winning_sessions() -> list[Session]:
    """One replayed session per certificate, ``LINES_PER_VARIANT`` of each
    pool variant."""
    sessions = []
    for variant, (game_id, options) in VARIANTS.items():
        pool = load_pool(variant)
        for certificate in list(pool.certificates.values())[:LINES_PER_VARIANT]:
            header = SessionHeader("g_bench", game_id, certificate.deal, dict(options), "p_bench", START_MS)
            log = [Action(ActionKind.MOVE, move, START_MS) for move in certificate.moves]
            session = Session.replay(header, log)
            assert session.result == engine.WON, (variant, certificate.deal)
            sessions.append(session)
    return sessions


def retimed(session: Session, timing: Timing, rng: random.Random) -> list[Action]:
    """The session's log with each action at the time ``timing`` gives."""
    at = float(START_MS)
    log = []
    for index, action in enumerate(session.log):
        at += max(1.0, timing(rng, action.text, index, len(session.log)))
        log.append(Action(action.kind, action.text, int(at)))
    return log


def judge(sessions: list[Session], timing: Timing, games: int, rng: random.Random) -> tuple[int, int, int]:
    """Games flagged of ``games`` timed by ``timing``: by the rule, by the
    median half alone, by the pause half alone."""
    settings = Settings()
    median_only = settings.model_copy(update={"cadence_pause_ms": 0})
    pause_only = settings.model_copy(update={"cadence_median_ms": 0})
    counts = [0, 0, 0]
    for number in range(games):
        session = sessions[number % len(sessions)]
        original = session.log
        session.log = retimed(session, timing, rng)
        try:
            for index, rule in enumerate((settings, median_only, pause_only)):
                counts[index] += inhuman(rule, session)
        finally:
            session.log = original
    return counts[0], counts[1], counts[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000, help="timed games per profile")
    parser.add_argument("--seed", type=int, default=26)
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)
    sessions = winning_sessions()
    lengths = sorted(len(session.log) for session in sessions)
    settings = Settings()
    print(
        f"{len(sessions)} winning lines of {len(VARIANTS)} pool variants, {lengths[0]}-{lengths[-1]} actions "
        f"(median {lengths[len(lengths) // 2]}); rule: median under {settings.cadence_median_ms} ms over "
        f">= {settings.cadence_min_actions} actions, or a win with no interval over {settings.cadence_pause_ms} ms"
    )
    print(f"{'timing':44} {'rule':>8} {'median alone':>13} {'pause alone':>12}   of {arguments.games}")
    for title, group in (("people (false positives)", PEOPLE), ("scripts replaying a line (caught)", SCRIPTS)):
        print(title)
        for name, timing in group.items():
            flagged, by_median, by_pause = judge(sessions, timing, arguments.games, rng)
            shares = [f"{100 * count / arguments.games:7.2f}%" for count in (flagged, by_median, by_pause)]
            print(f"  {name:42} {shares[0]:>8} {shares[1]:>13} {shares[2]:>12}")


if __name__ == "__main__":
    main()
