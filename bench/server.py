"""Server figures beside bare-websockets baselines, in one run, and the
history of runs.

The default run (``bench/rounds.py``) measures the arena server and a
bare websockets server in alternating rounds, so that load from elsewhere
on a shared machine falls on both alike, and prints each figure's median
over the rounds, its spread (min–max), the median of the per-round ratios
to the baseline and the target, pass or FAIL:

(a) Move round trip: ``--players`` (200) players, each with its own game,
    each sending a move ("draw", always legal in Klondike draw 3) about
    ``--rate`` (2) times a second (a fast human) and timing the reply;
    p50 and p99 per round.  Baseline: a bare websockets server answering
    every frame at once with a frame of the arena's reply's size.
    Targets: p50 ≤ 1.3×, p99 ≤ 1.6×.
(b) Closed-loop capacity: the same players, each sending its next move as
    soon as the last is answered; round trips per second, and the server
    process's CPU time per action (``/proc``), whose inverse is the
    actions per second one fully used core serves.  Targets: ≥ 0.5× the
    echo's round trips per second, ≤ 80 µs of CPU per action.
(c) Fan-out: ``--spectators`` (1,000) watch one game; the player moves;
    the time until the last spectator has the diff, and the server-side
    share (the arena's broadcast timer on ``/metrics`` beside the timing
    of ``websockets.broadcast`` on the same connections).  Target ≈ 1.0×
    (pass at ≤ 1.1×).
(d) Memory per idle connection: ``--idle`` (1,000) connections after
    ``hello`` (the baseline: after one echoed frame), fresh server
    processes each round, growth of the resident set per connection.
    Target ≤ 1.1×.

Both servers run in child processes (the clients in this one, whose own
CPU per round trip is printed too), with the same websockets settings
(no compression, no keepalive), MessagePack on the wire.  The commit and
the load average at the start and the end are printed, and the run is
appended to ``--history`` (``bench/perf_history.md``; ``none``: not kept).
Beside the paced and closed-loop figures is the share of the time each
server waited for a core while ready to run (``/proc/PID/schedstat``):
where it is high, the machine's other work made the latency, not the
server's cost (``nice`` lengthens that wait on a busy machine).

    nice -n 10 python bench/server.py [--players 200] [--rate 2] [--rounds 6] [--seconds 3]
        [--closed-rounds 4] [--closed-seconds 2] [--spectators 1000] [--moves 20]
        [--idle 1000] [--idle-rounds 2] [--history FILE]

``--scale`` measures how the cost grows with the number of players
(``bench/scale.py``): 100, 1,000 and 5,000 players at one move a second,
open loop, from load-generator processes of their own:

    nice -n 10 python bench/server.py --scale [--levels 100 1000 5000] [--scale-seconds 10] [--generators 2] [--pin]

``--gc`` measures the garbage collector's pauses instead, as the games
the server holds grow (``bench/gc_pauses.py``):

    nice -n 10 python bench/server.py --gc [--held 1000 20000] [--log 30] [--fillers 50] [--seconds 8]

Progress goes to stderr with an ETA for the whole run
(``server.runtime.progress.ProgressLine``: one line rewritten in place on
a terminal, plain lines otherwise); the figures go to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

if not __package__:
    # Run as a file, Python puts bench/ first on sys.path, where this very
    # file would shadow the ``server`` package.
    sys.path.pop(0)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import msgpack  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.asyncio.server import ServerConnection, broadcast, serve  # noqa: E402

import engine  # noqa: E402
from protocol import MSGPACK_SUBPROTOCOL  # noqa: E402
from server.runtime.progress import ProgressLine  # noqa: E402

GO = b"go"
Exchange = Callable[[ClientConnection, int], Awaitable[None]]
Progress = Callable[[int, int, str], None]
"""What reports progress: ``ProgressLine``'s call (done, total, what)."""
CLIENT_OPTIONS: dict[str, Any] = {"subprotocols": [MSGPACK_SUBPROTOCOL], "compression": None, "ping_interval": None}
HISTORY = Path(__file__).resolve().parent / "perf_history.md"


