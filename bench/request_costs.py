"""What each read-only request costs the server, beside a ``ping``.

Every connection may send ``rate_per_second`` messages of any kind, so a
request that costs the server twenty moves' worth is a lever for anyone
who wants to slow everyone down: fifty connections asking for it as fast
as they may would take more than a core.  This bench prices each kind.

An arena server runs in a child process (``--store memory``, or
``sqlite``: the default store of ``arena serve``, in a new data
directory) with ``--games`` live games, one per player, and
``--attempts`` ranked attempts at today's WordLink (draw 1) in play, of
``--draws`` draws each (what ``leaderboard`` with ``playing`` lists).
The asking connection has played and resigned a casual game of
``--long-game`` actions, whose first and last pages it then replays, and watches and unwatches
in turn (each watch of a game nobody watches loads it), and
every player of an attempt is its friend (its ``friends_board``).  One more
connection says hello and then sends each kind of request ``--requests``
times in turn, one at a time, waiting for each answer; that is one
round, and the rounds (``--rounds``) repeat it.  For each kind the
server's CPU time per request (``/proc``) and the round trip are
printed as medians over the rounds, and the CPU time as a ratio to a
``ping``'s in the same rounds.  The budgets per address are lifted
(``PRICED``), so that each request is priced rather than refused.

    python bench/request_costs.py [--games 300] [--attempts 100] [--draws 100] [--long-game 2000]
        [--requests 1000] [--rounds 3] [--store memory|sqlite] [--only friends,friends_board]

Progress (with an ETA) goes to stderr, the figures to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if not __package__:
    sys.path.pop(0)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from bench.figures import cpu_seconds  # noqa: E402
from bench.server import (  # noqa: E402
    ARENA_ENVIRONMENT, CLIENT_OPTIONS, _start, close_all, known_to, new_game, open_many, raise_open_files, request, stop,
)
from server.runtime.progress import ProgressLine  # noqa: E402

KINDS: dict[str, Any] = {
    "ping": {"type": "ping"},
    "list_games": {"type": "list_games"},
    "list_games (100)": {"type": "list_games", "limit": 100},
    "catalogue": {"type": "catalogue"},
    "daily": {"type": "daily"},
    "leaderboard": {"type": "leaderboard", "game": "klondike", "options": {"draw": 1}},
    "leaderboard (playing, 100)": {"type": "leaderboard", "game": "klondike", "options": {"draw": 1}, "playing": True, "limit": 100},
    "records": {"type": "records"},
    "friends": {"type": "friends"},
    "friends_board": {"type": "friends_board", "game": "klondike", "options": {"draw": 1}, "watch": False},
    "stats": {"type": "stats"},
    "leagues": {"type": "leagues"},
}
"""The requests priced, each as sent (an ``id`` is added); a list is
sent in turn and priced as one."""


PRICED = {
    "ARENA_REPLAY_ACTIONS_PER_SECOND": "1000000000", "ARENA_REPLAY_ACTIONS_BURST": "1000000000",
    "ARENA_READS_PER_SECOND": "1000000000", "ARENA_READS_BURST": "1000000000",
}
"""The budgets per address (replays, lists and boards) lifted, so that
every request is answered and priced rather than refused."""


ROOT = Path(__file__).resolve().parent.parent


def start(store: str) -> tuple[Any, str]:
    """This checkout's server on ``store``, with only the variables it knows
    (so that this file, copied into an older checkout, prices that one)."""
    command = [sys.executable, "-m", "server.cli", "serve", "--port", "0"]
    environment = known_to(ROOT, {**ARENA_ENVIRONMENT, **PRICED})
    if store == "memory":
        return _start(command, environment)
    del environment["ARENA_REDIS_URL"]
    return _start([*command, "--data", tempfile.mkdtemp(prefix="arena-bench-")], environment)


async def daily_attempt(connection: ClientConnection, number: int, draws: int) -> str:
    """Say hello, start today's ranked WordLink (draw 1) and draw ``draws``
    times; the player's id."""
    welcome = await request(connection, {"type": "hello", "id": 1, "name": f"daily-{number}"})
    started = await request(connection, {"type": "new_game", "id": 2, "game": "klondike", "deal": "daily", "options": {"draw": 1}})
    assert started.get("type") == "game_started", started
    for sequence in range(draws):
        await request(connection, {"type": "move", "id": 3 + sequence, "game_id": started["game_id"], "move": "draw"})
    return str(welcome["player_id"])


