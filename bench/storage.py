"""Storage figures: the memory store against the SQLite store and Redis
(and, with ``--cluster``, a Redis Cluster of three masters), same run.

Each scenario is measured on every back end, alternating back ends from
run to run so that a busy machine slows both alike; the table gives the
median of the runs and the Redis/memory ratio.  In each run, ``--tasks``
concurrent tasks (100 by default, like 100 players) each perform
``--ops`` operations:

- ``append``: each task appends actions to its own session log, each
  append carrying the expected length (the Lua script on Redis), on a
  fresh store;
- ``submit``: each task submits wins to one shared daily leaderboard
  (only-better replacement, the Lua script on Redis), on a fresh store
  (for SQLite, a fresh database file each run);
- ``server``: each task is a player on a real WebSocket connection
  (MessagePack) to an ``arena serve`` child process started for the run,
  with a Klondike draw-3 game of its own, sending a move ("draw", always
  legal) as soon as the previous one is answered.  The goals: with
  Redis at least half of the memory figure, with SQLite 0.6 of it.  Beside
  the actions per second, the 99th percentile of a move's round trip
  (sent to answered) over every move of the run, and the server
  process's CPU time (user + system, from ``/proc``) per action, which
  says how many actions one core serves when the machine is not shared.

Then, unless ``--games 0``, memory per live game: ``--games`` players
connect to a fresh server process and say hello, then each starts a game
and plays ``MOVES_PER_GAME`` moves; the growth of the process's resident
set size (``VmRSS``) at each step, per player, is the cost of a
connection and of a live game (its room, session, engine state, relay
subscription and, with the memory store, its stored log).  Beside it,
``tracemalloc`` in this process measures the game state alone: rooms of
replayed sessions.

The SQLite databases are made in ``--sqlite-dir`` (by default a
throw-away folder of the system's temporary directory, removed at the
end): put it on the disk a deployment would use, since every commit
waits for an fsync there (``synchronous=FULL``; a tmpfs would make the
figure meaningless).  Without ``--redis URL`` a throw-away ``redis-server`` is started on a free
port (the one the tests use; no persistence, so disk speed does not
count); ``--cluster`` starts a throw-away cluster of three masters the
same way (``redis-server --cluster-enabled yes``, joined by ``redis-cli
--cluster create``), all on this machine's cores.  The machine's load average is printed at the start and the end:
the clients, the server and Redis share its cores.

    nice -n 10 python bench/storage.py [--redis URL] [--cluster] [--sqlite-dir DIR] [--tasks 100] [--ops 200]
        [--runs 5] [--scenario server] [--games 500]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterator
from uuid import uuid4

ROOT = Path(__file__).resolve().parent.parent
# The project first, so that bench/server.py cannot shadow the server
# package (nothing more: tests/storage would shadow this very module for
# bench/fanout.py's spectator processes).
sys.path.insert(0, str(ROOT))

import msgpack  # noqa: E402
import engine  # noqa: E402
from engine import PLAYING  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from protocol import MSGPACK_SUBPROTOCOL  # noqa: E402
from protocol import to_client as tc  # noqa: E402
from server.runtime.progress import ProgressLine  # noqa: E402
from bench.figures import cpu_seconds, listening_url, rss_kib, wait_or_kill  # noqa: E402
from server.games.room import Room  # noqa: E402
from server.model.session import Session  # noqa: E402
from server.model.records import Action, SessionHeader
from server.storage import Store, open_store
from tests.redis_server import RedisClusterServers, RedisServer  # noqa: E402

DAY_MS = 1_714_521_600_000
SERVER_TARGETS = {"redis": 0.5, "sqlite": 0.6}
"""The least share of the memory store's actions per second through the server, by back end."""
SQLITE_SCHEME = "sqlite://"
MOVES_PER_GAME = 20
BATCH = 100
LISTENING = "arena: listening on "
SERVER_ENVIRONMENT = {
    "ARENA_RATE_PER_SECOND": "100000",
    "ARENA_RATE_BURST": "100000",
    "ARENA_PING_INTERVAL": "none",
    # Every bench client comes from 127.0.0.1: lift the limits per address.
    "ARENA_CONNECTIONS_PER_ADDRESS": "100000",
    "ARENA_CONNECTION_BURST": "100000",
    "ARENA_IDENTITIES_PER_HOUR": "100000",
    # A line per connection opened and closed would bury the progress on
    # the standard error both share; warnings and errors still show.
    "ARENA_LOG_LEVEL": "warning",
}
CLIENT_OPTIONS: dict[str, Any] = {"subprotocols": [MSGPACK_SUBPROTOCOL], "compression": None, "ping_interval": None}


