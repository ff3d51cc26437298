"""Memory per idle connection after ``hello``: the arena against a bare
websockets server, same run, and what each layer of the arena keeps.

Each round starts a fresh child process of each kind, alternating which
goes first, and opens ``--connections`` WebSocket connections to it from
this process (MessagePack, no compression, no client keepalive), each
sending ``hello`` and waiting for its answer.  The child's resident set
(``VmRSS``) is read once a warm-up of ``WARM_UP`` connections has come and
gone and again with every connection open and idle; the growth over the
count is the figure.  The arena runs with its default settings (keepalive
pings included) except the limits per address, since every connection
comes from 127.0.0.1; each connection says hello with the token of a
player the child made before listening, so the figure is what a
connection keeps, not a new player's record in the memory store (which a
deployment keeps in Redis).  The bare server is websockets' ``serve``
with the arena's websockets options (``max_size``, pings, ``write_limit``,
subprotocols) answering each frame with itself.

``--trace`` adds a round of each kind with ``tracemalloc`` on in the
child: the bytes still allocated per connection, grouped by the layer
that asked for them (the innermost frame in the project or in
websockets; a standard library file when neither is on the stack, such
as the event loop's transports), and the asyncio tasks per connection
by coroutine.

    nice -n 10 python bench/idle_memory.py [--connections 5000] [--rounds 3] [--trace] [--trace-connections 1000]

``idle_memory`` is the whole measurement, for another bench to call.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import sysconfig
import tracemalloc
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if not __package__:
    # Run as a file, Python puts bench/ first on sys.path, where
    # bench/server.py would shadow the ``server`` package.
    sys.path.pop(0)
    sys.path.insert(0, str(ROOT))

import msgpack  # noqa: E402
import websockets  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.asyncio.server import ServerConnection, serve  # noqa: E402
from websockets.typing import Subprotocol  # noqa: E402

from protocol import MSGPACK_SUBPROTOCOL  # noqa: E402
from server.runtime.progress import ProgressLine  # noqa: E402
from bench.figures import listening_url, rss_kib, wait_or_kill  # noqa: E402

KINDS = ("arena", "bare")
WARM_UP = 50
"""Connections opened and closed before the first reading: the code paths
a connection takes are then imported and their caches filled, without
leaving freed memory for the measured connections to reuse."""
BATCH = 100
"""Connections opening at once (``TRACED_BATCH`` with a traced child, which
could otherwise not answer them all within websockets' ``open_timeout``)."""
TRACED_BATCH = 20
TRACE_FRAMES = 24
ARENA_SETTINGS: dict[str, Any] = {
    "host": "127.0.0.1",
    "port": 0,
    "redis_url": None,
    "connections_per_address": 1_000_000,
    "connection_burst": 1_000_000,
    "tcp_connection_burst": 1_000_000,
    "identities_per_hour": 1_000_000,
    "log_level": "warning",
}
"""Every limit per address lifted (all the clients are 127.0.0.1), the rest
as a deployment has it."""
CLIENT_OPTIONS: dict[str, Any] = {"subprotocols": [MSGPACK_SUBPROTOCOL], "compression": None, "ping_interval": None, "open_timeout": 60}
LISTENING = "listening "


def token(number: int) -> str:
    return f"idle-memory-{number:08d}"


# ---------------------------------------------------------------- children


class Layers:
    """Who asked for an allocation: the innermost frame in the project (but
    this bench, at the root of every stack) or in websockets, else the
    innermost frame's file (relative to the standard library).  Cached by file, and by traceback (tracemalloc
    shares one traceback among the traces it allocated from), since a
    snapshot holds every allocation the process made, start-up included."""

    def __init__(self) -> None:
        self._roots = [(str(ROOT / "bench") + os.sep, False)]
        self._roots += [(str(ROOT) + os.sep, True), (str(Path(websockets.__file__).parent.parent) + os.sep, True)]
        self._roots.append((sysconfig.get_paths()["stdlib"] + os.sep, False))
        self._files: dict[str, tuple[str, bool]] = {}
        self._tracebacks: dict[int, str] = {}

    def file(self, filename: str) -> tuple[str, bool]:
        """The file's name to report, and whether it names a layer."""
        known = self._files.get(filename)
        if known is None:
            known = next(((filename.removeprefix(root), owned) for root, owned in self._roots if filename.startswith(root)), (filename, False))
            self._files[filename] = known
        return known

    def of(self, frames: tuple[tuple[str, int], ...]) -> str:
        name = self._tracebacks.get(id(frames))
        if name is None:
            names = [self.file(filename) for filename, _ in frames]
            name = next((name for name, owned in names if owned), names[0][0] if names else "?")
            self._tracebacks[id(frames)] = name
        return name


def reading() -> dict[str, Any]:
    """What the child holds now: resident set, tasks by coroutine, and
    (if tracing) bytes by layer."""
    gc.collect()
    tasks = Counter(task.get_coro().__qualname__ for task in asyncio.all_tasks())  # type: ignore[union-attr]
    layers: Counter[str] = Counter()
    if tracemalloc.is_tracing():
        snapshot, named = tracemalloc.take_snapshot(), Layers()
        for _, size, frames, _ in snapshot.traces._traces:
            layers[named.of(frames)] += size
    return {"rss_kib": rss_kib(os.getpid()), "tasks": dict(tasks), "layers": dict(layers)}


async def answer_commands(url: str, trace: bool) -> None:
    """Say the child listens at ``url``, then print a ``reading`` as JSON
    for each line read on stdin, until EOF.  Tracing starts here, once
    listening: start-up is the same for every connection count, and
    tracing it took minutes on a loaded machine."""
    if trace:
        tracemalloc.start(TRACE_FRAMES)
    print(LISTENING + url, flush=True)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while await reader.readline():
        print(json.dumps(reading()), flush=True)


async def arena_child(players: int, trace: bool) -> None:
    from server.games.lobby import hash_token
    from server.model.records import PlayerRecord
    from server.runtime.collector import tune_collector
    from server.runtime.settings import Settings
    from server.transport.app import ArenaServer

    settings = Settings.from_env(**ARENA_SETTINGS)
    server = ArenaServer(settings)
    await server.start()
    heap_watch = tune_collector(settings, lambda: len(server.hub.peers) + len(server.hub.rooms))
    for number in range(players):
        record = PlayerRecord(f"p_idle{number:08d}", f"idle-{number}", hash_token(token(number)), 0, address="127.0.0.1")
        await server.store.create_player(record)
    await answer_commands(server.url, trace)
    if heap_watch is not None:
        heap_watch.cancel()
    await server.shutdown()


async def bare_child(trace: bool) -> None:
    from server.runtime.settings import Settings

    settings = Settings()

    async def handler(connection: ServerConnection) -> None:
        async for frame in connection:
            await connection.send(frame)

    async with serve(
        handler,
        "127.0.0.1",
        0,
        subprotocols=[Subprotocol(MSGPACK_SUBPROTOCOL)],
        compression=None,
        max_size=settings.max_frame_bytes,
        ping_interval=settings.ping_interval,
        ping_timeout=settings.ping_timeout,
        close_timeout=settings.close_timeout,
        write_limit=settings.write_buffer_bytes,
    ) as server:
        port = server.sockets[0].getsockname()[1]
        await answer_commands(f"ws://127.0.0.1:{port}/ws", trace)


# ---------------------------------------------------------------- this process


class Child:
    """A child server of ``kind`` and its readings."""

    def __init__(self, kind: str, players: int, trace: bool) -> None:
        command = [sys.executable, str(Path(__file__).resolve()), "--child", kind, "--connections", str(players)]
        command += ["--trace"] if trace else []
        environment = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=environment)
        self.url = listening_url(self.process, LISTENING, f"{kind} server")

    def read(self) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("read\n")
        self.process.stdin.flush()
        result: dict[str, Any] = json.loads(self.process.stdout.readline())
        return result

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        wait_or_kill(self.process)


