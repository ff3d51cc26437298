"""Garbage-collector pauses of the arena server as the games it holds grow
(``python bench/server.py --gc``).

The server runs in a child process with ``gc.callbacks`` timing every
collection, per generation.  The bench fills its memory store with
``--held`` games (1,000 and 20,000 by default), each with ``--log`` draws
in its log, from ``--fillers`` connections that start a game, play it,
and stop watching it, so each game stays in the store and the room of
the last one stays held.  Then the fillers keep playing their last games
for ``--seconds`` (about ``--rate`` draws a second each), and the round
trip is timed.  Once listening, after the fill and after the play the
child reports (on ``SIGUSR2``) the longest pause per generation, the
collections' total time, the objects they found unreachable (garbage
only a collection frees) and the tracked objects (those frozen by
``gc.freeze`` apart).  The pauses are timed on the thread's CPU clock
beside the wall clock: on a shared machine the wall figure also counts
the time the server waited for a core.

Each size is measured twice, one server after the other: as it runs
(``server``) and, as the same run's baseline, the same server with the
interpreter's collector settings (``ARENA_GC_TUNING=off``: no freeze, the
default thresholds).  The target: the longest pause under 10 ms, the
one collection at start-up (``gc.freeze``'s, once listening) printed
apart.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection

from bench.loop_lag import LoopLag
from bench.server import ARENA_ENVIRONMENT, _start, new_game, open_many, paced_round_trips, percentile, request, stop
from server.commands import LoopFactory
from server.runtime.progress import ProgressLine
from server.runtime.settings import Settings

PAUSE_TARGET_MS = 10.0
SERVE = "from bench.gc_pauses import serve_measured; serve_measured()"
ROOT = str(Path(__file__).resolve().parent.parent)
CONDITIONS: dict[str, dict[str, str]] = {"server": {}, "defaults": {"ARENA_GC_TUNING": "off"}}
"""Each condition's settings beside ``ARENA_ENVIRONMENT``: the server as it
runs, and the interpreter's collector defaults (the baseline)."""


# ---------------------------------------------------------------- in the server's process


@dataclass
class Pauses:
    """Every collection's duration, by generation, since the last ``report``:
    on the wall clock, and on the thread's CPU clock, which a shared
    machine's other work does not lengthen (the wall figure counts the
    time the process waited for a core)."""

    longest: dict[int, float] = field(default_factory=dict)
    longest_cpu: dict[int, float] = field(default_factory=dict)
    counts: dict[int, int] = field(default_factory=dict)
    found: dict[int, int] = field(default_factory=dict)
    """Objects the collections found unreachable (garbage only they could free)."""
    total: float = 0.0
    _started: tuple[float, float] = (0.0, 0.0)
    _collecting: bool = False
    _asked: bool | None = None
    """A report asked for during a collection, to give once it is timed:
    whether to count the tracked objects."""
    loop_lag: LoopLag = field(default_factory=LoopLag)
    """The server's event loop's lag, reported beside the collections."""

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._collecting = True
            self._started = (time.perf_counter(), time.thread_time())
            return
        wall, cpu = time.perf_counter() - self._started[0], time.thread_time() - self._started[1]
        generation = info["generation"]
        self.longest[generation] = max(self.longest.get(generation, 0.0), wall)
        self.longest_cpu[generation] = max(self.longest_cpu.get(generation, 0.0), cpu)
        self.counts[generation] = self.counts.get(generation, 0) + 1
        self.found[generation] = self.found.get(generation, 0) + info["collected"] + info["uncollectable"]
        self.total += wall
        self._collecting = False
        if self._asked is not None:
            count_objects, self._asked = self._asked, None
            self.answer(count_objects)

    def asked(self, count_objects: bool) -> None:
        """A signal's handler: the interpreter runs it where Python code runs
        next, which may be this object's own callback in the middle of a
        collection, so a report then waits for the collection's end.
        Answered at once, its time (counting the tracked objects walks them
        all: about 100 ms at five thousand connections) counted as that
        collection's pause: the one young collection of 116 ms seen at five
        thousand players."""
        if self._collecting:
            self._asked = count_objects
        else:
            self.answer(count_objects)

    def answer(self, count_objects: bool) -> None:
        print(json.dumps(self.report(count_objects)), flush=True)

    def report(self, count_objects: bool) -> dict[str, Any]:
        """The figures so far (then starts again), with the objects tracked
        now if ``count_objects``."""
        figures = {
            "longest_ms": {str(g): round(s * 1000, 3) for g, s in sorted(self.longest.items())},
            "longest_cpu_ms": {str(g): round(s * 1000, 3) for g, s in sorted(self.longest_cpu.items())},
            "counts": {str(g): n for g, n in sorted(self.counts.items())},
            "found": {str(g): n for g, n in sorted(self.found.items())},
            "total_ms": round(self.total * 1000, 1),
            "tracked": len(gc.get_objects()) if count_objects else None,
            "frozen": gc.get_freeze_count(),
            "loop_lag": self.loop_lag.report(),
        }
        self.longest, self.longest_cpu, self.counts, self.found, self.total = {}, {}, {}, {}, 0.0
        return figures