# ---------------------------------------------------------------- servers


def _start(command: list[str], environment: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """A child server process and the URL it prints when listening."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, text=True, env={**os.environ, **(environment or {})}
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if "ws://" not in line:
        process.kill()
        raise RuntimeError(f"server did not start: {line!r}")
    return process, line.split()[-1]


ARENA_ENVIRONMENT = {
    "ARENA_RATE_PER_SECOND": "100000",
    "ARENA_RATE_BURST": "100000",
    "ARENA_PING_INTERVAL": "none",
    "ARENA_SEND_QUEUE": "4096",
    # Every bench client comes from 127.0.0.1: lift the limits per address.
    "ARENA_CONNECTIONS_PER_ADDRESS": "100000",
    "ARENA_CONNECTION_BURST": "100000",
    "ARENA_TCP_CONNECTION_BURST": "100000",
    "ARENA_TCP_CONNECTION_RATE_PER_SECOND": "100000",
    "ARENA_IDENTITIES_PER_HOUR": "100000",
    "ARENA_NEW_GAMES_BURST": "1000000",
    # One INFO line per connection opened and closed would bury the figures.
    "ARENA_LOG_LEVEL": "warning",
    # Proving the days' deals in worker processes would take the cores
    # the figures are measured on.
    "ARENA_PREPARE_DAILIES": "false",
    # The memory store, in any checkout (newer ones default to a database
    # on disk; --memory is newer than some checkouts compared).
    "ARENA_REDIS_URL": "none",
}
"""The arena server's settings in the benches: no limit gets in the way."""


def known_to(root: Path, environment: dict[str, str]) -> dict[str, str]:
    """``environment`` without the ``ARENA_`` variables the checkout at
    ``root`` has no setting for: a baseline checkout older than a setting
    refuses its variable."""
    places = (root / "server" / "runtime" / "settings.py", root / "server" / "settings.py")
    settings = next(place for place in places if place.exists()).read_text(encoding="utf-8")
    return {
        name: value for name, value in environment.items()
        if not name.startswith("ARENA_") or f"{name.removeprefix('ARENA_').lower()}:" in settings
    }


def start_arena() -> tuple[subprocess.Popen[str], str]:
    """This checkout's arena server (copied into an older checkout, that one's)."""
    root = Path(__file__).resolve().parent.parent
    return _start([sys.executable, "-m", "server.cli", "serve", "--port", "0"], known_to(root, ARENA_ENVIRONMENT))


def start_baseline(reply_size: int) -> tuple[subprocess.Popen[str], str]:
    return _start([sys.executable, str(Path(__file__).resolve()), "--baseline", str(reply_size)])


def stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdout:
        process.stdout.close()


def raise_open_files(needed: int) -> None:
    """Lift this process's soft limit of open files towards the hard one
    (children inherit it): thousands of connections need as many
    descriptors on each side, and the usual soft limit is 1,024."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


async def baseline_server(reply_size: int) -> None:
    """Echo (a reply of ``reply_size`` bytes) and, on ``go``, a broadcast of
    a frame that size to every other connection; answers ``go`` with the
    broadcast call's duration in seconds."""
    reply = b"\x00" * reply_size
    connections: set[ServerConnection] = set()

    async def handler(connection: ServerConnection) -> None:
        connections.add(connection)
        try:
            async for frame in connection:
                if frame == GO:
                    started = time.perf_counter()
                    broadcast(connections - {connection}, reply)
                    await connection.send(str(time.perf_counter() - started))
                else:
                    await connection.send(reply)
        finally:
            connections.discard(connection)

    async with serve(
        handler,
        "127.0.0.1",
        0,
        subprotocols=[MSGPACK_SUBPROTOCOL],  # type: ignore[list-item]
        compression=None,
        ping_interval=None,
    ) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"baseline listening on ws://127.0.0.1:{port}/ws", flush=True)
        await asyncio.Future()


