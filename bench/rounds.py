"""The default run of ``bench/server.py``: the arena server and a bare
websockets server measured in alternating rounds (see that module's
docstring for the figures and their targets), reported as medians over
the rounds with their spread and the median of the per-round ratios, and
appended to the history of runs.

Each round measures both servers one after the other, the first of the
two alternating from round to round, so that neither is always the one
measured while the machine is busier.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import msgpack
from websockets.asyncio.client import ClientConnection, connect

from bench.figures import (
    COLUMNS,
    Context,
    Figure,
    Target,
    append_history,
    cpu_seconds,
    markdown_table,
    rss_kib,
    text_table,
    waited_seconds,
)
from bench.server import (
    CLIENT_OPTIONS,
    GO,
    Exchange,
    Progress,
    arena_players,
    close_all,
    echo_exchange,
    new_game,
    open_many,
    paced_round_trips,
    percentile,
    raise_open_files,
    request,
    start_arena,
    start_baseline,
    stop,
)
from server.runtime.progress import ProgressLine

ROUND_TRIP_P50 = Target(1.3)
ROUND_TRIP_P99 = Target(1.6)
CAPACITY = Target(0.5, at_most=False)
CPU_PER_ACTION_US = Target(80.0, on_ratio=False)
FAN_OUT = Target(1.1)
"""The fan-out should cost what ``websockets.broadcast`` costs: about 1.0×, passed at 1.1×."""
IDLE_MEMORY = Target(1.1)
SETUP_SECONDS = {"player": 0.02, "spectator": 0.005, "idle": 0.006, "server": 1.5, "move": 0.3, "block": 1.5}
"""Rough seconds each step of setting up takes on a loaded 2-core
machine, and a timed block beyond its measured seconds (its warm-up and
last replies): only for the ETA of the whole run."""


@dataclass(frozen=True)
class Side:
    """One server of a pair: its exchange, its clients and its process."""

    name: str
    exchange: Exchange
    connections: list[ClientConnection]
    process: subprocess.Popen[str]


@dataclass
class Rounds:
    """Each round's figures of one side, by figure."""

    values: dict[str, list[float]] = field(default_factory=dict)

    def add(self, figure: str, value: float) -> None:
        self.values.setdefault(figure, []).append(value)

    def __getitem__(self, figure: str) -> list[float]:
        return self.values.get(figure, [])


class Plan:
    """The whole run's progress on one line, in planned seconds, so that
    the ETA counts every phase still to come; each phase reports its own
    ``(done, total)``, which is mapped onto its share."""

    def __init__(self, total: float) -> None:
        self.total = max(2, round(total))
        self.offset = 0.0
        self.line = ProgressLine(every=5.0)

    def part(self, seconds: float) -> Progress:
        start = self.offset
        self.offset += seconds

        def report(done: int, total: int, what: str) -> None:
            planned = round(start + seconds * done / max(total, 1))
            self.line(min(self.total - 1, planned), self.total, what)

        return report

    def finish(self) -> None:
        self.line(self.total, self.total, "s planned: done")


def planned_seconds(args: argparse.Namespace) -> float:
    setup = SETUP_SECONDS
    return (
        2 * setup["server"] + args.players * (setup["player"] + setup["spectator"])
        + args.rounds * 2 * (args.seconds + setup["block"]) + args.closed_rounds * 2 * (args.closed_seconds + setup["block"])
        + (2 * args.spectators * setup["spectator"] + 2 * args.moves * setup["move"] if args.moves else 0)
        + args.idle_rounds * 2 * (setup["server"] + args.idle * setup["idle"] if args.idle else 0)
    )


# ---------------------------------------------------------------- (a) and (b)


