"""How the server's cost grows with its players (``python bench/server.py
--scale``).

At each level of ``--levels`` (100, 1,000 and 5,000 players by default) a
fresh arena server gets that many players, each with its own Klondike
game, and each sends a move ("draw") ``--scale-rate`` times a second (one
by default) on a fixed schedule, whether or not its last move was
answered (an open loop: a server that falls behind sees its queue grow,
as it would with people).  After ``WARM_UP`` seconds the next
``--scale-seconds`` are measured:

- each move's round trip, p50 and p99 (a move never answered counts as
  endless);
- the actions per second achieved (replies received in the window);
- the server process's CPU time (``/proc``) as a share of one core, the
  share of the time it waited for a core while ready to run (starved by
  other work on the machine), and its CPU time per action, whose inverse is the capacity per core: the actions per
  second one fully used core would serve, extrapolated from the CPU per
  action at that level;
- the load generators' CPU, and how busy the whole machine was
  (``/proc/stat``), so that a reader sees when the generators or other
  work on the machine, not the server, were the limit;
- the server's garbage collections in the window, per generation (young,
  middle, full): how many, and the longest on the collector thread's CPU
  clock, timed with ``gc.callbacks`` (``bench/gc_pauses.py``'s server),
  and the objects they found unreachable: garbage in reference cycles,
  which only a collection frees;
- the full collections from the server's listening to the window,
  while the players arrived and the heap grew most: how many, and the
  longest;
- and the lag of the server's event loop and of the generators' in the
  window (``bench/loop_lag.py``), p99 and longest: a round trip's tail
  is the server's when its loop lags, and the bench's own when a
  generator's does.

The players live in ``--generators`` processes of their own (two by
default), so that the generator's event loop is not the server's rival
for one core and its own delays do not count as the server's; with
``--pin`` the server has a core to itself and the generators share the
others, as a server given its own core would run.  Send and
receipt times are ``time.perf_counter``, the system's monotonic clock,
comparable across processes.  The target: p99 under ``P99_TARGET_MS``
until the CPU is saturated.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import math
import multiprocessing
import os
import random
import sys
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Awaitable, TypeVar

import msgpack
from websockets.asyncio.client import ClientConnection, connect

from bench.figures import (
    Context,
    append_history,
    busy_share,
    cpu_seconds,
    machine_ticks,
    markdown_table,
    number,
    text_table,
    waited_seconds,
)
from bench.gc_pauses import ask, start_measured
from bench.loop_lag import LoopLag
from bench.rounds import Plan
from bench.server import CLIENT_OPTIONS, Progress, close_all, new_game, percentile, raise_open_files, stop

WARM_UP = 2.0
GRACE = 5.0
"""Seconds after its last move a generator waits for the replies still due."""
P99_TARGET_MS = 20.0
SATURATED = 0.9
"""The share of the machine's cores (or of the server's one) busy at which the CPU counts as saturated."""
CONNECT_SECONDS = 0.01
"""Rough seconds to connect one player and start its game, for the ETA."""
COLUMNS = (
    "players", "offered/s", "achieved/s", "p50", "p99", "unanswered", "server CPU", "server waited", "CPU per action",
    "capacity per core", "generators' CPU", "machine busy", "collections young/middle/full",
    "longest young/middle/full (CPU)", "garbage found young/middle/full", "full while arriving (longest CPU)",
    "server loop lag p99/max", "generators' loop lag p99/max",
    f"p99 ≤ {P99_TARGET_MS:g} ms",
)
GENERATIONS = ("0", "1", "2")
T = TypeVar("T")


# ---------------------------------------------------------------- in a generator process


async def player(url: str, number: int) -> tuple[ClientConnection, str]:
    connection = await connect(url, **CLIENT_OPTIONS)
    return connection, await new_game(connection, number)


async def play(
    players: list[tuple[ClientConnection, str]], rate: float, go: float, end: float
) -> tuple[list[tuple[float, float]], dict[str, Any]]:
    """Every player's moves from ``go`` until ``end``, ``rate`` a second on
    a fixed schedule (each player's phase drawn at random): each move's
    send time and round trip (``nan``: unanswered ``GRACE`` seconds after
    the last send), and this generator's loop lag (``bench.loop_lag``)
    from the end of the warm-up to its last send."""
    sent: dict[tuple[int, int], float] = {}
    taken: dict[tuple[int, int], float] = {}

    async def read(index: int, connection: ClientConnection) -> None:
        async for frame in connection:
            arrived = time.perf_counter()
            reply = msgpack.unpackb(frame)
            key = (index, reply.get("id"))
            if key in sent and reply.get("type") == "diff":
                taken[key] = arrived - sent[key]

    async def send(index: int, connection: ClientConnection, game_id: str) -> None:
        phase = random.Random(index).random() / rate
        sequence = 0
        while (due := go + phase + sequence / rate) < end:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            sequence += 1
            sent[(index, sequence)] = time.perf_counter()
            await connection.send(msgpack.packb({"type": "move", "id": sequence, "game_id": game_id, "move": "draw"}))

    readers = [asyncio.create_task(read(index, connection)) for index, (connection, _) in enumerate(players)]
    loop = asyncio.get_running_loop()
    lag = LoopLag()
    lag.attach(loop)
    loop.call_later(max(0.0, go + WARM_UP - time.perf_counter()), lag.report)
    await asyncio.gather(*(send(index, connection, game_id) for index, (connection, game_id) in enumerate(players)))
    lags = lag.report()
    lag.stop()
    deadline = time.perf_counter() + GRACE
    while len(taken) < len(sent) and time.perf_counter() < deadline:
        await asyncio.sleep(0.05)
    for reader in readers:
        reader.cancel()
    return [(at, taken.get(key, math.nan)) for key, at in sent.items()], lags


async def generate(orders: Connection, reports: Connection) -> None:
    """A generator's loop.  An order ``(url, first, count, rate, end)``
    connects players ``first`` to ``first + count - 1`` with a game each
    and reports ``"ready"``; the next order is the start time, and the
    report is every move's send time and round trip, and the loop's lag.
    ``None`` ends it.

    The generator's own collector is off while it plays: with the
    interpreter's thresholds, its full collections (2,500 connections
    each) stalled its loop for up to 240 ms, after which every move that
    had fallen due meanwhile reached the server at once, a queue of the
    bench's own making."""
    while (order := await asyncio.to_thread(orders.recv)) is not None:
        url, first, count, rate, seconds = order
        players: list[tuple[ClientConnection, str]] = []
        while len(players) < count:
            batch = range(first + len(players), first + min(count, len(players) + 100))
            players += await asyncio.gather(*(player(url, number) for number in batch))
        reports.send("ready")
        go = await asyncio.to_thread(orders.recv)
        gc.collect()
        gc.freeze()
        gc.disable()
        try:
            reports.send(await play(players, rate, go, go + WARM_UP + seconds))
        finally:
            gc.enable()
            gc.unfreeze()
        await close_all([connection for connection, _ in players])


