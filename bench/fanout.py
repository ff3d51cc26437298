"""Fan-out of one game to spectators spread over two server processes.

One player on process A plays a Klondike draw-3 game ("draw", always
legal), one move at a time; ``--spectators`` spectators watch it.  Two
layouts, alternating from run to run so that a busy machine slows both
alike:

- ``local`` (the baseline): every spectator on A, the player's process,
  which hands each diff to its own watchers;
- ``spread``: half on A, half on process B, which hears each move through
  Redis (the relay: one subscription to the game's channel per process,
  whatever its number of watchers) and hands it to its own.

Each move waits until every spectator has its diff before the next one
goes, so each figure is one move's fan-out and not a queue.  Per run:
the relay latency from the move's acknowledgement (the player has the
reply) to each spectator's receipt, p50 and p99 over every spectator and
move; the p50 over moves of the first receipt on each process (what the
relay itself costs: the spectators all live in this one client process,
which reads their frames one after another, so a later receipt includes
that queue) and of the last receipt (the whole fan-out); and the server
processes' CPU time (user + system, from ``/proc``) per delivered
message, and Redis's CPU time and commands (``INFO``, every node) per
move.  The table
gives the medians of the runs and the spread/local ratios.

The memory store cannot be shared, so the processes run on a throw-away
``redis-server`` (or ``--redis URL``) and, with ``--cluster``, on a
throw-away Redis Cluster of three masters as well, where the relay is
sharded pub/sub.  Every process, Redis and the clients share this
machine's cores: the load average is printed at the start and the end.

    nice -n 10 python bench/fanout.py [--spectators 400] [--moves 40] [--runs 5] [--warm-up 3]
        [--redis URL] [--cluster]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# The project first, so that bench/server.py cannot shadow the server
# package; bench/ (the script's own directory) stays next, for storage.py.
sys.path.insert(0, str(ROOT))

import msgpack  # noqa: E402
import redis  # noqa: E402
from storage import (  # noqa: E402
    BATCH,
    CLIENT_OPTIONS,
    ServerChild,
    close_all,
    hello,
    redis_under_test,
    request,
    start_game,
)
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from server.progress import ProgressLine  # noqa: E402

LAYOUTS = ("local", "spread")


@dataclass(frozen=True)
class Backend:
    """Where the two processes store: ``url`` for the servers, and a
    client of every Redis node, whose work is read."""

    name: str
    url: str
    nodes: list[redis.Redis]

    def close(self) -> None:
        for node in self.nodes:
            node.close()


@dataclass(frozen=True)
class RedisWork:
    """What every Redis node has done so far: CPU seconds, commands."""

    cpu_seconds: float
    commands: int

    def __sub__(self, earlier: RedisWork) -> RedisWork:
        return RedisWork(self.cpu_seconds - earlier.cpu_seconds, self.commands - earlier.commands)


def redis_work(nodes: list[redis.Redis]) -> RedisWork:
    """``INFO cpu stats`` of every node, summed, through a client kept for
    the whole run (a new connection would add its handshake's commands).
    A node counts a command once it ran, so the ``INFO`` of an earlier
    reading is in this one's count: one command per node is taken off."""
    cpu_seconds, commands = 0.0, 0
    for node in nodes:
        info = node.info("cpu", "stats")
        cpu_seconds += float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
        commands += int(info["total_commands_processed"]) - 1
    return RedisWork(cpu_seconds, commands)


@dataclass
class Spectator:
    """One watching connection and the time each diff of the game reached it."""

    connection: ClientConnection
    on_b: bool
    arrivals: dict[int, float] = field(default_factory=dict)


class Audience:
    """Every spectator of the game; ``wait_for(seq)`` returns once each has
    that diff."""

    def __init__(self, spectators: list[Spectator], game_id: str) -> None:
        self.spectators = spectators
        self.game_id = game_id
        self._counts: dict[int, int] = {}
        self._complete: dict[int, asyncio.Event] = {}
        self._readers = [asyncio.create_task(self._read(spectator)) for spectator in spectators]

    def _event(self, seq: int) -> asyncio.Event:
        return self._complete.setdefault(seq, asyncio.Event())

    async def _read(self, spectator: Spectator) -> None:
        async for frame in spectator.connection:
            message = msgpack.unpackb(frame)
            if message.get("type") == "diff" and message.get("game_id") == self.game_id:
                seq = int(message["seq"])
                spectator.arrivals[seq] = time.perf_counter()
                self._counts[seq] = self._counts.get(seq, 0) + 1
                if self._counts[seq] == len(self.spectators):
                    self._event(seq).set()

    async def wait_for(self, seq: int) -> None:
        await self._event(seq).wait()

    async def close(self) -> None:
        await close_all([spectator.connection for spectator in self.spectators])
        await asyncio.gather(*self._readers, return_exceptions=True)


async def watcher(url: str, game_id: str, on_b: bool) -> Spectator:
    connection = await connect(url, **CLIENT_OPTIONS)
    snapshot = await request(connection, {"type": "watch", "id": 1, "game_id": game_id})
    assert snapshot["type"] == "snapshot", snapshot
    return Spectator(connection, on_b)


async def audience(a: ServerChild, b: ServerChild, game_id: str, layout: str, count: int) -> Audience:
    """``count`` spectators of ``game_id``, opened ``BATCH`` at a time."""
    spectators: list[Spectator] = []
    while len(spectators) < count:
        batch = range(len(spectators), min(count, len(spectators) + BATCH))
        on_b = [layout == "spread" and number % 2 == 1 for number in batch]
        spectators += await asyncio.gather(*(watcher((b if far else a).url, game_id, far) for far in on_b))
    return Audience(spectators, game_id)


@dataclass(frozen=True)
class Run:
    """One run of one layout: latencies in ms, CPU in µs."""

    p50_ms: float
    p99_ms: float
    first_a_p50_ms: float
    first_b_p50_ms: float | None
    last_p50_ms: float
    server_us_per_message: float
    redis_us_per_move: float
    redis_commands_per_move: float


def percentile(values: list[float], share: int) -> float:
    return statistics.quantiles(values, n=100)[share - 1] if len(values) > 1 else values[0]


async def one_run(
    backend: Backend, a: ServerChild, b: ServerChild, layout: str, args: argparse.Namespace, progress: ProgressLine,
    done: list[int], total: int,
) -> Run:
    player = await hello(a.url, 0)
    game_id = await start_game(player, 1)
    watching = await audience(a, b, game_id, layout, args.spectators)
    acks: dict[int, float] = {}
    servers = [a, b]
    try:
        for number in range(args.warm_up + args.moves):
            if number == args.warm_up:
                cpu_before = sum(server.cpu_seconds() for server in servers)
                redis_before = redis_work(backend.nodes)
            reply = await request(player, {"type": "move", "id": 10 + number, "game_id": game_id, "move": "draw"})
            assert reply["type"] == "diff", reply
            acks[int(reply["seq"])] = time.perf_counter()
            await watching.wait_for(int(reply["seq"]))
            if number >= args.warm_up:
                done[0] += 1
                progress(done[0], total, f"moves ({backend.name}, {layout})")
        server_cpu = sum(server.cpu_seconds() for server in servers) - cpu_before
        redis_done = redis_work(backend.nodes) - redis_before
    finally:
        await watching.close()
        await close_all([player])
    measured = [seq for seq in acks if seq > args.warm_up]

    def lags(spectators: list[Spectator]) -> list[float]:
        return [(spectator.arrivals[seq] - acks[seq]) * 1000 for spectator in spectators for seq in measured]

    def firsts(spectators: list[Spectator]) -> list[float]:
        return [(min(spectator.arrivals[seq] for spectator in spectators) - acks[seq]) * 1000 for seq in measured]

    on_b = [spectator for spectator in watching.spectators if spectator.on_b]
    every = lags(watching.spectators)
    return Run(
        p50_ms=percentile(every, 50),
        p99_ms=percentile(every, 99),
        first_a_p50_ms=percentile(firsts([spectator for spectator in watching.spectators if not spectator.on_b]), 50),
        first_b_p50_ms=percentile(firsts(on_b), 50) if on_b else None,
        last_p50_ms=percentile(
            [(max(spectator.arrivals[seq] for spectator in watching.spectators) - acks[seq]) * 1000 for seq in measured], 50
        ),
        server_us_per_message=server_cpu / (len(measured) * args.spectators) * 1e6,
        redis_us_per_move=redis_done.cpu_seconds / len(measured) * 1e6,
        redis_commands_per_move=redis_done.commands / len(measured),
    )


async def measure(backends: list[Backend], args: argparse.Namespace) -> dict[tuple[str, str], list[Run]]:
    runs: dict[tuple[str, str], list[Run]] = {}
    total = len(backends) * len(LAYOUTS) * args.runs * args.moves
    done = [0]
    progress = ProgressLine(every=5.0)
    for backend in backends:
        a, b = ServerChild(backend.url), ServerChild(backend.url)
        try:
            for run in range(args.runs):
                for layout in LAYOUTS if run % 2 == 0 else reversed(LAYOUTS):
                    result = await one_run(backend, a, b, layout, args, progress, done, total)
                    runs.setdefault((backend.name, layout), []).append(result)
        finally:
            progress.finish()
            a.stop()
            b.stop()
            backend.close()
    return runs


def median(runs: list[Run], figure: str) -> float:
    return statistics.median(getattr(run, figure) for run in runs)


def table(runs: dict[tuple[str, str], list[Run]], backends: list[Backend], args: argparse.Namespace) -> str:
    """Medians of the runs, and each spread figure over the local one."""
    figures = [
        ("relay p50, ack to receipt (ms)", "p50_ms"),
        ("relay p99, ack to receipt (ms)", "p99_ms"),
        ("first spectator on A, p50 (ms)", "first_a_p50_ms"),
        ("first spectator on B, p50 (ms)", "first_b_p50_ms"),
        ("last spectator, p50 (ms)", "last_p50_ms"),
        ("server CPU per delivered message (µs)", "server_us_per_message"),
        ("Redis CPU per move (µs)", "redis_us_per_move"),
        ("Redis commands per move", "redis_commands_per_move"),
    ]
    lines = [f"{args.spectators} spectators, {args.moves} moves per run, medians of {args.runs} runs"]
    for backend in backends:
        local, spread = runs[(backend.name, "local")], runs[(backend.name, "spread")]
        lines.append(f"\n{backend.name:<40} {'local (baseline)':>17} {'spread over A+B':>17} {'spread/local':>13}")
        for label, figure in figures:
            if figure == "first_b_p50_ms":
                lines.append(f"{label:<40} {'-':>17} {median(spread, figure):>17.2f} {'':>13}")
                continue
            near, far = median(local, figure), median(spread, figure)
            ratio = f"{far / near:>13.2f}" if near > 0 else f"{'-':>13}"
            lines.append(f"{label:<40} {near:>17.2f} {far:>17.2f} {ratio}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spectators", type=int, default=400, help="spectators of the one game (default 400)")
    parser.add_argument("--moves", type=int, default=40, help="measured moves per run (default 40)")
    parser.add_argument("--warm-up", type=int, default=3, help="moves before measuring, per run (default 3)")
    parser.add_argument("--runs", type=int, default=5, help="runs per layout and back end (default 5)")
    parser.add_argument("--redis", help="Redis URL (default: start a throw-away redis-server)")
    parser.add_argument("--cluster", action="store_true", help="also a throw-away Redis Cluster of three masters")
    args = parser.parse_args()
    if args.spectators < 2 or args.moves < 1 or args.runs < 1 or args.warm_up < 0:
        parser.error("needs --spectators >= 2 (half on each process), --moves >= 1, --runs >= 1, --warm-up >= 0")

    # The servers' log (a line per connection) would bury the progress line.
    os.environ.setdefault("ARENA_LOG_LEVEL", "warning")
    with redis_under_test(args.redis, args.cluster) as (url, cluster):
        backends = [Backend("redis", url, [redis.Redis.from_url(url)])]
        if cluster is not None:
            nodes = [redis.Redis.from_url(node.url) for node in cluster.nodes]
            backends.append(Backend("cluster", cluster.url, nodes))
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start", flush=True)
        runs = asyncio.run(measure(backends, args))
        print(table(runs, backends, args))
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the end")

if __name__ == "__main__":
    main()
