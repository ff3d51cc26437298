"""Server figures beside bare-websockets baselines, in one run.

(a) Action round trip: 200 players, each with its own game, each sending
    a move ("draw", always legal in WordLink) about twice a second (a fast
    human; ``--rate`` changes it) and timing the reply.  Baseline: a bare websockets server that
    answers every frame at once with a frame of the same size as the
    arena's reply.
(b) Fan-out: 1,000 spectators watch one game; the player moves; the time
    until the last spectator has the diff.  Baseline: the same 1,000
    connections on a bare websockets server that calls
    ``websockets.broadcast`` with a frame of the same size.  The
    server-side share is printed too: the arena's own broadcast timer
    (``/metrics``) beside the baseline's timing of its ``broadcast`` call.

Both servers run in child processes (the clients in this one), with the
same websockets settings (no compression, no keepalive), MessagePack on
the wire.  Targets: round trip within 2x of the echo baseline at
p50; fan-out within 1.5x of the broadcast baseline.

    nice -n 10 python bench/server.py [--players 200] [--rate 2] [--spectators 1000] [--seconds 8] [--moves 20]

``--gc`` measures the garbage collector's pauses instead, as the games
the server holds grow (``bench/gc_pauses.py``):

    nice -n 10 python bench/server.py --gc [--held 1000 20000] [--log 30] [--fillers 50] [--seconds 8]

The machine's load average is printed at the start and the end: on a
shared machine the figures move with it, which is why the two servers are
measured in alternating rounds rather than one after the other.

Progress (connections opened, each block's seconds, each fan-out move)
goes to stderr with an ETA (``server.runtime.progress.ProgressLine``: one line
rewritten in place on a terminal, plain lines otherwise); the figures go
to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import statistics
import subprocess
import sys
import time
import urllib.request
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

from protocol import MSGPACK_SUBPROTOCOL  # noqa: E402
from server.runtime.progress import ProgressLine  # noqa: E402

ROUND_TRIP_TARGET = 2.0
FAN_OUT_TARGET = 1.5
GO = b"go"
Exchange = Callable[[ClientConnection, int], Awaitable[None]]
CLIENT_OPTIONS: dict[str, Any] = {"subprotocols": [MSGPACK_SUBPROTOCOL], "compression": None, "ping_interval": None}


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
    "ARENA_IDENTITIES_PER_HOUR": "100000",
    # One INFO line per connection opened and closed would bury the figures.
    "ARENA_LOG_LEVEL": "warning",
    # The memory store, in any checkout (newer ones default to a database
    # on disk; --memory is newer than some checkouts compared).
    "ARENA_REDIS_URL": "none",
}
"""The arena server's settings in the benches: no limit gets in the way."""


def start_arena() -> tuple[subprocess.Popen[str], str]:
    return _start([sys.executable, "-m", "server.cli", "serve", "--port", "0"], ARENA_ENVIRONMENT)


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


async def open_many(url: str, count: int, label: str) -> list[ClientConnection]:
    connections: list[ClientConnection] = []
    progress = ProgressLine(every=5.0)
    for start in range(0, count, 100):
        connections += await asyncio.gather(*(connect(url, **CLIENT_OPTIONS) for _ in range(start, min(count, start + 100))))
        progress(len(connections), count, f"{label} connected")
    return connections


async def new_game(connection: ClientConnection, number: int) -> str:
    """Say hello and start a WordLink game (draw 3) where drawing stays legal."""
    await request(connection, {"type": "hello", "id": 1, "name": f"bench-{number}"})
    deal = number * 10
    while True:
        deal += 1
        message = {"type": "new_game", "id": 2, "game": "klondike", "deal": deal, "options": {"draw": 3}}
        started = await request(connection, message)
        snapshot = msgpack.unpackb(await connection.recv())
        if snapshot["status"] == "playing":
            return str(started["game_id"])