def generator_process(orders: Connection, reports: Connection) -> None:
    asyncio.run(generate(orders, reports))


class Generator:
    """A load-generator process, ordered through a pipe."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        their_orders, self._orders = context.Pipe(duplex=False)
        self._reports, their_reports = context.Pipe(duplex=False)
        self.process = context.Process(target=generator_process, args=(their_orders, their_reports), daemon=True)
        self.process.start()

    def order(self, order: tuple[str, int, int, float, float] | float | None) -> None:
        self._orders.send(order)

    async def report(self) -> Any:
        return await asyncio.to_thread(self._reports.recv)

    def cpu_seconds(self) -> float:
        assert self.process.pid is not None
        return cpu_seconds(self.process.pid)

    def stop(self) -> None:
        self.order(None)
        self.process.join(30)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


# ---------------------------------------------------------------- cores


def pin(pid: int, cores: set[int]) -> None:
    """Keep every thread of process ``pid`` (and what it starts later) on ``cores``."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        os.sched_setaffinity(int(task.name), cores)


def cores_apart(generators: list[Generator]) -> int | None:
    """The core kept for the server, the generators pinned to the others
    (None with one core: nothing pinned).  Without it the scheduler runs a
    generator on the server's core while the server waits, and a
    generator's own delay in reading a reply counts in its round trip."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        return None
    for generator in generators:
        assert generator.process.pid is not None
        pin(generator.process.pid, set(cores[:-1]))
    return cores[-1]


# ---------------------------------------------------------------- the level


@dataclass(frozen=True)
class Readings:
    """CPU seconds of the server and the generators, the server's wait for
    a core, and the machine's ticks, at one moment."""

    server: float
    waited: float
    generators: float
    machine: tuple[int, int]

    @classmethod
    def take(cls, server_pid: int, generators: list[Generator]) -> Readings:
        return cls(
            cpu_seconds(server_pid), waited_seconds(server_pid), sum(generator.cpu_seconds() for generator in generators),
            machine_ticks(),
        )


