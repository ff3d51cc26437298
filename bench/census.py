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

    python bench/census.py [pytest arguments]     (default: tests/server tests/races)

Run it in another tree's root with that tree on ``PYTHONPATH`` to count a
baseline the same way.  Issue 15 asks that most server and race tests
run in memory.
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from multiprocessing.process import BaseProcess
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

    def table(self) -> list[str]:
        files: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for test in self.tests:
            counts = files[test.split("::")[0]]
            kinds = self.touched.get(test, set())
            counts[0 if "socket" in kinds else 1 if "process" in kinds else 2] += 1
        lines = [f"{'sockets':>8} {'processes':>9} {'memory':>7}  file"]
        totals = [0, 0, 0]
        for name, counts in sorted(files.items(), key=lambda item: (-item[1][0], item[0])):
            lines.append(f"{counts[0]:8d} {counts[1]:9d} {counts[2]:7d}  {name}")
            totals = [total + count for total, count in zip(totals, counts)]
        everything = sum(totals)
        lines.append(f"{totals[0]:8d} {totals[1]:9d} {totals[2]:7d}  all {everything} tests")
        share = totals[2] / everything if everything else 0.0
        lines.append(f"in memory: {totals[2]} of {everything} ({share:.0%}); processes only: {totals[1]}; sockets: {totals[0]}")
        return lines


def main(arguments: list[str]) -> int:
    census = Census()
    started = time.monotonic()
    status = pytest.main(arguments or DEFAULT_TESTS, plugins=[census])
    wall = time.monotonic() - started
    for line in census.table():
        print(line)
    failed = sorted(test for test, outcome in census.outcomes.items() if outcome == "failed")
    print(f"wall time {wall / 60:.0f} min {wall % 60:.0f} s; pytest exit status {int(status)}; failed: {len(failed)}")
    for test in failed:
        print(f"  failed: {test}")
    return int(status)


if __name__ == "__main__":
    if not __package__:
        sys.path.pop(0)
    sys.exit(main(sys.argv[1:]))
