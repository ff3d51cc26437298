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
relay itself costs; the spectators live in two client processes, half
each, in both layouts, so that B's receipts do not queue behind A's in
one event loop) and of the last receipt (the whole fan-out); the server
processes' CPU time (user + system, from ``/proc``) per delivered
message, and each one's per move (B's, on ``spread``, is what relaying
costs a process: applying the relayed action to its own replay, then
delivering to its half); and Redis's CPU time and commands (``INFO``,
every node) per move.  The table gives the medians of the runs and the
spread/local ratios.

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
import multiprocessing
import os
import statistics
import sys
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
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

from server.runtime.progress import ProgressLine  # noqa: E402

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


# ---------------------------------------------------------------- spectator processes


class Audience:
    """The spectators one client process holds, all on one server; each
    diff that every one of them has is reported by its number."""

    def __init__(self, game_id: str, connections: list[ClientConnection], reports: Connection) -> None:
        self.game_id = game_id
        self.connections = connections
        self.reports = reports
        self.arrivals: list[dict[int, float]] = [{} for _ in connections]
        self._counts: dict[int, int] = {}
        self._readers = [
            asyncio.create_task(self._read(connection, arrivals)) for connection, arrivals in zip(connections, self.arrivals)
        ]

    async def _read(self, connection: ClientConnection, arrivals: dict[int, float]) -> None:
        async for frame in connection:
            message = msgpack.unpackb(frame)
            if message.get("type") == "diff" and message.get("game_id") == self.game_id:
                seq = int(message["seq"])
                arrivals[seq] = time.perf_counter()
                self._counts[seq] = self._counts.get(seq, 0) + 1
                if self._counts[seq] == len(self.connections):
                    self.reports.send(seq)

    async def close(self) -> list[dict[int, float]]:
        """Each spectator's receipt times, by diff number, once all are closed."""
        await close_all(self.connections)
        await asyncio.gather(*self._readers, return_exceptions=True)
        return self.arrivals


async def watcher(url: str, game_id: str) -> ClientConnection:
    connection = await connect(url, **CLIENT_OPTIONS)
    snapshot = await request(connection, {"type": "watch", "id": 1, "game_id": game_id})
    assert snapshot["type"] == "snapshot", snapshot
    return connection


async def serve_orders(orders: Connection, reports: Connection) -> None:
    """A spectator process's loop.  An order ``(url, game_id, count)``
    opens that many spectators of the game (``BATCH`` at a time) and
    reports ``"ready"``; the next order ends the run: the spectators close
    and their receipt times are reported.  ``None`` between runs ends the
    process."""
    while (order := await asyncio.to_thread(orders.recv)) is not None:
        url, game_id, count = order
        connections: list[ClientConnection] = []
        while len(connections) < count:
            batch = min(BATCH, count - len(connections))
            connections += await asyncio.gather(*(watcher(url, game_id) for _ in range(batch)))
        audience = Audience(game_id, connections, reports)
        reports.send("ready")
        await asyncio.to_thread(orders.recv)
        reports.send(await audience.close())


def spectator_process(orders: Connection, reports: Connection) -> None:
    asyncio.run(serve_orders(orders, reports))