def lag_cell(lags: list[dict[str, Any]]) -> str:
    """The worst of some loops' lags, p99/max."""
    return f"{max(lag['p99_ms'] for lag in lags):.1f}/{max(lag['max_ms'] for lag in lags):.1f} ms"


def milliseconds(value: float) -> str:
    """A round trip; an endless one (a move never answered) waited at least ``GRACE``."""
    return f"> {GRACE:g} s" if value == math.inf else f"{number(value)} ms"


@dataclass(frozen=True)
class Level:
    """One level's figures (see the module docstring)."""

    players: int
    offered: float
    achieved: float
    p50_ms: float
    p99_ms: float
    unanswered: int
    server_share: float
    server_waited: float
    server_us_per_action: float
    generators_share: float
    machine_busy: float
    collections: dict[str, Any]
    """``bench/gc_pauses.py``'s report of the window."""
    arriving: dict[str, Any]
    """The same report from the server's listening to the window: the
    players' arrival, when the heap grows most."""
    generators_lag: list[dict[str, Any]]
    """Each generator's loop lag in the window (``bench.loop_lag``)."""

    def verdict(self) -> str:
        if self.p99_ms <= P99_TARGET_MS:
            return "pass"
        return "saturated" if max(self.server_share, self.machine_busy) >= SATURATED else "FAIL"

    def cells(self) -> tuple[str, ...]:
        capacity = 1e6 / self.server_us_per_action if self.server_us_per_action > 0 else math.inf
        return (
            f"{self.players:,}", number(self.offered), number(self.achieved), milliseconds(self.p50_ms),
            milliseconds(self.p99_ms), f"{self.unanswered:,}", f"{self.server_share:.0%}", f"{self.server_waited:.0%}",
            f"{number(self.server_us_per_action)} µs",
            f"{number(capacity)}/s", f"{self.generators_share:.0%}", f"{self.machine_busy:.0%}",
            self._per_generation("counts", "{:,}"),
            self._per_generation("longest_cpu_ms", "{:.1f}") + " ms",
            self._per_generation("found", "{:,}"),
            self._full_while_arriving(),
            lag_cell([self.collections["loop_lag"]]),
            lag_cell(self.generators_lag),
            self.verdict(),
        )

    def _full_while_arriving(self) -> str:
        full = self.arriving["counts"].get("2", 0)
        return f"{full} ({self.arriving['longest_cpu_ms']['2']:.1f} ms)" if full else "0"

    def _per_generation(self, figure: str, form: str) -> str:
        """One of ``collections``' figures as young/middle/full (0 where none ran)."""
        return "/".join(form.format(self.collections[figure].get(g, 0)) for g in GENERATIONS)


async def ticking(work: Awaitable[T], planned: float, what: str, progress: Progress, already: float = 0.0) -> T:
    """``work``'s result, with ``progress`` told each second of the
    ``planned`` ones, ``already`` of them past when it starts."""
    task = asyncio.ensure_future(work)
    started = time.perf_counter() - already
    total = max(1, math.ceil(planned))
    while not task.done():
        await asyncio.wait([task], timeout=1.0)
        progress(min(total - 1, int(time.perf_counter() - started)), total, what)
    return task.result()


