"""Where an action's time goes: the server under a sampling profiler.

200 players (``--players``), each with its own Klondike game, play a
closed loop against a real server process: each sends its next move
(``draw``) as soon as the reply to the last one arrives.  The players,
their games and their pacing are ``bench/server.py``'s (its paced players
at an infinite rate are a closed loop).  While they play, ``py-spy``
samples the server process; each sample's stack is put in one stage of an
action by ``RULES`` below, and the share of each stage is printed.

    nice -n 10 python bench/profile.py [--players 200] [--seconds 10] [--rounds 3] [--rate 100] [--blocking] [--keep FILE]
    python bench/profile.py --read FILE     (the shares of stacks kept before)

py-spy drops the samples in which the server waits for its sockets, so the
shares are of the time the server is busy.  Attaching a profiler slows the
process it samples, so each round also runs the same load unprofiled (the
two in alternating order), and the actions per second and the server's
CPU time per action of both are printed beside each other: the shares
describe the profiled process, whose slowdown is that ratio.

Progress (each block's seconds, with an ETA) goes to stderr, the figures
to stdout.  py-spy is a tool of the bench only (``pip install py-spy``);
without it the script says so and exits.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import re
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence

if not __package__:
    # Run as a file, Python puts bench/ first on sys.path, where this file
    # would shadow the standard library's ``profile`` and bench/server.py
    # the ``server`` package.
    sys.path.pop(0)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from websockets.asyncio.client import ClientConnection  # noqa: E402

from bench.server import Exchange, arena_players, close_all, paced_round_trips, start_arena, stop  # noqa: E402

CLOSED_LOOP = math.inf
"""``paced_round_trips``' rate for a player that never pauses between moves."""

OTHER = "other"
EVENT_LOOP = "event loop"


@dataclass(frozen=True)
class Rule:
    """Frames of ``stage``: their file (as py-spy shortens it: the package
    part) starts with ``file``, and their qualified name matches
    ``function`` whole (both regular expressions)."""

    stage: str
    file: str
    function: str = ".*"


RULES: tuple[Rule, ...] = (
    # Reading a frame: the socket's read callback, websockets' parser and
    # its queue of received messages, and the connection's read loop.
    Rule("receive and WebSocket framing", r"asyncio/selector_events\.py", r".*\._read_ready.*"),
    Rule("receive and WebSocket framing", r"server/transport/app\.py", r"ArenaServer\._serve_connection"),
    Rule("receive and WebSocket framing", r"server/transport/keepalive\.py"),
    # websockets writes as well as reads: its send side first.
    Rule("send", r"websockets/", r".*(send|broadcast|serialize|write|drain).*"),
    Rule("receive and WebSocket framing", r"websockets/"),
    Rule("encode", r"protocol/codec\.py", r".*encode.*"),
    Rule("decode and validate", r"protocol/codec\.py"),
    Rule("encode", r"server/net/outbox\.py", r"encode"),
    # Building a reply's model is encoding it; the rest of the protocol
    # package is the requests' models and validators.
    Rule("encode", r"protocol/to_client\.py"),
    Rule("decode and validate", r"protocol/"),
    Rule("admission and rate limits", r"server/net/(ratelimit|admission)\.py"),
    Rule("admission and rate limits", r"server/transport/listener\.py"),
    # Who may act and what is shown to whom.
    Rule("fair-play checks", r"server/model/(fair_play|visibility)\.py"),
    Rule("fair-play checks", r"server/deals/claims\.py"),
    Rule("fair-play checks", r"server/games/facts\.py"),
    Rule("fair-play checks", r"server/games/room\.py", r"Room\.is_owner"),
    Rule("fair-play checks", r"server/net/peer\.py", r"require_player"),
    Rule("fair-play checks", r"server/games/play\.py", r"Play\._check_live"),
    Rule("fair-play checks", r"server/races/desk\.py", r"RaceDesk\.check_action"),
    # The view a diff compares, and the diff itself, before the engine's
    # catch-all: the engine builds the view.
    Rule("view and diff", r"engine/views\.py"),
    Rule("view and diff", r"engine/game\.py", r"Game\.view.*"),
    Rule("view and diff", r"server/model/session\.py", r"public_view|Session\._publish_state"),
    Rule("view and diff", r"server/games/room\.py", r"Room\.(diff|_state)"),
    Rule("engine play and status", r"engine/"),
    Rule("engine play and status", r"server/model/session\.py", r"Session\.(perform|_engine_action|commit|_outcome|ends)"),
    # The append announces the entry to the other processes in the same
    # step: the announcement and the channels are the relay's.
    Rule("relay", r"server/games/relay\.py"),
    Rule("relay", r"server/storage/(memory_channels|redis_pubsub)\.py"),
    Rule("store append", r"server/games/held\.py", r"HeldTable\.append"),
    Rule("store append", r"server/storage/"),
    Rule("send", r"server/net/outbox\.py"),
    Rule("send", r"server/net/peer\.py", r"Peer\.send"),
    Rule("send", r"server/transport/outlet\.py"),
    Rule("send", r"server/games/(watching|delay)\.py"),
    Rule("send", r"asyncio/selector_events\.py", r".*write.*"),
    Rule("metrics and logs", r"server/runtime/(metrics|logs)\.py"),
    Rule("metrics and logs", r"prometheus_client/"),
    Rule("metrics and logs", r"logging/"),
    # What is left of the server's own code is glue: dispatching, the
    # action pipeline's steps, presence, the finishing offer's bookkeeping.
    Rule(OTHER, r"server/"),
    Rule(EVENT_LOOP, r"asyncio/"),
    Rule(EVENT_LOOP, r"selectors\.py"),
)
"""The stage of a frame: the first rule that matches it.  A sample's stage
is its innermost frame's that a rule matches, so a library called from a
stage's code (msgpack, pydantic, a dataclass's ``__init__``) counts in that
stage, and the event loop only gets what no code of the server is under."""

