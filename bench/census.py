"""Which tests run in memory: per test file, how many open a socket or
start a process while they run, and the run's wall time.

A test counts by what it does, not by what its fixtures are called: an
audit hook (``sys.addaudithook``) sees every ``socket.bind`` and
``socket.connect`` (a listening server, a WebSocket or Redis client; an
event loop's own self-pipe is a ``socketpair`` and neither) and every
process start while that test runs, its fixtures' set-up and tear-down
included.  ``multiprocessing`` spawns its workers (search pools, deal
proofs) through a call no audit event reports, so its process start is
watched too.  A test with neither runs in memory.

    python bench/census.py [--baseline-root TREE] [pytest arguments]

The tests are ``tests/server tests/races`` unless an argument names a
test path.

``--baseline-root`` counts another checkout first, in its own process
and the same way, and prints both with the change in wall time.  The
aim it measures: most server and race tests run in memory, where they
are fast and deterministic (``docs/architecture.md``, *Where the
server's tests run*).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, Generator

import pytest

DEFAULT_TESTS = ["tests/server", "tests/races"]
SOCKET_EVENTS = frozenset({"socket.bind", "socket.connect"})
PROCESS_EVENTS = frozenset({"subprocess.Popen", "os.posix_spawn", "os.fork", "os.exec", "multiprocessing.start"})


class Census:
    """A pytest plugin: what each test touched, by test id."""

    def __init__(self) -> None:
        self.running: str | None = None
        self.tests: list[str] = []
        self.touched: dict[str, set[str]] = defaultdict(set)
        self.outcomes: dict[str, str] = {}
        sys.addaudithook(self._heard)
        start = BaseProcess.start

        def heard_start(process: BaseProcess) -> None:
            self._heard("multiprocessing.start", ())
            start(process)

        setattr(BaseProcess, "start", heard_start)

    def _heard(self, event: str, args: tuple[Any, ...]) -> None:
        if self.running is None:
            return
        if event in SOCKET_EVENTS:
            self.touched[self.running].add("socket")
        elif event in PROCESS_EVENTS:
            self.touched[self.running].add("process")

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        self.tests.extend(item.nodeid for item in items)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, None, None]:
        self.running = item.nodeid
        yield
        self.running = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" or report.outcome != "passed":
            self.outcomes.setdefault(report.nodeid, report.outcome)

    def counts(self) -> dict[str, list[int]]:
        """Per test file: [sockets, processes only, in memory]."""
        files: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for test in self.tests:
            kinds = self.touched.get(test, set())
            files[test.split("::")[0]][0 if "socket" in kinds else 1 if "process" in kinds else 2] += 1
        return files


def _minutes(seconds: float) -> str:
    whole, rest = divmod(round(seconds), 60)
    return f"{whole} min {rest} s"


def _report(files: dict[str, list[int]], wall: float, label: str) -> tuple[int, int, int]:
    """Print the table; the totals (sockets, processes only, in memory)."""
    print(f"{label}\n{'sockets':>8} {'processes':>9} {'memory':>7}  file")
    totals = [0, 0, 0]
    for name, counts in sorted(files.items(), key=lambda item: (-item[1][0], item[0])):
        print(f"{counts[0]:8d} {counts[1]:9d} {counts[2]:7d}  {name}")
        totals = [total + count for total, count in zip(totals, counts)]
    everything = sum(totals)
    share = totals[2] / everything if everything else 0.0
    print(f"{totals[0]:8d} {totals[1]:9d} {totals[2]:7d}  all {everything} tests, wall time {_minutes(wall)}")
    print(f"in memory: {totals[2]} of {everything} ({share:.0%}); processes only: {totals[1]}; sockets: {totals[0]}")
    return totals[0], totals[1], totals[2]


def with_default_tests(pytest_arguments: list[str]) -> list[str]:
    """The arguments, with ``DEFAULT_TESTS`` added when none of them names
    a test path (options alone, such as ``-q``, count all the same)."""
    named = any(Path(argument.split("::")[0]).exists() for argument in pytest_arguments if not argument.startswith("-"))
    return pytest_arguments if named else [*pytest_arguments, *DEFAULT_TESTS]


def census_here(pytest_arguments: list[str]) -> tuple[dict[str, list[int]], float, int, list[str]]:
    """Run the tests in this process: the counts, wall seconds, pytest's
    exit status and the tests that failed."""
    census = Census()
    started = time.monotonic()
    status = pytest.main(with_default_tests(pytest_arguments), plugins=[census])
    wall = time.monotonic() - started
    failed = sorted(test for test, outcome in census.outcomes.items() if outcome == "failed")
    return census.counts(), wall, int(status), failed


def census_of(root: Path, pytest_arguments: list[str]) -> tuple[dict[str, list[int]], float]:
    """The same census of another tree, in a process of its own with that
    tree first on the path (two trees' modules cannot share a process)."""
    with tempfile.TemporaryDirectory() as scratch:
        answer = Path(scratch) / "census.json"
        command = [sys.executable, str(Path(__file__).resolve()), "--counts-to", str(answer), *pytest_arguments]
        subprocess.run(command, cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, check=False)
        found = json.loads(answer.read_text(encoding="utf-8"))
    return found["files"], found["wall"]


def main(arguments: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Which tests open a socket or start a process.", add_help=False)
    parser.add_argument("--baseline-root", type=Path, help="count this other tree too, first, the same way")
    parser.add_argument("--counts-to", type=Path, help=argparse.SUPPRESS)
    options, pytest_arguments = parser.parse_known_args(arguments)
    baseline = census_of(options.baseline_root, pytest_arguments) if options.baseline_root else None
    files, wall, status, failed = census_here(pytest_arguments)
    if options.counts_to is not None:
        options.counts_to.write_text(json.dumps({"files": files, "wall": wall}), encoding="utf-8")
        return status
    if baseline is not None:
        before = _report(baseline[0], baseline[1], f"baseline: {options.baseline_root}")
    after = _report(files, wall, "this tree")
    if baseline is not None:
        print(f"in memory {before[2]} -> {after[2]}; sockets {before[0]} -> {after[0]}; "
              f"wall time {_minutes(baseline[1])} -> {_minutes(wall)} (x{wall / baseline[1]:.2f})")
    print(f"pytest exit status {status}; failed: {len(failed)}")
    for test in failed:
        print(f"  failed: {test}")
    return status


if __name__ == "__main__":
    if not __package__:
        sys.path.pop(0)
    sys.exit(main(sys.argv[1:]))