async def round_trips(sides: tuple[Side, Side], args: argparse.Namespace, plan: Plan) -> dict[str, Rounds]:
    """Per round and side, the p50 and p99 of the paced round trips, in ms,
    and the share of the block the server waited for a core, in %."""
    rounds = {side.name: Rounds() for side in sides}
    for number in range(args.rounds):
        for side in sides if number % 2 == 0 else reversed(sides):
            label = f"round-trip round {number + 1}/{args.rounds}, {side.name}"
            began, waited = time.perf_counter(), waited_seconds(side.process.pid)
            times = await paced_round_trips(
                side.connections, side.exchange, args.seconds, args.rate, label, progress=plan.part(args.seconds + SETUP_SECONDS["block"])
            )
            rounds[side.name].add("p50", percentile(times, 0.5) * 1000)
            rounds[side.name].add("p99", percentile(times, 0.99) * 1000)
            rounds[side.name].add("waited", (waited_seconds(side.process.pid) - waited) / (time.perf_counter() - began) * 100)
    return rounds


async def closed_loops(sides: tuple[Side, Side], args: argparse.Namespace, plan: Plan) -> dict[str, Rounds]:
    """Per round and side: round trips per second with every player
    sending as soon as answered, and the server's and this process's CPU
    time per round trip in µs, from the end of the warm-up on; and the
    share of that time the server waited for a core (starved by the
    machine's other work), in %."""
    rounds = {side.name: Rounds() for side in sides}
    for number in range(args.closed_rounds):
        for side in sides if number % 2 == 0 else reversed(sides):
            marks: list[float] = []

            def at_warm(pid: int = side.process.pid) -> None:
                marks.extend((time.perf_counter(), cpu_seconds(pid), time.process_time(), waited_seconds(pid)))

            label = f"closed-loop round {number + 1}/{args.closed_rounds}, {side.name}"
            times = await paced_round_trips(
                side.connections, side.exchange, args.closed_seconds, math.inf, label,
                at_warm=at_warm, progress=plan.part(args.closed_seconds + SETUP_SECONDS["block"]),
            )
            elapsed, server, client = time.perf_counter() - marks[0], cpu_seconds(side.process.pid) - marks[1], time.process_time() - marks[2]
            rounds[side.name].add("rate", len(times) / elapsed)
            rounds[side.name].add("server", server / len(times) * 1e6)
            rounds[side.name].add("client", client / len(times) * 1e6)
            rounds[side.name].add("waited", (waited_seconds(side.process.pid) - marks[3]) / elapsed * 100)
    return rounds


# ---------------------------------------------------------------- (c)


async def _arrivals(spectators: list[ClientConnection]) -> list[float]:
    async def arrival(connection: ClientConnection) -> float:
        await connection.recv()
        return time.perf_counter()

    return list(await asyncio.gather(*(arrival(connection) for connection in spectators)))


def broadcast_timer(url: str) -> tuple[float, float]:
    """The arena's broadcast timer on ``/metrics``: its sum (seconds) and count."""
    address = url.replace("ws://", "http://").removesuffix("/ws") + "/metrics"
    with urllib.request.urlopen(address, timeout=10) as response:
        lines = response.read().decode().splitlines()
    values = dict(line.split()[:2] for line in lines if line.startswith("arena_broadcast_seconds_"))
    return float(values["arena_broadcast_seconds_sum"]), float(values["arena_broadcast_seconds_count"])


async def arena_audience(url: str, spectators: int, progress: Progress) -> tuple[ClientConnection, str, list[ClientConnection], int]:
    """A player with a game, ``spectators`` watching it, and the diff size."""
    player = await connect(url, **CLIENT_OPTIONS)
    game_id = await new_game(player, 999_000)
    watchers = await open_many(url, spectators, "arena spectators", progress)
    for start in range(0, spectators, 200):
        await asyncio.gather(*(request(w, {"type": "watch", "id": 1, "game_id": game_id}) for w in watchers[start : start + 200]))
    waiting = asyncio.create_task(_arrivals(watchers))
    await request(player, {"type": "move", "id": 1, "game_id": game_id, "move": "draw"})
    await waiting
    shared = msgpack.packb({**(await request(player, {"type": "move", "id": 2, "game_id": game_id, "move": "draw"})), "id": None})
    await asyncio.gather(*(w.recv() for w in watchers))
    return player, game_id, watchers, len(shared) - len(msgpack.packb({"id": None})) + 1