@dataclass(frozen=True)
class Backend:
    """Where a scenario stores: ``url`` None is the memory store,
    ``sqlite://DIR`` the SQLite store in a new file of ``DIR`` each time."""

    name: str
    url: str | None

    def store_url(self) -> str | None:
        """The store of one run: a fresh SQLite file (one process per file,
        and each run starts empty), the same Redis."""
        if self.url is not None and self.url.startswith(SQLITE_SCHEME):
            return f"{self.url}/bench-{uuid4().hex[:8]}.db"
        return self.url

    def open(self) -> Store:
        return open_store(self.store_url(), namespace=f"bench-{uuid4().hex[:8]}")


@dataclass(frozen=True)
class Load:
    tasks: int
    ops: int


@dataclass(frozen=True)
class Result:
    """One run of a scenario: operations per second and, where each
    operation's round trip is timed, their 99th percentile in ms."""

    rate: float
    p99_ms: float | None = None
    server_us_per_action: float | None = None


Scenario = Callable[[Backend, Load], Awaitable[Result]]


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

    async def measure(backend: Backend, load: Load) -> Result:
        store = backend.open()
        try:
            await setup(store, load)
            return Result(await _run_tasks(store, load, work))
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


# ---------------------------------------------------------------- through the server


class ServerChild:
    """``arena serve`` in a child process, on ``redis_url`` or in memory."""

    def __init__(
        self, redis_url: str | None, command: list[str] | None = None, environment: dict[str, str] | None = None
    ) -> None:
        """``command``: another server than ``arena serve`` (one printing the
        same line once listening), with ``environment`` besides."""
        if command is None:
            command = [sys.executable, "-m", "server.cli", "serve", "--port", "0"]
            command += ["--memory"] if redis_url is None else ["--redis", redis_url]
        self.process = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, text=True,
            env={**os.environ, **SERVER_ENVIRONMENT, **(environment or {})},
        )
        self.url = listening_url(self.process, LISTENING, "arena serve")

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.process.pid)

    def rss_kib(self) -> int:
        return rss_kib(self.process.pid)

    def stop(self) -> None:
        self.process.terminate()
        wait_or_kill(self.process)