async def paced_round_trips(
    connections: list[ClientConnection], exchange: Exchange, seconds: float, rate: float, label: str
) -> list[float]:
    """Every connection exchanges about ``rate`` times a second (evenly
    jittered) for ``seconds``; the round-trip times after the first second
    (warm-up).  Progress counts the block's whole seconds, the warm-up
    included, under ``label`` (the round and the condition)."""
    times: list[float] = []
    begin = time.perf_counter()
    warm = begin + 1.0
    end = warm + seconds
    total = math.ceil(end - begin)
    line = ProgressLine(every=5.0)

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

    def progress(done: int) -> None:
        line(done, total, f"s of {label}, {len(times)} round trips timed")

    async def ticks() -> None:
        for second in range(1, total):
            await asyncio.sleep(max(0.0, begin + second - time.perf_counter()))
            progress(second)

    await asyncio.gather(ticks(), *(player(connection, n) for n, connection in enumerate(connections)))
    progress(total)
    return times


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def close_all(connections: list[ClientConnection]) -> None:
    await asyncio.gather(*(connection.close() for connection in connections), return_exceptions=True)


# ---------------------------------------------------------------- (a)


async def arena_players(url: str, players: int) -> tuple[Exchange, list[ClientConnection], int]:
    """Connected players with a game each, their move exchange, and the reply size."""
    connections = await open_many(url, players, "arena players")
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


async def round_trips(
    arena: tuple[Exchange, list[ClientConnection]],
    echo: tuple[Exchange, list[ClientConnection]],
    seconds: float,
    rounds: int,
    rate: float,
) -> tuple[list[float], list[float]]:
    """Alternate arena and echo blocks, so that load from elsewhere on the
    machine falls on both alike."""
    arena_times: list[float] = []
    echo_times: list[float] = []
    for number in range(rounds):
        for label, (exchange, connections), times in (("arena", arena, arena_times), ("echo", echo, echo_times)):
            times += await paced_round_trips(connections, exchange, seconds / rounds, rate, f"round {number + 1}/{rounds} {label}")
    return arena_times, echo_times


# ---------------------------------------------------------------- (b)


async def _arrivals(spectators: list[ClientConnection]) -> list[float]:
    async def arrival(connection: ClientConnection) -> float:
        await connection.recv()
        return time.perf_counter()

    return list(await asyncio.gather(*(arrival(connection) for connection in spectators)))


def _metric(url: str, name: str) -> float:
    address = url.replace("ws://", "http://").removesuffix("/ws") + "/metrics"
    with urllib.request.urlopen(address, timeout=10) as response:
        for line in response.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    raise LookupError(name)


async def arena_audience(url: str, spectators: int) -> tuple[ClientConnection, str, list[ClientConnection], int]:
    """A player with a game, ``spectators`` watching it, and the diff size."""
    player = await connect(url, **CLIENT_OPTIONS)
    game_id = await new_game(player, 999_000)
    watchers = await open_many(url, spectators, "arena spectators")
    for start in range(0, spectators, 200):
        await asyncio.gather(*(request(w, {"type": "watch", "id": 1, "game_id": game_id}) for w in watchers[start : start + 200]))
    waiting = asyncio.create_task(_arrivals(watchers))
    await request(player, {"type": "move", "id": 1, "game_id": game_id, "move": "draw"})
    await waiting
    shared = msgpack.packb({**(await request(player, {"type": "move", "id": 2, "game_id": game_id, "move": "draw"})), "id": None})
    await asyncio.gather(*(w.recv() for w in watchers))
    return player, game_id, watchers, len(shared) - len(msgpack.packb({"id": None})) + 1


async def fan_outs(
    arena: tuple[ClientConnection, str, list[ClientConnection]],
    baseline: tuple[ClientConnection, list[ClientConnection]],
    url: str,
    moves: int,
) -> tuple[list[float], float, list[float], float]:
    """Alternate one arena move and one baseline broadcast, ``moves`` times."""
    player, game_id, arena_watchers = arena
    trigger, baseline_watchers = baseline
    count_before = _metric(url, "arena_broadcast_seconds_count")
    sum_before = _metric(url, "arena_broadcast_seconds_sum")
    arena_times, cast_times, cast_server = [], [], []
    progress = ProgressLine(every=5.0)
    for number in range(moves):
        waiting = asyncio.create_task(_arrivals(arena_watchers))
        await asyncio.sleep(0.05)
        sent = time.perf_counter()
        await request(player, {"type": "move", "id": 10 + number, "game_id": game_id, "move": "draw"})
        arena_times.append(max(await waiting) - sent)
        waiting = asyncio.create_task(_arrivals(baseline_watchers))
        await asyncio.sleep(0.05)
        sent = time.perf_counter()
        await trigger.send(GO)
        cast_server.append(float(await trigger.recv()))
        cast_times.append(max(await waiting) - sent)
        progress(
            number + 1, moves,
            f"moves, last spectator after {arena_times[-1] * 1000:.1f} ms (arena), {cast_times[-1] * 1000:.1f} ms (broadcast)",
        )
    arena_server = (_metric(url, "arena_broadcast_seconds_sum") - sum_before) / (
        _metric(url, "arena_broadcast_seconds_count") - count_before
    )
    return arena_times, arena_server, cast_times, statistics.mean(cast_server)