def serve_measured() -> None:
    """``arena serve --port 0`` with its collections timed; ``SIGUSR1``
    prints the figures since the last one as a JSON line on stdout, and
    ``SIGUSR2`` the same with the tracked objects counted.  The event
    loop the server would choose is probed for lag (``bench.loop_lag``)."""
    from server.cli import main
    from server.commands import serve

    pauses = Pauses()
    gc.callbacks.append(pauses)
    chosen = serve.event_loop

    def probed(settings: Settings) -> LoopFactory:
        factory = chosen(settings) or asyncio.new_event_loop
        return lambda: pauses.loop_lag.attach(factory())

    serve.event_loop = probed
    signal.signal(signal.SIGUSR1, lambda *_: pauses.asked(False))
    signal.signal(signal.SIGUSR2, lambda *_: pauses.asked(True))
    sys.exit(main(["serve", "--port", "0"]))


# ---------------------------------------------------------------- in the bench's process


def start_measured(settings: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """``arena serve`` in a child process, its collections timed, with the
    benches' settings and ``settings`` beside them."""
    return _start([sys.executable, "-c", SERVE], {**ARENA_ENVIRONMENT, **(settings or {}), "PYTHONPATH": ROOT})


def ask(process: subprocess.Popen[str], count_objects: bool = False) -> dict[str, Any]:
    """The child's figures since it was last asked; the tracked objects
    counted if ``count_objects`` (the server stops meanwhile)."""
    assert process.stdout is not None
    process.send_signal(signal.SIGUSR2 if count_objects else signal.SIGUSR1)
    return dict(json.loads(process.stdout.readline()))


async def fill(connections: list[ClientConnection], held: int, log: int) -> list[str]:
    """``held`` games in the store, ``log`` draws each, spread over the
    connections; the last game of each connection is still watched."""
    progress = ProgressLine(every=5.0)
    made = 0
    last: list[str] = [""] * len(connections)

    async def filler(number: int, connection: ClientConnection) -> None:
        nonlocal made
        for turn in range(number, held, len(connections)):
            if last[number]:
                await request(connection, {"type": "unwatch", "id": 3, "game_id": last[number]})
            last[number] = game_id = await new_game(connection, turn)
            for move in range(log):
                await request(connection, {"type": "move", "id": 10 + move, "game_id": game_id, "move": "draw"})
            made += 1
            progress(made, held, "games held")

    await asyncio.gather(*(filler(n, connection) for n, connection in enumerate(connections)))
    return last


async def measure(condition: str, held: int, args: argparse.Namespace) -> dict[str, Any]:
    """One server, filled then played: its figures after each phase."""
    # Every game stays live: a player's next game would abandon its oldest.
    process, url = start_measured({**CONDITIONS[condition], "ARENA_MAX_LIVE_GAMES": str(held + 1)})
    try:
        started = ask(process, count_objects=True)
        connections = await open_many(url, args.fillers, f"{condition} fillers")
        games = await fill(connections, held, args.log)
        filled = ask(process, count_objects=True)
        game_of = dict(zip(map(id, connections), games))

        async def move(connection: ClientConnection, sequence: int) -> None:
            await request(connection, {"type": "move", "id": 1000 + sequence, "game_id": game_of[id(connection)], "move": "draw"})

        times = await paced_round_trips(connections, move, args.seconds, args.rate, f"{condition}, {held} held")
        played = ask(process, count_objects=True)
        await asyncio.gather(*(connection.close() for connection in connections), return_exceptions=True)
    finally:
        stop(process)
    return {"start": started, "fill": filled, "play": played, "p50": percentile(times, 0.5), "p99": percentile(times, 0.99)}


def longest(figures: dict[str, Any], clock: str = "longest_cpu_ms") -> float:
    return max(figures[clock].values(), default=0.0)


def line(condition: str, phase: str, figures: dict[str, Any]) -> str:
    by_generation = " ".join(f"g{g} {ms:6.2f}" for g, ms in figures["longest_cpu_ms"].items())
    counts = "/".join(str(n) for n in figures["counts"].values())
    return (
        f"  {condition:8} {phase:5} longest {longest(figures):7.2f} ms CPU ({by_generation}; {counts} runs),"
        f" {longest(figures, 'longest_ms'):7.2f} ms wall  total {figures['total_ms']:7.1f} ms"
        f"  found {sum(figures['found'].values()):>7,}"
        f"  tracked {figures['tracked']:>9,}  frozen {figures['frozen']:>7,}"
    )


async def gc_main(args: argparse.Namespace) -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start")
    print(f"garbage collection: {args.fillers} players fill the store with games of {args.log} draws each,"
          f" then play {args.seconds:g} s at ~{args.rate:g} draws/s each; target: every pause < {PAUSE_TARGET_MS:g} ms")
    for held in args.held:
        results = {condition: await measure(condition, held, args) for condition in CONDITIONS}
        print(f"{held:,} games held")
        for condition, result in results.items():
            print(line(condition, "start", result["start"]))
            print(line(condition, "fill", result["fill"]))
            print(line(condition, "play", result["play"]))
            print(f"  {condition:8} play round trip p50 {result['p50'] * 1000:7.2f} ms  p99 {result['p99'] * 1000:7.2f} ms")
        server, baseline = (max(longest(results[c][p]) for p in ("fill", "play")) for c in CONDITIONS)
        print(f"  longest pause {server:.2f} ms CPU against {baseline:.2f} ms with the defaults"
              f" ({server / baseline if baseline else 0:.2f}x); target < {PAUSE_TARGET_MS:g} ms")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the end")