STAGES: tuple[str, ...] = (
    "receive and WebSocket framing",
    "admission and rate limits",
    "decode and validate",
    "fair-play checks",
    "engine play and status",
    "store append",
    "relay",
    "view and diff",
    "encode",
    "send",
    "metrics and logs",
    EVENT_LOOP,
    OTHER,
)
"""The stages in the order an action meets them, then the rest."""

_COMPILED = [(re.compile(rule.file), re.compile(rule.function), rule.stage) for rule in RULES]
_FRAME = re.compile(r"(?P<name>.*) \((?P<file>.*?)(?::\d+)?\)")
_INNER = re.compile(r"\.<locals>\.<(genexpr|listcomp|dictcomp|setcomp|lambda)>$")


# ---------------------------------------------------------------- classifying


def frame_parts(frame: str) -> tuple[str, str]:
    """A py-spy frame, ``Klondike._moves (engine/games/klondike.py:120)``,
    as its qualified name and file (("", "") when it is neither)."""
    match = _FRAME.fullmatch(frame)
    return (match["name"], match["file"]) if match else ("", "")


def stage_of(stack: Sequence[str]) -> tuple[str, str]:
    """The stage of a sample whose frames are ``stack`` (outermost first),
    and the frame that decided it, as ``name (file)``: see ``RULES``.  A
    comprehension or lambda decides as the function it is written in, whose
    cost it is.  A stack no rule matches is ``other``, decided by its
    innermost frame."""
    for frame in reversed(stack):
        name, file = frame_parts(frame)
        for file_pattern, function_pattern, stage in _COMPILED:
            if file_pattern.match(file) and function_pattern.fullmatch(name):
                return stage, f"{_INNER.sub('', name)} ({file})"
    if not stack:
        return OTHER, "(no Python frame)"
    name, file = frame_parts(stack[-1])
    return OTHER, f"{name} ({file})" if name else stack[-1]


def read_raw(text: str) -> Iterator[tuple[list[str], int]]:
    """The stacks and sample counts of py-spy's raw output (one collapsed
    stack a line, frames joined by ``;``, the count last)."""
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if count.isdigit():
            yield [frame for frame in stack.split(";") if frame], int(count)


@dataclass
class Tally:
    """Samples per stage, and per stage the frames that decided them."""

    stages: Counter[str] = field(default_factory=Counter)
    frames: dict[str, Counter[str]] = field(default_factory=dict)

    def add(self, samples: Iterable[tuple[list[str], int]]) -> None:
        for stack, count in samples:
            stage, frame = stage_of(stack)
            self.stages[stage] += count
            self.frames.setdefault(stage, Counter())[frame] += count

    @property
    def total(self) -> int:
        return sum(self.stages.values())

    @classmethod
    def merged(cls, tallies: Iterable[Tally]) -> Tally:
        whole = cls()
        for tally in tallies:
            whole.stages.update(tally.stages)
            for stage, frames in tally.frames.items():
                whole.frames.setdefault(stage, Counter()).update(frames)
        return whole

    def share(self, stage: str) -> float:
        """``stage``'s percentage of the samples."""
        return 100 * self.stages.get(stage, 0) / (self.total or 1)