async def request(connection: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message``; its reply (frames without its id, like the
    snapshot after ``game_started``, are skipped)."""
    await connection.send(msgpack.packb(message))
    while True:
        reply: dict[str, Any] = msgpack.unpackb(await connection.recv())
        if reply.get("id") == message["id"]:
            return reply


async def hello(url: str, number: int) -> ClientConnection:
    connection = await connect(url, **CLIENT_OPTIONS)
    welcome = await request(connection, {"type": "hello", "id": 1, "name": f"bench-{number}"})
    assert welcome["type"] == "welcome", welcome
    return connection


async def _players(url: str, count: int, label: str | None = None) -> list[ClientConnection]:
    """``count`` connections that said hello, opened ``BATCH`` at a time,
    with a progress line under ``label`` if one is given (not while a
    scenario's run, which has its own line, connects in a moment)."""
    connections: list[ClientConnection] = []
    progress = ProgressLine(every=5.0)
    while len(connections) < count:
        batch = range(len(connections), min(count, len(connections) + BATCH))
        connections += await asyncio.gather(*(hello(url, number) for number in batch))
        if label is not None:
            progress(len(connections), count, f"players connected ({label})")
    return connections


async def start_game(connection: ClientConnection, deal: int) -> str:
    """A Klondike draw-3 game at ``deal`` or, if that deal is lost from the
    start (no move can ever help), at the next deal that is not."""
    while True:
        message = {"type": "new_game", "id": 2, "game": "klondike", "deal": deal, "options": {"draw": 3}}
        started = await request(connection, message)
        assert started["type"] == "game_started", started
        snapshot: dict[str, Any] = msgpack.unpackb(await connection.recv())
        assert snapshot["type"] == "snapshot", snapshot
        if snapshot["status"] == "playing":
            return str(started["game_id"])
        deal += 1_000_000


async def _play(connection: ClientConnection, game_id: str, moves: int, round_trips: list[float] | None = None) -> None:
    """``moves`` draws, each sent once the previous one is answered; each
    round trip in seconds is added to ``round_trips``."""
    for number in range(moves):
        sent = time.perf_counter()
        reply = await request(connection, {"type": "move", "id": 10 + number, "game_id": game_id, "move": "draw"})
        assert reply["type"] == "diff", reply
        if round_trips is not None:
            round_trips.append(time.perf_counter() - sent)


async def _start_and_play(connection: ClientConnection, deal: int, moves: int) -> None:
    await _play(connection, await start_game(connection, deal), moves)


async def close_all(connections: list[ClientConnection]) -> None:
    await asyncio.gather(*(connection.close() for connection in connections), return_exceptions=True)


async def server_actions(backend: Backend, load: Load) -> Result:
    """Actions per second through a fresh server process, and the p99 of
    their round trips (see the module docstring); connecting and starting
    games are not timed."""
    child = ServerChild(backend.store_url())
    try:
        players = await _players(child.url, load.tasks)
        games = await asyncio.gather(*(start_game(player, n + 1) for n, player in enumerate(players)))
        round_trips: list[float] = []
        start, cpu_before = time.perf_counter(), child.cpu_seconds()
        await asyncio.gather(*(_play(player, game, load.ops, round_trips) for player, game in zip(players, games)))
        rate = load.tasks * load.ops / (time.perf_counter() - start)
        us_per_action = (child.cpu_seconds() - cpu_before) / (load.tasks * load.ops) * 1e6
        await close_all(players)
        return Result(rate, statistics.quantiles(round_trips, n=100)[98] * 1000, us_per_action)
    finally:
        child.stop()


SCENARIOS: dict[str, Scenario] = {
    "append": store_scenario(_create_sessions, _append),
    "submit": store_scenario(_nothing, _submit),
    "server": server_actions,
}


# ---------------------------------------------------------------- memory per live game


@dataclass(frozen=True)
class Footprint:
    """Resident memory growth of a server process, per player, in KiB."""

    connection: float
    live_game: float


async def server_footprint(backend: Backend, games: int) -> Footprint:
    child = ServerChild(backend.store_url())
    try:
        warm = await _players(child.url, 10)
        await asyncio.gather(*(_start_and_play(player, 1, MOVES_PER_GAME) for player in warm))
        await close_all(warm)
        await asyncio.sleep(0.5)
        empty = child.rss_kib()
        players = await _players(child.url, games, f"memory/{backend.name}")
        await asyncio.sleep(0.5)
        connected = child.rss_kib()
        progress = ProgressLine(every=5.0)
        for start in range(0, games, BATCH):
            batch = list(enumerate(players))[start : start + BATCH]
            await asyncio.gather(*(_start_and_play(player, n + 1, MOVES_PER_GAME) for n, player in batch))
            progress(start + len(batch), games, f"games started and played (memory/{backend.name})")
        await asyncio.sleep(0.5)
        playing = child.rss_kib()
        await close_all(players)
        return Footprint((connected - empty) / games, (playing - connected) / games)
    finally:
        child.stop()


def game_state_bytes(games: int) -> float:
    """``tracemalloc`` bytes per room of a session replayed from a log of
    ``MOVES_PER_GAME`` moves: the game state a server process holds."""
    owner = tc.Owner(player_id="p_bench", name="bench")
    deals = [deal for deal in range(1, 2 * games + 100) if engine.new_game("klondike", deal, draw=3).status == PLAYING]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        rooms = []
        for number, deal in zip(range(games), deals):
            header = SessionHeader(game_id=f"g_{number:08d}", game="klondike", deal=deal,
                                   options={"draw": 3}, owner="p_bench", created_ms=DAY_MS)
            log = [Action("move", "draw", DAY_MS + n) for n in range(MOVES_PER_GAME)]
            rooms.append(Room(Session.replay(header, log), owner))
        used = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(rooms) == games
    return used / games


Figures = dict[tuple[str, str], list[Result]]


async def measure_all(backends: list[Backend], names: list[str], load: Load, runs: int) -> Figures:
    """Every run's figures, each also on a progress line of its own (kept
    on a terminal too): how far the runs spread around the medians of the
    table."""
    figures: Figures = {}
    progress = ProgressLine(keep=True)
    finished, total = 0, len(names) * runs * len(backends)
    for name in names:
        for run in range(runs):
            for backend in backends if run % 2 == 0 else reversed(backends):
                result = await SCENARIOS[name](backend, load)
                figures.setdefault((name, backend.name), []).append(result)
                p99 = "" if result.p99_ms is None else f", p99 {result.p99_ms:.1f} ms"
                if result.server_us_per_action is not None:
                    p99 += f", server CPU {result.server_us_per_action:.0f} us/action"
                rate = f"{result.rate:,.0f} ops/s{p99}"
                finished += 1
                progress(finished, total, f"runs, {name} {backend.name} run {run + 1}/{runs}: {rate}")
    return figures


def median_rate(figures: Figures, name: str, backend: str) -> float:
    return statistics.median(result.rate for result in figures[(name, backend)])


def verdict(figures: Figures) -> str:
    lines = []
    for backend, target in SERVER_TARGETS.items():
        ratio = median_rate(figures, "server", backend) / median_rate(figures, "server", "memory")
        met = "met" if ratio >= target else "NOT met"
        lines.append(f"through the server, {backend}/memory = {ratio:.3f} (target >= {target}): {met}")
    return "\n".join(lines)


async def measure_memory(backends: list[Backend], games: int) -> list[str]:
    lines = [f"memory per player, {games} players, each with a live game of {MOVES_PER_GAME} moves (server RSS growth):"]
    for backend in backends:
        footprint = await server_footprint(backend, games)
        lines.append(f"  {backend.name:<7} connection {footprint.connection:7.1f} KiB, live game {footprint.live_game:7.1f} KiB")
    lines.append(f"  game state alone (room + session + engine, tracemalloc): {game_state_bytes(games) / 1024:.1f} KiB per game")
    return lines


def table(figures: Figures, names: list[str], backends: list[Backend]) -> str:
    """Medians: ops/s of each back end, its ratio to memory, and the
    round trips' p99 where the scenario times them."""
    others = [backend.name for backend in backends if backend.name != "memory"]
    columns = ["memory ops/s", *(f"{name} ops/s" for name in others), *(f"{name}/memory" for name in others)]
    lines = [f"{'scenario':<10} " + " ".join(f"{column:>15}" for column in columns)]
    for name in names:
        memory = median_rate(figures, name, "memory")
        rates = [median_rate(figures, name, other) for other in others]
        cells = [f"{memory:>15,.0f}", *(f"{rate:>15,.0f}" for rate in rates)]
        cells += [f"{rate / memory:>15.3f}" for rate in rates]
        lines.append(f"{name:<10} " + " ".join(cells))
        p99s = {
            backend.name: [run.p99_ms for run in figures[(name, backend.name)] if run.p99_ms is not None]
            for backend in backends
        }
        if all(p99s.values()):
            lines.append(f"{'':<10} round-trip p99, median of runs: " + ", ".join(
                f"{backend} {statistics.median(values):.1f} ms" for backend, values in p99s.items()))
        cpus = {
            backend.name: [run.server_us_per_action for run in figures[(name, backend.name)]
                           if run.server_us_per_action is not None]
            for backend in backends
        }
        if all(cpus.values()):
            lines.append(f"{'':<10} server CPU per action, median of runs: " + ", ".join(
                f"{backend} {statistics.median(values):.0f} us" for backend, values in cpus.items()))
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


@contextmanager
def redis_under_test(url: str | None, cluster: bool) -> Iterator[tuple[str, RedisClusterServers | None]]:
    """The Redis a bench measures: ``url``, or else a throw-away
    ``redis-server``; with ``cluster``, a throw-away cluster of three
    masters beside it.  Whatever was started is removed at the end."""
    single = None if url else RedisServer()
    masters = RedisClusterServers() if cluster else None
    try:
        if single is not None:
            single.start()
        if masters is not None:
            masters.start()
        yield url or single.url, masters  # type: ignore[union-attr]
    finally:
        if single is not None:
            single.remove()
        if masters is not None:
            masters.remove()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", help="Redis URL (default: start a throw-away redis-server)")
    parser.add_argument("--cluster", action="store_true", help="also a throw-away Redis Cluster of three masters")
    parser.add_argument("--sqlite-dir", help="folder of the SQLite databases (default: a throw-away one)")
    parser.add_argument("--tasks", type=int, default=100, help="concurrent tasks (default 100)")
    parser.add_argument("--ops", type=int, default=200, help="operations per task and run (default 200)")
    parser.add_argument("--runs", type=int, default=5, help="runs per scenario and back end (default 5)")
    parser.add_argument("--scenario", action="append", choices=sorted(SCENARIOS), help="repeatable; default all")
    parser.add_argument("--games", type=int, default=500, help="players for memory per live game (0: skip)")
    args = parser.parse_args()
    names = args.scenario or list(SCENARIOS)
    load = Load(tasks=args.tasks, ops=args.ops)

    with redis_under_test(args.redis, args.cluster) as (url, cluster), tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.sqlite_dir or scratch).resolve()
        print(f"{redis_description(url)}; SQLite {sqlite3.sqlite_version} in {folder}; "
              f"{load.tasks} tasks x {load.ops} ops, {args.runs} runs", flush=True)
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start", flush=True)
        backends = [Backend("memory", None), Backend("sqlite", f"{SQLITE_SCHEME}{folder}"), Backend("redis", url)]
        if cluster is not None:
            backends.append(Backend("cluster", cluster.url))
        figures = asyncio.run(measure_all(backends, names, load, args.runs))
        print(table(figures, names, backends))
        if "server" in names:
            print(verdict(figures))
        if args.games:
            print("\n".join(asyncio.run(measure_memory(backends, args.games))))
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the end")

if __name__ == "__main__":
    main()