# ---------------------------------------------------------------- clients


async def request(connection: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message`` and return the reply carrying its id (other frames skipped)."""
    await connection.send(msgpack.packb(message))
    while True:
        reply = msgpack.unpackb(await connection.recv())
        if reply.get("id") == message.get("id"):
            return reply


async def open_many(url: str, count: int, label: str, progress: Progress | None = None) -> list[ClientConnection]:
    """``count`` connections, a hundred at a time, counted on ``progress``
    (a line of their own by default)."""
    connections: list[ClientConnection] = []
    report = progress or ProgressLine(every=5.0)
    for start in range(0, count, 100):
        connections += await asyncio.gather(*(connect(url, **CLIENT_OPTIONS) for _ in range(start, min(count, start + 100))))
        report(len(connections), count, f"{label} connected")
    return connections


DRAWS_CHECKED = 30
"""Draws that show a deal's whole stock three times over (24 cards, three a draw)."""


def draws_forever(deal: int) -> bool:
    """Whether drawing alone keeps this Klondike deal (draw 3) in play.
    A deal whose stock shows no useful move is lost once it has been seen
    whole, and the server then refuses every draw: a cheaper reply than
    the diff a bench measures, which it would count as no answer."""
    game = engine.new_game("klondike", deal, draw=3)
    for _ in range(DRAWS_CHECKED):
        game.play("draw")
        if game.status != "playing":
            return False
    return True


async def new_game(connection: ClientConnection, number: int) -> str:
    """Say hello and start a Klondike game (draw 3) where drawing stays legal."""
    await request(connection, {"type": "hello", "id": 1, "name": f"bench-{number}"})
    deal = number * 10
    while True:
        deal += 1
        if not draws_forever(deal):
            continue
        message = {"type": "new_game", "id": 2, "game": "klondike", "deal": deal, "options": {"draw": 3}}
        started = await request(connection, message)
        snapshot = msgpack.unpackb(await connection.recv())
        if snapshot["status"] == "playing":
            return str(started["game_id"])


async def paced_round_trips(
    connections: list[ClientConnection],
    exchange: Exchange,
    seconds: float,
    rate: float,
    label: str,
    *,
    at_warm: Callable[[], None] | None = None,
    progress: Progress | None = None,
) -> list[float]:
    """Every connection exchanges about ``rate`` times a second (evenly
    jittered; ``math.inf``: a closed loop) for ``seconds``; the round-trip
    times after the first second (warm-up), whose end calls ``at_warm``.
    Progress counts the block's whole seconds, the warm-up included, under
    ``label`` (the round and the condition) on ``progress`` (a line of its
    own by default)."""
    times: list[float] = []
    begin = time.perf_counter()
    warm = begin + 1.0
    end = warm + seconds
    total = math.ceil(end - begin)
    line = progress or ProgressLine(every=5.0)

    async def player(connection: ClientConnection, number: int) -> None:
        pace = random.Random(number)
        await asyncio.sleep(pace.random() / rate)
        sequence = 0
        while (now := time.perf_counter()) < end:
            sequence += 1
            await exchange(connection, sequence)
            taken = time.perf_counter() - now
            if now > warm:
                times.append(taken)
            await asyncio.sleep(max(0.0, (0.5 + pace.random()) / rate - taken))

    def report(done: int) -> None:
        line(done, total, f"s of {label}, {len(times)} round trips timed")

    async def ticks() -> None:
        for second in range(1, total):
            await asyncio.sleep(max(0.0, begin + second - time.perf_counter()))
            if second == 1 and at_warm is not None:
                at_warm()
            report(second)

    await asyncio.gather(ticks(), *(player(connection, n) for n, connection in enumerate(connections)))
    report(total)
    return times


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def close_all(connections: list[ClientConnection]) -> None:
    await asyncio.gather(*(connection.close() for connection in connections), return_exceptions=True)


async def arena_players(
    url: str, players: int, progress: Progress | None = None
) -> tuple[Exchange, list[ClientConnection], int]:
    """Connected players with a game each, their move exchange, and the reply size."""
    connections = await open_many(url, players, "arena players", progress)
    games = [await new_game(connection, n) for n, connection in enumerate(connections)]
    game_of = dict(zip(map(id, connections), games))
    first = await request(connections[0], {"type": "move", "id": 0, "game_id": games[0], "move": "draw"})

    async def move(connection: ClientConnection, sequence: int) -> None:
        reply = await request(connection, {"type": "move", "id": sequence, "game_id": game_of[id(connection)], "move": "draw"})
        assert reply["type"] == "diff", reply

    return move, connections, len(msgpack.packb(first))


async def echo_exchange(connection: ClientConnection, sequence: int) -> None:
    await connection.send(msgpack.packb({"type": "move", "id": sequence, "game_id": "g_bench", "move": "draw"}))
    await connection.recv()


# ---------------------------------------------------------------- command line


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--rate", type=float, default=2.0, help="actions per second per player")
    parser.add_argument("--rounds", type=int, default=6, help="round-trip rounds, each server once a round")
    parser.add_argument(
        "--seconds", type=float, help="seconds per server per round, after 1 s of warm-up (default 3); --gc: of play (default 8)"
    )
    parser.add_argument("--closed-rounds", type=int, default=4, help="closed-loop rounds (0: skip)")
    parser.add_argument("--closed-seconds", type=float, default=2.0, help="closed-loop seconds per server per round")
    parser.add_argument("--spectators", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=20, help="fan-out moves per server (0: skip)")
    parser.add_argument("--idle", type=int, default=1000, help="idle connections per memory round (0: skip)")
    parser.add_argument("--idle-rounds", type=int, default=2)
    parser.add_argument("--history", default=str(HISTORY), help="file the run is appended to (none: not kept)")
    parser.add_argument("--scale", action="store_true", help="players at 1 move/s, open loop (bench/scale.py)")
    parser.add_argument("--levels", type=int, nargs="+", default=[100, 1000, 5000], help="--scale: players, one level each")
    parser.add_argument("--scale-rate", type=float, default=1.0, help="--scale: moves per second per player")
    parser.add_argument("--scale-seconds", type=float, default=10.0, help="--scale: seconds per level, after 2 s of warm-up")
    parser.add_argument("--generators", type=int, default=2, help="--scale: load-generator processes")
    parser.add_argument("--pin", action="store_true", help="--scale: the server on a core of its own, the generators on the others")
    parser.add_argument("--gc", action="store_true", help="measure garbage-collection pauses (bench/gc_pauses.py)")
    parser.add_argument("--held", type=int, nargs="+", default=[1000, 20000], help="--gc: games held, one run each")
    parser.add_argument("--log", type=int, default=30, help="--gc: draws in each held game's log")
    parser.add_argument("--fillers", type=int, default=50, help="--gc: connections that fill and then play")
    parser.add_argument("--baseline", type=int, metavar="REPLY_SIZE", help=argparse.SUPPRESS)
    arguments = parser.parse_args(argv)
    if arguments.seconds is None:
        arguments.seconds = 8.0 if arguments.gc else 3.0
    return arguments


if __name__ == "__main__":
    arguments = parse(sys.argv[1:])
    if arguments.baseline is not None:
        asyncio.run(baseline_server(arguments.baseline))
    elif arguments.gc:
        from bench.gc_pauses import gc_main

        asyncio.run(gc_main(arguments))
    elif arguments.scale:
        from bench.scale import scale_main

        scale_main(arguments)
    else:
        from bench.rounds import rounds_main

        asyncio.run(rounds_main(arguments))