async def fan_outs(args: argparse.Namespace, arena_url: str, plan: Plan) -> dict[str, Rounds]:
    """Alternate one arena move and one baseline broadcast, ``args.moves``
    times: per move, the last spectator's delay and the server side, in ms."""
    setup = plan.part(2 * args.spectators * SETUP_SECONDS["spectator"])
    player, game_id, watchers, diff_size = await arena_audience(arena_url, args.spectators, setup)
    baseline, baseline_url = start_baseline(diff_size)
    rounds = {"arena": Rounds(), "echo": Rounds()}
    try:
        trigger = await connect(baseline_url, **CLIENT_OPTIONS)
        listeners = await open_many(baseline_url, args.spectators, f"broadcast spectators ({diff_size}-byte frame)", setup)
        await asyncio.sleep(0.2)
        progress = plan.part(2 * args.moves * SETUP_SECONDS["move"])
        for number in range(args.moves):
            before = broadcast_timer(arena_url)
            waiting = asyncio.create_task(_arrivals(watchers))
            await asyncio.sleep(0.05)
            sent = time.perf_counter()
            await request(player, {"type": "move", "id": 10 + number, "game_id": game_id, "move": "draw"})
            rounds["arena"].add("last", (max(await waiting) - sent) * 1000)
            after = broadcast_timer(arena_url)
            rounds["arena"].add("server", (after[0] - before[0]) / max(1.0, after[1] - before[1]) * 1000)
            waiting = asyncio.create_task(_arrivals(listeners))
            await asyncio.sleep(0.05)
            sent = time.perf_counter()
            await trigger.send(GO)
            rounds["echo"].add("server", float(await trigger.recv()) * 1000)
            rounds["echo"].add("last", (max(await waiting) - sent) * 1000)
            progress(number + 1, args.moves, f"fan-out moves, last spectator after {rounds['arena']['last'][-1]:.1f} ms"
                     f" (arena), {rounds['echo']['last'][-1]:.1f} ms (broadcast)")
        await close_all([player, trigger, *watchers, *listeners])
    finally:
        stop(baseline)
    return rounds


# ---------------------------------------------------------------- (d)


async def idle_growth(url: str, pid: int, count: int, greet: Exchange, progress: Progress) -> float:
    """KiB of resident memory a server grows by per connection that
    ``greet`` has exchanged a frame on and that then stays idle (the
    server warmed by ten such connections first)."""
    warm = await open_many(url, 10, "warm-up", lambda *_: None)
    await asyncio.gather(*(greet(connection, number) for number, connection in enumerate(warm)))
    await close_all(warm)
    await asyncio.sleep(0.5)
    before = rss_kib(pid)
    connections = await open_many(url, count, "idle connections", progress)
    for start in range(0, count, 100):
        await asyncio.gather(*(greet(connection, start + n) for n, connection in enumerate(connections[start : start + 100])))
    await asyncio.sleep(0.5)
    grown = (rss_kib(pid) - before) / count
    await close_all(connections)
    return grown


async def hello(connection: ClientConnection, number: int) -> None:
    welcome = await request(connection, {"type": "hello", "id": 1, "name": f"idle-{number}"})
    assert welcome["type"] == "welcome", welcome


async def idle_memory(args: argparse.Namespace, plan: Plan) -> dict[str, Rounds]:
    """Per round, KiB per idle connection on a fresh arena server, then on a
    fresh baseline whose echo is the size of the arena's welcome."""
    rounds = {"arena": Rounds(), "echo": Rounds()}
    welcome_size = 0  # the arena goes first in every round and measures it
    for number in range(args.idle_rounds):
        for name in ("arena", "echo"):
            progress = plan.part(SETUP_SECONDS["server"] + args.idle * SETUP_SECONDS["idle"])
            process, url = start_arena() if name == "arena" else start_baseline(welcome_size)
            try:
                if name == "arena":
                    probe = await connect(url, **CLIENT_OPTIONS)
                    welcome_size = len(msgpack.packb(await request(probe, {"type": "hello", "id": 1, "name": "probe"})))
                    await probe.close()
                greet = hello if name == "arena" else echo_exchange
                rounds[name].add("kib", await idle_growth(url, process.pid, args.idle, greet, progress))
            finally:
                stop(process)
            progress(1, 1, f"memory round {number + 1}/{args.idle_rounds}, {name}: {rounds[name]['kib'][-1]:.1f} KiB per connection")
    return rounds


