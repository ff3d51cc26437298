"""The figures of ``bench/server.py`` over its rounds, their targets, and
the history of runs in ``bench/perf_history.md``.

A shared machine's load moves from second to second, so one number per
run does not repeat; the arena and its baseline are measured in paired
rounds instead, and every figure is given as the median of the rounds
with their spread (min–max), beside the median of the per-round ratios:
load from elsewhere falls on both halves of a pair alike, so the ratio
holds when the absolute figures swing.  Nothing here measures anything;
it reads ``/proc`` and ``git`` and formats.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
HISTORY_HEADER = """# Performance history

One section per run of `python bench/server.py` (and `--scale`), appended
by the bench itself (`--history`, on by default): the date, the commit
(`+` when the working tree had uncommitted changes), the machine's load
average at the start and the end, and each figure as the median of its
rounds with the spread (min–max) beside the same run's baseline.  Compare
ratios, not absolute figures: the machine is shared and its load moves.
"""


@dataclass(frozen=True)
class Target:
    """A bound a figure must keep: on its ratio to the baseline, or on the
    figure itself (``on_ratio`` false); at most ``bound``, or at least."""

    bound: float
    at_most: bool = True
    on_ratio: bool = True

    def met(self, value: float) -> bool:
        return value <= self.bound if self.at_most else value >= self.bound

    def describe(self, unit: str) -> str:
        """``≤ 1.3×`` on a ratio, ``≤ 80 µs`` on a figure in ``unit``."""
        return f"{'≤' if self.at_most else '≥'} {number(self.bound)}{'×' if self.on_ratio else ' ' + unit}"


@dataclass(frozen=True)
class Figure:
    """One figure's value in each round, and the baseline's in the same
    rounds (paired: ``baseline[i]`` was measured next to ``arena[i]``)."""

    name: str
    unit: str
    arena: Sequence[float]
    baseline: Sequence[float] | None = None
    target: Target | None = None

    def ratios(self) -> list[float]:
        if self.baseline is None:
            return []
        return [mine / theirs for mine, theirs in zip(self.arena, self.baseline) if theirs > 0]

    def verdict(self) -> str:
        """``pass`` or ``FAIL`` on the median (of the ratios, or of the
        figure), empty without a target."""
        if self.target is None:
            return ""
        values = self.ratios() if self.target.on_ratio else list(self.arena)
        if not values:
            return "n/a"
        return "pass" if self.target.met(statistics.median(values)) else "FAIL"

    def cells(self) -> tuple[str, str, str, str, str, str]:
        """Name, arena, baseline, ratio, target and verdict, as text."""
        ratios = self.ratios()
        return (
            self.name,
            spread(self.arena, self.unit),
            "" if self.baseline is None else spread(self.baseline, self.unit),
            spread(ratios, "×") if ratios else "",
            "" if self.target is None else self.target.describe(self.unit),
            self.verdict(),
        )


COLUMNS = ("figure", "arena median (min–max)", "baseline median (min–max)", "ratio median (min–max)", "target", "")


def number(value: float) -> str:
    """Three significant digits, thousands separated: ``0.352``, ``12.5``, ``4,210``."""
    if value != value or value in (float("inf"), float("-inf")):
        return str(value)
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def spread(values: Sequence[float], unit: str) -> str:
    """``1.23 ms (1.01–1.80)``: the median, then the least and the most."""
    if not values:
        return "-"
    separator = "" if unit in ("×", "%") else " "
    text = f"{number(statistics.median(values))}{separator}{unit}"
    if min(values) != max(values):
        text += f" ({number(min(values))}–{number(max(values))})"
    return text


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell, for a terminal or a log."""
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(len(header))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in [header, *rows])


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------- the run's context


def cpu_seconds(pid: int) -> float:
    """A process's user + system CPU time so far, from ``/proc`` (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def waited_seconds(pid: int) -> float:
    """How long a process's main thread has waited for a core while ready to
    run (``/proc/PID/schedstat``, Linux): a server that waits long is
    starved by the machine's other work, whatever its own cost."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9


def rss_kib(pid: int) -> int:
    """A process's resident set size, from ``/proc`` (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise LookupError("VmRSS")


def listening_url(process: subprocess.Popen[str], prefix: str, what: str) -> str:
    """The URL a child server prints on its first line after ``prefix``
    once it listens; a child that prints anything else is stopped, and its
    line is the error (a bench that measured nothing says why)."""
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith(prefix):
        process.terminate()
        wait_or_kill(process)
        raise RuntimeError(f"{what} did not start: {line!r}")
    return line.removeprefix(prefix).strip()


def wait_or_kill(process: subprocess.Popen[str]) -> None:
    """Waits for a child already told to stop (its stdin closed, or a
    SIGTERM) and kills it after 30 s, so that a wedged child cannot hold
    a benchmark's end; then closes its output pipe."""
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdout is not None:
        process.stdout.close()


def machine_ticks(stat: str | None = None) -> tuple[int, int]:
    """Busy and total CPU ticks of every core so far (the ``cpu`` line of
    ``/proc/stat``, or of ``stat``); idle and I/O wait are not busy."""
    fields = [int(field) for field in (stat or Path("/proc/stat").read_text()).splitlines()[0].split()[1:]]
    total = sum(fields[:8])
    return total - fields[3] - fields[4], total


def busy_share(before: tuple[int, int], after: tuple[int, int]) -> float:
    """The share of every core's time that was busy between two ``machine_ticks``."""
    total = after[1] - before[1]
    return (after[0] - before[0]) / total if total else 0.0


def commit() -> str:
    """The short hash of HEAD, with ``+`` if tracked files have changed
    since (the history itself apart: an earlier run of the same checkout
    changed it)."""
    root = Path(__file__).resolve().parent.parent

    def git(*words: str) -> str:
        return subprocess.run(["git", *words], cwd=root, capture_output=True, text=True, check=False).stdout.strip()

    return (git("rev-parse", "--short", "HEAD") or "unknown") + ("+" if git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/perf_history.md") else "")


@dataclass
class Context:
    """When and where a run ran: its start, commit and load averages."""

    command: str
    started: float
    commit: str
    load_start: float
    load_end: float | None = None

    @classmethod
    def now(cls, arguments: Sequence[str]) -> Context:
        """This run's context; the command says ``nice`` too, since a niced
        bench on a busy machine waits longer for a core."""
        niceness = os.nice(0)
        command = ("" if niceness == 0 else f"nice -n {niceness} ") + " ".join(["python bench/server.py", *arguments])
        return cls(command, time.time(), commit(), os.getloadavg()[0])

    def finish(self) -> None:
        self.load_end = os.getloadavg()[0]

    def load(self) -> str:
        end = "?" if self.load_end is None else f"{self.load_end:.1f}"
        return f"load average {self.load_start:.1f} at the start, {end} at the end, on {os.cpu_count()} cores"

    def title(self) -> str:
        day = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(self.started))
        return f"{day}, commit {self.commit}, {self.load()}"


def append_history(path: Path, context: Context, description: str, tables: Sequence[str]) -> None:
    """Add one run's section to ``path``, made with its header if new."""
    section = f"\n## {context.title()}\n\n`{context.command}`: {description}\n\n" + "\n\n".join(tables) + "\n"
    with path.open("a", encoding="utf-8") as history:
        if history.tell() == 0:
            history.write(HISTORY_HEADER)
        history.write(section)