async def say_hello(url: str, number: int) -> ClientConnection:
    connection = await connect(url, **CLIENT_OPTIONS)
    await connection.send(msgpack.packb({"type": "hello", "id": 1, "token": token(number)}))
    answer = msgpack.unpackb(await connection.recv())
    if answer.get("type") == "error":
        raise RuntimeError(f"hello refused: {answer}")
    return connection


async def open_connections(url: str, count: int, label: str, at_once: int) -> list[ClientConnection]:
    connections: list[ClientConnection] = []
    progress = ProgressLine(every=5.0)
    while len(connections) < count:
        batch = range(len(connections), min(count, len(connections) + at_once))
        connections += await asyncio.gather(*(say_hello(url, number) for number in batch))
        progress(len(connections), count, label)
    return connections


async def close_all(connections: list[ClientConnection]) -> None:
    await asyncio.gather(*(connection.close() for connection in connections), return_exceptions=True)


def growth(before: dict[str, Any], after: dict[str, Any], count: int) -> dict[str, float]:
    """Per connection, what grew from ``before`` to ``after``."""
    return {key: (after.get(key, 0) - before.get(key, 0)) / count for key in after.keys() | before.keys()}


@dataclass
class Round:
    """One child's growth per connection: KiB of RSS, tasks and (traced) bytes by layer."""

    rss_kib: float
    tasks: dict[str, float]
    layers: dict[str, float] = field(default_factory=dict)