class SpectatorProcess:
    """A client process of its own for half the spectators: with every
    spectator in this one, a receipt on B would wait for this event loop to
    read A's frames first (and the reverse), and the figures would measure
    the client.  Receipt times are ``time.perf_counter``, the system's
    monotonic clock, comparable across processes."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        their_orders, self._orders = context.Pipe(duplex=False)
        self._reports, their_reports = context.Pipe(duplex=False)
        self._process = context.Process(target=spectator_process, args=(their_orders, their_reports), daemon=True)
        self._process.start()

    def order(self, order: tuple[str, str, int] | str | None) -> None:
        self._orders.send(order)

    async def report(self) -> Any:
        return await asyncio.to_thread(self._reports.recv)

    def stop(self) -> None:
        self.order(None)
        self._process.join(30)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()


@dataclass(frozen=True)
class Run:
    """One run of one layout: latencies in ms, CPU in µs."""

    p50_ms: float
    p99_ms: float
    first_a_p50_ms: float
    first_b_p50_ms: float | None
    last_p50_ms: float
    server_us_per_message: float
    a_ms_per_move: float
    b_ms_per_move: float
    redis_us_per_move: float
    redis_commands_per_move: float


def percentile(values: list[float], share: int) -> float:
    return statistics.quantiles(values, n=100)[share - 1] if len(values) > 1 else values[0]


async def one_run(
    backend: Backend, servers: tuple[ServerChild, ServerChild], clients: list[SpectatorProcess], layout: str,
    args: argparse.Namespace, progress: ProgressLine, done: list[int], total: int,
) -> Run:
    a, b = servers
    player = await hello(a.url, 0)
    game_id = await start_game(player, 1)
    targets = [a, a] if layout == "local" else [a, b]
    halves = [args.spectators - args.spectators // 2, args.spectators // 2]
    for client, target, count in zip(clients, targets, halves):
        client.order((target.url, game_id, count))
    for client in clients:
        assert await client.report() == "ready"
    acks: dict[int, float] = {}
    try:
        for number in range(args.warm_up + args.moves):
            if number == args.warm_up:
                cpu_before = [server.cpu_seconds() for server in servers]
                redis_before = redis_work(backend.nodes)
            reply = await request(player, {"type": "move", "id": 10 + number, "game_id": game_id, "move": "draw"})
            assert reply["type"] == "diff", reply
            acks[int(reply["seq"])] = time.perf_counter()
            for client in clients:
                assert await client.report() == reply["seq"]
            if number >= args.warm_up:
                done[0] += 1
                progress(done[0], total, f"moves ({backend.name}, {layout})")
        a_cpu, b_cpu = (server.cpu_seconds() - before for server, before in zip(servers, cpu_before))
        redis_done = redis_work(backend.nodes) - redis_before
    finally:
        for client in clients:
            client.order("end of the run")
        near, far = [await client.report() for client in clients]
        await close_all([player])
    measured = [seq for seq in acks if seq > args.warm_up]
    on_a = near + far if layout == "local" else near
    on_b = far if layout == "spread" else []

    def lags(spectators: list[dict[int, float]]) -> list[float]:
        return [(arrivals[seq] - acks[seq]) * 1000 for arrivals in spectators for seq in measured]

    def firsts(spectators: list[dict[int, float]]) -> list[float]:
        return [(min(arrivals[seq] for arrivals in spectators) - acks[seq]) * 1000 for seq in measured]

    every = lags(near + far)
    return Run(
        p50_ms=percentile(every, 50),
        p99_ms=percentile(every, 99),
        first_a_p50_ms=percentile(firsts(on_a), 50),
        first_b_p50_ms=percentile(firsts(on_b), 50) if on_b else None,
        last_p50_ms=percentile([(max(arrivals[seq] for arrivals in near + far) - acks[seq]) * 1000 for seq in measured], 50),
        server_us_per_message=(a_cpu + b_cpu) / (len(measured) * args.spectators) * 1e6,
        a_ms_per_move=a_cpu / len(measured) * 1e3,
        b_ms_per_move=b_cpu / len(measured) * 1e3,
        redis_us_per_move=redis_done.cpu_seconds / len(measured) * 1e6,
        redis_commands_per_move=redis_done.commands / len(measured),
    )


async def measure(backends: list[Backend], args: argparse.Namespace) -> dict[tuple[str, str], list[Run]]:
    runs: dict[tuple[str, str], list[Run]] = {}
    total = len(backends) * len(LAYOUTS) * args.runs * args.moves
    done = [0]
    progress = ProgressLine(every=5.0)
    clients = [SpectatorProcess(), SpectatorProcess()]
    try:
        for backend in backends:
            servers = ServerChild(backend.url), ServerChild(backend.url)
            try:
                for run in range(args.runs):
                    for layout in LAYOUTS if run % 2 == 0 else reversed(LAYOUTS):
                        result = await one_run(backend, servers, clients, layout, args, progress, done, total)
                        runs.setdefault((backend.name, layout), []).append(result)
            finally:
                for server in servers:
                    server.stop()
                backend.close()
    finally:
        progress.finish()
        for client in clients:
            client.stop()
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
        ("  process A's CPU per move (ms)", "a_ms_per_move"),
        ("  process B's CPU per move (ms)", "b_ms_per_move"),
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