async def long_game(connection: ClientConnection, draws: int) -> str:
    """Say hello, play a casual WordLink game of ``draws`` draws and resign
    it: a finished game to replay."""
    game_id = await new_game(connection, 1_000_000)
    for sequence in range(draws - 1):
        await request(connection, {"type": "move", "id": 3 + sequence, "game_id": game_id, "move": "draw"})
    await request(connection, {"type": "resign", "id": 2, "game_id": game_id})
    return game_id


async def befriend(asker: ClientConnection, others: dict[str, ClientConnection]) -> None:
    """Make each of ``others`` (by player id; each said hello) a friend of ``asker``."""
    code = (await request(asker, {"type": "friend_code", "id": 1}))["code"]
    for player_id, connection in others.items():
        sent = await request(connection, {"type": "friend_add", "id": 1, "code": code})
        assert sent.get("state") == "request_sent", sent
        accepted = await request(asker, {"type": "friend_change", "id": 1, "player_id": player_id, "action": "accept"})
        assert accepted.get("state") == "friend", accepted
        await request(connection, {"type": "ping", "id": 2})


async def measure(
    pid: int, url: str, games: int, attempts: int, draws: int, long_game_actions: int, requests: int, rounds: int,
    only: set[str],
) -> dict[str, list[tuple[float, float]]]:
    """Per kind, per round: the server's CPU seconds and the wall seconds of one request."""
    players = await open_many(url, games + attempts, "players")
    progress = ProgressLine(every=5.0)
    for number, connection in enumerate(players[:games]):
        await new_game(connection, number)
        progress(number + 1, games, "live games started")
    progress = ProgressLine(every=5.0)
    attempting: dict[str, ClientConnection] = {}
    for number, connection in enumerate(players[games:]):
        attempting[await daily_attempt(connection, number, draws)] = connection
        progress(number + 1, attempts, "daily attempts played")
    progress = ProgressLine(every=5.0)
    async with connect(url, **CLIENT_OPTIONS) as asker:
        finished = await long_game(asker, long_game_actions)
        await befriend(asker, attempting)
        kinds = {
            **KINDS,
            "replay (first page)": {"type": "replay", "game_id": finished, "from_seq": 0},
            "replay (last page)": {"type": "replay", "game_id": finished, "from_seq": long_game_actions - 10},
            "watch (and unwatch)": [{"type": "watch", "game_id": finished}, {"type": "unwatch", "game_id": finished}],
        }
        if only:
            kinds = {kind: message for kind, message in kinds.items() if kind == "ping" or kind.split(" (")[0] in only}
        taken: dict[str, list[tuple[float, float]]] = {kind: [] for kind in kinds}
        for round_number in range(rounds):
            for kind, message in kinds.items():
                cpu, wall = cpu_seconds(pid), time.perf_counter()
                for sequence in range(requests):
                    for part in message if isinstance(message, list) else [message]:
                        reply = await request(asker, {**part, "id": 2 + sequence})
                        assert reply.get("type") != "error", reply
                taken[kind].append(((cpu_seconds(pid) - cpu) / requests, (time.perf_counter() - wall) / requests))
            progress(round_number + 1, rounds, "rounds")
    await close_all(players)
    return taken


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300, help="live games, one per player (default 300)")
    parser.add_argument("--attempts", type=int, default=100, help="today's ranked attempts in play (default 100)")
    parser.add_argument("--draws", type=int, default=100, help="draws played in each attempt (default 100)")
    parser.add_argument("--long-game", type=int, default=2000, help="actions of the finished game replayed (default 2000)")
    parser.add_argument("--requests", type=int, default=1000, help="requests of each kind a round (default 1000)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--store", choices=("memory", "sqlite"), default="memory")
    parser.add_argument("--only", default="", help="the kinds to price, by type, comma-separated (default: all; ping always)")
    args = parser.parse_args(argv)
    raise_open_files(args.games + args.attempts + 100)
    process, url = start(args.store)
    try:
        taken = asyncio.run(measure(process.pid, url, args.games, args.attempts, args.draws, args.long_game, args.requests, args.rounds, set(filter(None, args.only.split(",")))))
    finally:
        stop(process)
    ping = statistics.median(cpu for cpu, _ in taken["ping"])
    print(f"{args.store} store, {args.games} live games and {args.attempts} daily attempts of {args.draws} draws, {args.requests} requests of each kind x {args.rounds} rounds (medians)")
    print(f"{'request':27} {'server CPU':>12} {'x ping':>7} {'round trip':>12}")
    for kind, figures in taken.items():
        cpu = statistics.median(value for value, _ in figures)
        wall = statistics.median(value for _, value in figures)
        print(f"{kind:27} {cpu * 1e6:9.0f} µs {cpu / ping:6.1f}x {wall * 1e6:9.0f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
