"""The test suite under load: the README's test command
run ``--runs`` times in a row beside ``--burners`` CPU-burning processes.

A test that waits on real time instead of an event passes on a quiet
machine and fails on a busy one, so the way to show that none does is to
make the machine busy on purpose: each burner is a child process spinning
on one core for the whole measurement, which on 2 cores leaves the suite
the scraps a CI runner shared with other jobs would get.  Runs follow one
another (never in parallel) so that each sees the same load.

Printed per run: pass or fail, its duration, the load average at its end,
and the ids of the tests that failed or errored (from pytest's short
summary); each run's whole output is kept in ``--logs`` to read the
tracebacks.  A progress line with an ETA goes to standard error.  The
exit code is 0 only if every run passed, so a report of a change can
cite the command and its output.

    python bench/stress_suite.py                     # 5 runs, 2 burners, every test
    python bench/stress_suite.py --runs 1 --tests tests/races
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

if not __package__:
    # Run as a file, Python puts bench/ first on sys.path, where
    # bench/server.py would shadow the server package.
    sys.path.pop(0)

from server.runtime.progress import ProgressLine, duration  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

README_COMMAND = [sys.executable, "-m", "pytest"]
"""``python -m pytest``, as the README says, with this interpreter."""

SUMMARY_PREFIXES = ("FAILED ", "ERROR ")


@dataclass(frozen=True)
class Run:
    number: int
    passed: bool
    seconds: float
    load: float
    failing: list[str]
    log: Path


def failing_ids(output: str) -> list[str]:
    """The node ids in pytest's short summary (``-ra`` is in the project's
    addopts), without their messages: ``FAILED tests/x.py::test_y - ...``."""
    ids = []
    for line in output.splitlines():
        if line.startswith(SUMMARY_PREFIXES):
            ids.append(line.split(" ", 1)[1].split(" - ", 1)[0])
    return ids


BURNER = """
import os
parent = os.getppid()
while os.getppid() == parent:
    sum(range(100_000))
"""
"""Spins one core for as long as the process that started it lives: a
stress run killed outright (SIGKILL, a closed terminal) leaves no burner
behind to distort whatever the machine does next."""


def start_burners(count: int) -> list[subprocess.Popen[bytes]]:
    """``count`` processes each spinning one core until stopped."""
    return [subprocess.Popen([sys.executable, "-c", BURNER]) for _ in range(count)]


def stop_burners(burners: list[subprocess.Popen[bytes]]) -> None:
    for burner in burners:
        burner.terminate()
    for burner in burners:
        burner.wait()


def run_once(number: int, tests: list[str], logs: Path) -> Run:
    log = logs / f"run-{number}.txt"
    started = time.monotonic()
    with log.open("w") as out:
        suite = subprocess.Popen([*README_COMMAND, *tests], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        try:
            returncode = suite.wait()
        finally:
            if suite.poll() is None:
                suite.terminate()
                suite.wait()
    seconds = time.monotonic() - started
    output = log.read_text(errors="replace")
    return Run(number, returncode == 0, seconds, os.getloadavg()[0], failing_ids(output), log)


def report(run: Run, runs: int) -> str:
    verdict = "pass" if run.passed else "FAIL"
    line = f"run {run.number}/{runs}: {verdict} in {duration(run.seconds)} (load {run.load:.1f}), log {run.log}"
    return "\n".join([line, *(f"  failed: {test_id}" for test_id in run.failing)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs in a row (default 5)")
    parser.add_argument("--burners", type=int, default=2, help="CPU-burning processes beside them (default 2)")
    parser.add_argument("--tests", action="append", default=[], metavar="PATH", help="run only these tests (repeatable; default: all)")
    parser.add_argument("--logs", type=Path, default=None, help="where each run's output is kept (default: a new temporary directory)")
    options = parser.parse_args(argv)
    logs = options.logs or Path(tempfile.mkdtemp(prefix="stress-suite-"))
    logs.mkdir(parents=True, exist_ok=True)
    command = " ".join(["python -m pytest", *options.tests])
    print(f"{command}: {options.runs} runs beside {options.burners} burners on {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}", flush=True)

    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))
    progress = ProgressLine(eta_label="ETA")
    progress(0, options.runs, "runs")
    burners = start_burners(options.burners)
    results: list[Run] = []
    try:
        for number in range(1, options.runs + 1):
            results.append(run_once(number, options.tests, logs))
            progress.finish()
            print(report(results[-1], options.runs), flush=True)
            progress(number, options.runs, "runs")
    finally:
        stop_burners(burners)
        progress.finish()

    passed = sum(run.passed for run in results)
    median = statistics.median(run.seconds for run in results)
    print(f"{passed}/{len(results)} runs passed; median run {duration(median)}; logs in {logs}")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