# ---------------------------------------------------------------- main


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.2f} ms"


async def main(args: argparse.Namespace) -> None:
    arena, url = start_arena()
    baseline: subprocess.Popen[str] | None = None
    try:
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start")
        print(f"(a) round trip: {args.players} players, ~{args.rate:g} actions/s each, {args.rounds} rounds of"
              f" {args.seconds / args.rounds:.1f} s per server (each after 1 s warm-up)")
        move, players, reply_size = await arena_players(url, args.players)
        baseline, baseline_url = start_baseline(reply_size)
        echoes = await open_many(baseline_url, args.players, f"echo clients ({reply_size}-byte replies)")
        arena_times, echo_times = await round_trips(
            (move, players), (echo_exchange, echoes), args.seconds, args.rounds, args.rate
        )
        await close_all(players + echoes)
        stop(baseline)

        print(f"(b) fan-out: one move to {args.spectators} spectators, {args.moves} moves, alternating")
        player, game_id, watchers, diff_size = await arena_audience(url, args.spectators)
        baseline, baseline_url = start_baseline(diff_size)
        trigger = await connect(baseline_url, **CLIENT_OPTIONS)
        listeners = await open_many(baseline_url, args.spectators, f"broadcast spectators ({diff_size}-byte frame)")
        await asyncio.sleep(0.2)
        fan_times, fan_server, cast_times, cast_server = await fan_outs(
            (player, game_id, watchers), (trigger, listeners), url, args.moves
        )
        await close_all([player, trigger, *watchers, *listeners])
    finally:
        stop(arena)
        if baseline is not None:
            stop(baseline)

    a50, a99 = percentile(arena_times, 0.5), percentile(arena_times, 0.99)
    e50, e99 = percentile(echo_times, 0.5), percentile(echo_times, 0.99)
    f50, c50 = statistics.median(fan_times), statistics.median(cast_times)
    print()
    print(f"round trip    arena p50 {ms(a50)}  p99 {ms(a99)}   ({len(arena_times)} actions)")
    print(f"              echo  p50 {ms(e50)}  p99 {ms(e99)}   ({len(echo_times)} frames)")
    print(f"              ratio p50 {a50 / e50:5.2f}x  p99 {a99 / e99:5.2f}x   target p50 <= {ROUND_TRIP_TARGET}x")
    print(f"fan-out       arena     median {ms(f50)} to the last of {args.spectators}; server side {ms(fan_server)}")
    print(f"              broadcast median {ms(c50)}; server side {ms(cast_server)}")
    print(f"              ratio end to end {f50 / c50:5.2f}x  server side {fan_server / cast_server:5.2f}x"
          f"   target <= {FAN_OUT_TARGET}x")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the end")


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--spectators", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=2.0, help="actions per second per player")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--gc", action="store_true", help="measure garbage-collection pauses (bench/gc_pauses.py)")
    parser.add_argument("--held", type=int, nargs="+", default=[1000, 20000], help="--gc: games held, one run each")
    parser.add_argument("--log", type=int, default=30, help="--gc: draws in each held game's log")
    parser.add_argument("--fillers", type=int, default=50, help="--gc: connections that fill and then play")
    parser.add_argument("--baseline", type=int, metavar="REPLY_SIZE", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = parse(sys.argv[1:])
    if arguments.baseline is not None:
        asyncio.run(baseline_server(arguments.baseline))
    elif arguments.gc:
        from bench.gc_pauses import gc_main

        asyncio.run(gc_main(arguments))
    else:
        asyncio.run(main(arguments))