async def level(players: int, args: argparse.Namespace, generators: list[Generator], plan: Plan, server_core: int | None) -> Level:
    """One level's figures, on a fresh server (on ``server_core`` alone, if
    given): the last level's games and connections would otherwise weigh
    on this one's CPU per action."""
    arena, url = start_measured()
    if server_core is not None:
        pin(arena.pid, {server_core})
    try:
        ask(arena)  # start-up's collections (``gc.freeze``'s among them) are not the players'
        share = -(-players // len(generators))
        for index, generator in enumerate(generators):
            first = index * share
            generator.order((url, first, max(0, min(share, players - first)), args.scale_rate, args.scale_seconds))
        connecting = plan.part(players * CONNECT_SECONDS)
        await ticking(asyncio.gather(*(g.report() for g in generators)), players * CONNECT_SECONDS,
                      f"s connecting {players:,} players", connecting)
        go = time.perf_counter() + 0.5
        for generator in generators:
            generator.order(go)
        planned = 0.5 + WARM_UP + args.scale_seconds
        playing = plan.part(planned + 1)
        what = f"s of {players:,} players at {args.scale_rate:g} move/s"
        await ticking(asyncio.sleep(go + WARM_UP - time.perf_counter()), planned, what, playing)
        arriving = ask(arena)
        before = Readings.take(arena.pid, generators)
        await ticking(asyncio.sleep(args.scale_seconds), planned, what, playing, 0.5 + WARM_UP)
        after = Readings.take(arena.pid, generators)
        collections = ask(arena)
        reports = await asyncio.gather(*(g.report() for g in generators))
        moves: list[tuple[float, float]] = [move for report, _ in reports for move in report]
        playing(1, 1, f"{players:,} players done")
    finally:
        stop(arena)
    start = go + WARM_UP
    end = start + args.scale_seconds
    timed = [math.inf if math.isnan(taken) else taken for sent, taken in moves if start <= sent < end]
    arrived = sum(1 for sent, taken in moves if not math.isnan(taken) and start <= sent + taken < end)
    server = after.server - before.server
    return Level(
        players=players,
        offered=players * args.scale_rate,
        achieved=arrived / args.scale_seconds,
        p50_ms=percentile(timed, 0.5) * 1000,
        p99_ms=percentile(timed, 0.99) * 1000,
        unanswered=sum(1 for taken in timed if taken == math.inf),
        server_share=server / args.scale_seconds,
        server_waited=(after.waited - before.waited) / args.scale_seconds,
        server_us_per_action=server / arrived * 1e6 if arrived else math.inf,
        generators_share=(after.generators - before.generators) / args.scale_seconds,
        machine_busy=busy_share(before.machine, after.machine),
        collections=collections,
        arriving=arriving,
        generators_lag=[lags for _, lags in reports],
    )


async def scale_run(args: argparse.Namespace) -> list[Level]:
    plan = Plan(sum(players * CONNECT_SECONDS + 1.5 + WARM_UP + args.scale_seconds + 1 for players in args.levels))
    generators = [Generator() for _ in range(args.generators)]
    server_core = cores_apart(generators) if args.pin else None
    if args.pin:
        print("one core: nothing pinned" if server_core is None else f"the server pinned to core {server_core}, the generators to the others")
    try:
        return [await level(players, args, generators, plan, server_core) for players in args.levels]
    finally:
        plan.finish()
        for generator in generators:
            generator.stop()


def scale_main(args: argparse.Namespace) -> None:
    raise_open_files(2 * max(args.levels) + 1000)
    context = Context.now(sys.argv[1:])
    description = (
        f"players at {args.scale_rate:g} move/s each, open loop, {args.scale_seconds:g} s measured per level after"
        f" {WARM_UP:g} s of warm-up, from {args.generators} generator processes; CPU shares are of one core,"
        " machine busy of all; capacity per core is extrapolated from the server's CPU per action at that level."
        + (" The server on a core of its own, the generators on the others (--pin)." if args.pin else "")
    )
    print(f"commit {context.commit}, load average {context.load_start:.1f} at the start; {description}")
    levels = asyncio.run(scale_run(args))
    context.finish()
    rows = [level.cells() for level in levels]
    print()
    print(text_table(COLUMNS, rows))
    print(f"commit {context.commit}, {context.load()}")
    if args.history.lower() != "none":
        append_history(Path(args.history), context, description, [markdown_table(COLUMNS, rows)])
        print(f"appended to {args.history}")
