"""Storage throughput: the memory store against Redis, same run.

Each scenario is measured on every back end, alternating back ends from
run to run so that a busy machine slows both alike; the table gives the
median of the runs and the Redis/memory ratio.  In each run, ``--tasks``
concurrent tasks (100 by default, like 100 players) each perform
``--ops`` operations on a fresh store:

- ``append``: each task appends actions to its own session log, each
  append carrying the expected length (the Lua script on Redis);
- ``submit``: each task submits wins to one shared daily leaderboard
  (only-better replacement, the Lua script on Redis).

Without ``--redis URL`` a throw-away ``redis-server`` is started on a free
port (the one the tests use; no persistence, so disk speed does not
count).  Issue 5 asks the *server* figure (actions through the WebSocket
server) to be at least half the memory one with Redis; a scenario that
starts the server on ``Backend.url`` and plays through it belongs in
``SCENARIOS`` beside these and needs nothing else changed.

    python bench/storage.py [--redis URL] [--tasks 100] [--ops 200] [--runs 5] [--scenario append]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Awaitable, Callable
from uuid import uuid4

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from redis_server import RedisServer  # noqa: E402
from server.storage import Action, SessionHeader, Store, open_store  # noqa: E402

DAY_MS = 1_714_521_600_000


@dataclass(frozen=True)
class Backend:
    """Where a scenario stores: ``url`` None is the memory store."""

    name: str
    url: str | None

    def open(self) -> Store:
        return open_store(self.url, namespace=f"bench-{uuid4().hex[:8]}")


@dataclass(frozen=True)
class Load:
    tasks: int
    ops: int


Scenario = Callable[[Backend, Load], Awaitable[float]]


async def _run_tasks(store: Store, load: Load, work: Callable[[Store, int, int], Awaitable[None]]) -> float:
    """Operations per second of ``load.tasks`` tasks each calling
    ``work(store, task, n)`` for n in 0..ops-1, one after another."""

    async def task(index: int) -> None:
        for n in range(load.ops):
            await work(store, index, n)

    start = time.perf_counter()
    await asyncio.gather(*(task(index) for index in range(load.tasks)))
    return load.tasks * load.ops / (time.perf_counter() - start)


def store_scenario(
    setup: Callable[[Store, Load], Awaitable[None]], work: Callable[[Store, int, int], Awaitable[None]]
) -> Scenario:
    """A scenario that drives the store directly, on a fresh store per run."""

    async def measure(backend: Backend, load: Load) -> float:
        store = backend.open()
        try:
            await setup(store, load)
            return await _run_tasks(store, load, work)
        finally:
            await store.close()

    return measure


async def _create_sessions(store: Store, load: Load) -> None:
    for index in range(load.tasks):
        await store.create_session(
            SessionHeader(game_id=f"g{index}", game="wordlink", deal=index, options={}, owner=f"p{index}",
                          created_ms=DAY_MS)
        )


async def _append(store: Store, index: int, n: int) -> None:
    await store.append(f"g{index}", n, Action("move", "7H>F1", DAY_MS + n))


async def _nothing(store: Store, load: Load) -> None:
    return None


async def _submit(store: Store, index: int, n: int) -> None:
    time_ms = 60_000 + (index * 7_919 + n * 104_729) % 600_000
    await store.submit("wordlink/draw-3/2024-05-01", f"p{index}", time_ms, 90 + n % 50, DAY_MS + n, 86_400)


SCENARIOS: dict[str, Scenario] = {
    "append": store_scenario(_create_sessions, _append),
    "submit": store_scenario(_nothing, _submit),
}


async def measure_all(backends: list[Backend], names: list[str], load: Load, runs: int) -> dict[tuple[str, str], list[float]]:
    figures: dict[tuple[str, str], list[float]] = {}
    for name in names:
        for run in range(runs):
            for backend in backends if run % 2 == 0 else reversed(backends):
                rate = await SCENARIOS[name](backend, load)
                figures.setdefault((name, backend.name), []).append(rate)
                print(f"  {name:<8} {backend.name:<7} run {run + 1}/{runs}: {rate:>12,.0f} ops/s", file=sys.stderr, flush=True)
    return figures


def table(figures: dict[tuple[str, str], list[float]], names: list[str]) -> str:
    lines = [
        f"{'scenario':<10} {'memory ops/s':>14} {'redis ops/s':>14} {'redis/memory':>13}",
        f"{'-' * 10} {'-' * 14} {'-' * 14} {'-' * 13}",
    ]
    for name in names:
        memory = statistics.median(figures[(name, "memory")])
        redis = statistics.median(figures[(name, "redis")])
        lines.append(f"{name:<10} {memory:>14,.0f} {redis:>14,.0f} {redis / memory:>13.3f}")
    return "\n".join(lines)


def redis_description(url: str) -> str:
    import redis
    from redis.utils import HIREDIS_AVAILABLE

    async def version() -> str:
        client = redis.asyncio.Redis.from_url(url)
        try:
            return str((await client.info("server"))["redis_version"])
        finally:
            await client.aclose()

    parser = "hiredis" if HIREDIS_AVAILABLE else "pure-Python parser"
    return f"Redis {asyncio.run(version())}, redis-py {redis.__version__} ({parser})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", help="Redis URL (default: start a throw-away redis-server)")
    parser.add_argument("--tasks", type=int, default=100, help="concurrent tasks (default 100)")
    parser.add_argument("--ops", type=int, default=200, help="operations per task and run (default 200)")
    parser.add_argument("--runs", type=int, default=5, help="runs per scenario and back end (default 5)")
    parser.add_argument("--scenario", action="append", choices=sorted(SCENARIOS), help="repeatable; default all")
    args = parser.parse_args()
    names = args.scenario or list(SCENARIOS)
    load = Load(tasks=args.tasks, ops=args.ops)

    server = None if args.redis else RedisServer()
    try:
        if server is not None:
            server.start()
        url = args.redis or server.url  # type: ignore[union-attr]
        print(f"{redis_description(url)}; {load.tasks} tasks x {load.ops} ops, {args.runs} runs", flush=True)
        backends = [Backend("memory", None), Backend("redis", url)]
        figures = asyncio.run(measure_all(backends, names, load, args.runs))
        print(table(figures, names))
    finally:
        if server is not None:
            server.remove()


if __name__ == "__main__":
    main()