# ---------------------------------------------------------------- sampling


class Spy:
    """py-spy recording one process until stopped."""

    def __init__(self, pid: int, rate: int, blocking: bool, output: Path) -> None:
        self.command = ["py-spy", "record", "--pid", str(pid), "--rate", str(rate), "--format", "raw", "--output", str(output)]
        if not blocking:
            self.command.append("--nonblocking")
        self.output = output
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        """Attach, and return once py-spy says it is sampling."""
        self.process = await asyncio.create_subprocess_exec(
            *self.command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        assert self.process.stdout is not None and self.process.stderr is not None
        line = await self.process.stdout.readline()
        if b"Sampling" not in line:
            error = (await self.process.stderr.read()).decode(errors="replace").strip().splitlines()
            await self.process.wait()
            raise SystemExit(
                f"py-spy could not sample the server: {error[0] if error else line.decode().strip()}"
                " (attaching to a process takes root or CAP_SYS_PTRACE)"
            )

    async def stop(self) -> tuple[str, int, int]:
        """Stop sampling: the raw stacks, the samples and the failed reads."""
        assert self.process is not None and self.process.stdout is not None
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGINT)
        said = (await self.process.stdout.read()).decode(errors="replace")
        await self.process.wait()
        self.process = None
        counts = re.search(r"Samples: (\d+) Errors: (\d+)", said)
        text = self.output.read_text() if self.output.exists() else ""
        return text, int(counts[1]) if counts else 0, int(counts[2]) if counts else 0

    def abandon(self) -> None:
        """Kill a py-spy still sampling (the run failed half-way)."""
        if self.process is not None and self.process.returncode is None:
            self.process.kill()