# ---------------------------------------------------------------- the run


def figures(args: argparse.Namespace, measured: dict[str, dict[str, Rounds]]) -> list[Figure]:
    """The report's figures, in order, from whatever phases ran."""
    found: list[Figure] = []

    def add(phase: str, figure: str, name: str, unit: str, target: Target | None = None) -> None:
        if phase in measured:
            sides = measured[phase]
            found.append(Figure(name, unit, sides["arena"][figure], sides["echo"][figure], target))

    add("round trip", "p50", "move round trip p50", "ms", ROUND_TRIP_P50)
    add("round trip", "p99", "move round trip p99", "ms", ROUND_TRIP_P99)
    add("round trip", "waited", "server waited for a core, paced", "%")
    add("closed loop", "rate", f"closed loop, {args.players} players", "round trips/s", CAPACITY)
    add("closed loop", "server", "server CPU per round trip", "µs", CPU_PER_ACTION_US)
    if "closed loop" in measured:
        cores = {side: [1e6 / us for us in rounds["server"]] for side, rounds in measured["closed loop"].items()}
        found.append(Figure("capacity per core (1 / server CPU)", "round trips/s", cores["arena"], cores["echo"]))
    add("closed loop", "client", "client CPU per round trip (this process)", "µs")
    add("closed loop", "waited", "server waited for a core, closed loop", "%")
    add("fan-out", "last", f"fan-out to the last of {args.spectators}", "ms", FAN_OUT)
    add("fan-out", "server", "fan-out, server side", "ms", FAN_OUT)
    add("idle memory", "kib", f"memory per idle connection ({args.idle})", "KiB", IDLE_MEMORY)
    return found


def description(args: argparse.Namespace) -> str:
    parts = [f"{args.players} players at ~{args.rate:g} moves/s, {args.rounds} rounds of {args.seconds:g} s per server"]
    if args.closed_rounds:
        parts.append(f"closed loop {args.closed_rounds} rounds of {args.closed_seconds:g} s")
    if args.moves:
        parts.append(f"fan-out {args.moves} moves to {args.spectators} spectators")
    if args.idle:
        parts.append(f"memory {args.idle_rounds} rounds of {args.idle} idle connections")
    return "; ".join(parts) + ". Baseline: a bare websockets server (echo, broadcast), same run."


async def rounds_main(args: argparse.Namespace) -> None:
    raise_open_files(4 * max(args.players, args.spectators, args.idle) + 1000)
    context = Context.now(sys.argv[1:])
    print(f"commit {context.commit}, load average {context.load_start:.1f} on the 1-minute average at the start")
    print(description(args))
    plan = Plan(planned_seconds(args))
    measured: dict[str, dict[str, Rounds]] = {}
    arena, url = start_arena()
    try:
        move, players, reply_size = await arena_players(url, args.players, plan.part(args.players * SETUP_SECONDS["player"]))
        baseline, baseline_url = start_baseline(reply_size)
        try:
            echoes = await open_many(baseline_url, args.players, f"echo clients ({reply_size}-byte replies)",
                                     plan.part(args.players * SETUP_SECONDS["spectator"]))
            sides = Side("arena", move, players, arena), Side("echo", echo_exchange, echoes, baseline)
            measured["round trip"] = await round_trips(sides, args, plan)
            if args.closed_rounds:
                measured["closed loop"] = await closed_loops(sides, args, plan)
            await close_all(players + echoes)
        finally:
            stop(baseline)
        if args.moves:
            measured["fan-out"] = await fan_outs(args, url, plan)
    finally:
        stop(arena)
    if args.idle:
        measured["idle memory"] = await idle_memory(args, plan)
    plan.finish()
    context.finish()
    report = [figure.cells() for figure in figures(args, measured)]
    print()
    print(text_table(COLUMNS, report))
    if "closed loop" in measured:
        print("capacity per core: actions per second of one fully used core, 1 / the server's CPU per action in the closed loop")
    print(f"commit {context.commit}, {context.load()}")
    if args.history.lower() != "none":
        append_history(Path(args.history), context, description(args), [markdown_table(COLUMNS, report)])
        print(f"appended to {args.history}")