async def measure(kind: str, count: int, trace: bool) -> Round:
    child = Child(kind, count, trace)
    at_once = TRACED_BATCH if trace else BATCH
    try:
        await close_all(await open_connections(child.url, WARM_UP, f"{kind} warm-up", at_once))
        await asyncio.sleep(0.5)
        before = child.read()
        connections = await open_connections(child.url, count, f"{kind} connections{' (traced)' if trace else ''}", at_once)
        await asyncio.sleep(0.5)
        after = child.read()
        await close_all(connections)
    finally:
        child.stop()
    return Round(
        (after["rss_kib"] - before["rss_kib"]) / count,
        growth(before["tasks"], after["tasks"], count),
        growth(before["layers"], after["layers"], count),
    )


@dataclass
class IdleFigures:
    connections: int
    rounds: dict[str, list[Round]]
    traced: dict[str, Round]

    def median(self, kind: str) -> float:
        return statistics.median(round.rss_kib for round in self.rounds[kind])

    @property
    def ratio(self) -> float:
        return self.median("arena") / self.median("bare")


async def idle_memory(connections: int, rounds: int, trace_connections: int | None) -> IdleFigures:
    """Every round's figures, and the traced ones if ``trace_connections``."""
    figures = IdleFigures(connections, {kind: [] for kind in KINDS}, {})
    for number in range(rounds):
        for kind in KINDS if number % 2 == 0 else reversed(KINDS):
            figures.rounds[kind].append(await measure(kind, connections, trace=False))
    if trace_connections:
        for kind in KINDS:
            figures.traced[kind] = await measure(kind, trace_connections, trace=True)
    return figures


def report(figures: IdleFigures, target: float = 1.1) -> list[str]:
    lines = [f"resident memory per idle connection after hello, {figures.connections:,} connections:"]
    for kind in KINDS:
        each = ", ".join(f"{round.rss_kib:.1f}" for round in figures.rounds[kind])
        lines.append(f"  {kind:<5} median {figures.median(kind):5.1f} KiB (rounds: {each})")
    met = "met" if figures.ratio <= target else "NOT met"
    lines.append(f"  arena/bare = {figures.ratio:.2f} (target <= {target}): {met}")
    for kind, traced in figures.traced.items():
        total = sum(traced.layers.values())
        lines.append(f"{kind}: tracemalloc bytes per connection by layer (total {total:,.0f} B):")
        for name, size in sorted(traced.layers.items(), key=lambda item: -item[1]):
            if abs(size) >= 8:
                lines.append(f"  {size:8,.0f}  {name}")
        tasks = ", ".join(f"{name} {count:.2f}" for name, count in traced.tasks.items() if abs(count) >= 0.01)
        lines.append(f"  tasks per connection: {tasks or 'none'}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connections", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--trace", action="store_true", help="a traced round of each kind: bytes by layer, tasks")
    parser.add_argument("--trace-connections", type=int, default=1000)
    parser.add_argument("--child", choices=KINDS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "arena":
        asyncio.run(arena_child(args.connections, args.trace))
        return
    if args.child == "bare":
        asyncio.run(bare_child(args.trace))
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < args.connections + 100:
        parser.error(f"open files are limited to {hard}: fewer --connections")
    print(f"load average at start: {os.getloadavg()}", flush=True)
    figures = asyncio.run(idle_memory(args.connections, args.rounds, args.trace_connections if args.trace else None))
    print("\n".join(report(figures)))
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