def cpu_seconds(pid: int) -> float | None:
    """The process's CPU time so far (user and system), where /proc says."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Block:
    """One stretch of the closed loop: actions, wall seconds, server CPU seconds."""

    actions: int
    seconds: float
    cpu: float | None

    @property
    def rate(self) -> float:
        return self.actions / self.seconds

    @property
    def cpu_per_action(self) -> float | None:
        return None if self.cpu is None or not self.actions else self.cpu / self.actions


async def closed_loop(players: list[ClientConnection], move: Exchange, pid: int, seconds: float, label: str) -> Block:
    """Every player moves as soon as its last move is answered, for a
    second of warm-up and ``seconds`` more."""
    actions = 0

    async def counted(connection: ClientConnection, sequence: int) -> None:
        nonlocal actions
        await move(connection, sequence)
        actions += 1

    cpu_before, begun = cpu_seconds(pid), time.perf_counter()
    await paced_round_trips(players, counted, seconds, CLOSED_LOOP, label)
    elapsed, cpu_after = time.perf_counter() - begun, cpu_seconds(pid)
    cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
    return Block(actions, elapsed, cpu)


@dataclass
class Run:
    """The blocks of each kind, each profiled block's samples, and the
    samples py-spy failed to read."""

    plain: list[Block] = field(default_factory=list)
    profiled: list[Block] = field(default_factory=list)
    rounds: list[Tally] = field(default_factory=list)
    errors: int = 0

    @property
    def tally(self) -> Tally:
        return Tally.merged(self.rounds)


async def measure(args: argparse.Namespace, kept: Path, scratch: Path) -> Run:
    """Rounds of an unprofiled and a profiled block, in alternating order;
    the stacks of every round appended to ``kept``."""
    run = Run()
    arena, url = start_arena()
    spy = Spy(arena.pid, args.rate, args.blocking, scratch / "round.txt")
    try:
        move, players, _ = await arena_players(url, args.players)
        for number in range(args.rounds):
            for profiled in (False, True) if number % 2 == 0 else (True, False):
                label = f"round {number + 1}/{args.rounds} {'profiled' if profiled else 'unprofiled'}"
                if not profiled:
                    run.plain.append(await closed_loop(players, move, arena.pid, args.seconds, label))
                    continue
                await spy.start()
                run.profiled.append(await closed_loop(players, move, arena.pid, args.seconds, label))
                text, samples, errors = await spy.stop()
                run.rounds.append(Tally())
                run.rounds[-1].add(read_raw(text))
                run.errors += errors
                with kept.open("a") as stacks:
                    stacks.write(text)
                print(f"round {number + 1}: {samples} samples, {errors} failed reads", file=sys.stderr)
        await close_all(players)
    finally:
        spy.abandon()
        stop(arena)
    return run


# ---------------------------------------------------------------- report


def shares(tally: Tally, rounds: Sequence[Tally] = (), top: int = 3) -> list[str]:
    """The table: each stage's share of the samples, its lowest and highest
    in the ``rounds`` (how far one round's figure can be trusted), and the
    frames that decided most of it."""
    total = tally.total or 1
    spread = len(rounds) > 1
    lines = [f"{'stage':<32} {'share':>6}{'  rounds' + ' ' * 6 if spread else ''}  mostly"]
    for stage in STAGES:
        decided = tally.frames.get(stage, Counter()).most_common(top)
        mostly = ", ".join(f"{frame.split(' (')[0]} {100 * n / total:.1f}%" for frame, n in decided)
        each = [one.share(stage) for one in rounds]
        span = f"  {min(each):4.1f}-{max(each):4.1f}%" if spread else ""
        lines.append(f"{stage:<32} {tally.share(stage):5.1f}%{span}  {mostly}")
    return lines


def summary(run: Run, args: argparse.Namespace) -> list[str]:
    def median(values: list[float | None]) -> float | None:
        known = [value for value in values if value is not None]
        return statistics.median(known) if known else None

    rates = [statistics.median(block.rate for block in blocks) for blocks in (run.plain, run.profiled)]
    cpus = [median([block.cpu_per_action for block in blocks]) for blocks in (run.plain, run.profiled)]
    cpu_text = ["n/a" if cpu is None else f"{cpu * 1e6:.0f} µs" for cpu in cpus]
    cpu_ratio = "" if cpus[0] is None or cpus[1] is None else f", {cpus[1] / cpus[0]:.2f}x the CPU per action"
    sampled = run.tally.total + run.errors
    return [
        f"closed loop, {args.players} players, {args.rounds} round{'' if args.rounds == 1 else 's'} of {args.seconds:g} s"
        " (after 1 s warm-up) each way; medians:",
        f"  unprofiled {rates[0]:8,.0f} actions/s, server CPU {cpu_text[0]} per action",
        f"  profiled   {rates[1]:8,.0f} actions/s, server CPU {cpu_text[1]} per action"
        f"   (under py-spy: {rates[1] / rates[0]:.2f}x the actions/s{cpu_ratio})",
        f"py-spy at {args.rate} Hz{'' if args.blocking else ', --nonblocking'}: {run.tally.total:,} samples of the busy"
        f" server, {run.errors:,} failed reads ({100 * run.errors / (sampled or 1):.0f}%)",
    ]


def load() -> str:
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def main(argv: list[str]) -> int:
    args = parse(argv)
    if args.read is not None:
        tally = Tally()
        tally.add(read_raw(args.read.read_text()))
        print(f"{tally.total:,} samples from {args.read}")
        print("\n".join(shares(tally)))
        return 0
    if shutil.which("py-spy") is None:
        raise SystemExit(
            "bench/profile.py samples the server with py-spy, which is not on PATH: install it"
            " (pip install py-spy) and run again"
        )
    print(f"{load()} at the start")
    with tempfile.TemporaryDirectory() as scratch:
        kept = args.keep or Path(scratch) / "stacks.txt"
        kept.write_text("")
        run = asyncio.run(measure(args, kept, Path(scratch)))
    print("\n".join(summary(run, args)))
    print("\n".join(shares(run.tally, run.rounds)))
    if args.keep:
        print(f"stacks kept in {args.keep} (python bench/profile.py --read {args.keep})")
    print(f"{load()} at the end")
    return 0


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0, help="each block's length after its warm-up second")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rate", type=int, default=100, help="py-spy's samples per second")
    parser.add_argument("--blocking", action="store_true", help="pause the server for each sample (fewer failed reads)")
    parser.add_argument("--keep", type=Path, metavar="FILE", help="keep the raw stacks (py-spy's collapsed format)")
    parser.add_argument("--read", type=Path, metavar="FILE", help="only print the shares of stacks kept before")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
