"""How ``arena`` ends: its version, exit codes in ``--help``, no traceback
for a closed pipe or Ctrl-C, and progress that suits where it is written.

The commands run as real subprocesses: a broken pipe and a signal only
behave as they do for a user in a process of their own.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from server.cli import main
from server.runtime.exits import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED
from server.runtime.version import arena_version
from server.commands import solve as solve_command
from server.runtime.progress import ProgressLine

ROOT = Path(__file__).resolve().parents[2]
INTERRUPTIBLE = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from server.cli import main; sys.exit(main(sys.argv[1:]))"
)
"""``arena`` with Python's own Ctrl-C handler: a child of a background job
may inherit SIGINT ignored, and then no KeyboardInterrupt would ever come."""


def _arena(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.cli", *arguments], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_arena_version_prints_the_installed_version() -> None:
    done = _arena("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"arena {arena_version()}"
    assert arena_version()[0].isdigit()


def test_arena_help_lists_the_exit_codes() -> None:
    done = _arena("--help")
    assert done.returncode == 0
    assert "exit codes:" in done.stdout and "130  interrupted" in done.stdout and "141" in done.stdout


def test_a_reader_that_went_away_ends_the_command_without_a_traceback() -> None:
    """``arena solve klondike --deal 3 | head -1``: here the reader is gone
    before the command writes anything, so every write meets a closed pipe."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "server.cli", "solve", "klondike", "--deal", "3", "--budget", "2000"],
            cwd=ROOT, stdout=writer, stderr=subprocess.PIPE, text=True, timeout=120,
        )
    finally:
        os.close(writer)
    assert done.returncode == EXIT_BROKEN_PIPE, done.stderr
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr


def test_ctrl_c_ends_a_long_solve_with_130_and_no_traceback() -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTIBLE, "solve", "laras-game", "--deal", "1", "--budget", "100000000"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert process.stderr is not None
        first = process.stderr.readline()
        assert " nodes " in first, first
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == EXIT_INTERRUPTED, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


def test_a_solve_that_runs_out_of_budget_says_so_with_plain_progress_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "laras-game", "--deal", "1", "--budget", "3000"]) == 1
    captured = capsys.readouterr()
    assert "result: unknown" in captured.out
    err = captured.err
    assert "\r" not in err
    assert "/3000 nodes" in err and "found neither a win nor a proof" in err and "exit code 1" in err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_progress_rewrites_one_line_on_a_terminal_with_an_eta() -> None:
    stream, clock = _Terminal(), _Clock()
    line = ProgressLine(stream, clock)
    clock.now = 10.0
    line(25, 100, "deals")
    clock.now = 10.05
    line(26, 100, "deals")
    clock.now = 20.0
    line(50, 100, "deals")
    line.finish()
    assert stream.getvalue() == "\r\x1b[K25/100 deals  10 s, ETA 30 s\r\x1b[K50/100 deals  20 s, ETA 20 s\n"


def test_progress_writes_plain_lines_at_most_every_so_often_elsewhere() -> None:
    stream, clock = io.StringIO(), _Clock()
    line = ProgressLine(stream, clock, every=5.0, start=10)
    for second, done in ((1, 11), (2, 12), (6, 16), (7, 17), (90, 20)):
        clock.now = float(second)
        line(done, 20, "verified")
    line.finish()
    assert stream.getvalue().splitlines() == [
        "11/20 verified  1 s, ETA 9 s",
        "16/20 verified  6 s, ETA 4 s",
        "20/20 verified  1 min 30 s",
    ]


def test_progress_keeps_every_line_on_a_terminal_when_asked() -> None:
    stream, clock = _Terminal(), _Clock()
    line = ProgressLine(stream, clock, keep=True)
    for second, done in ((4, 1), (8, 2)):
        clock.now = float(second)
        line(done, 2, "runs")
    line.finish()
    assert stream.getvalue() == "1/2 runs  4 s, ETA 4 s\n2/2 runs  8 s\n"


def test_deals_verify_writes_to_the_current_directory_when_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An installed package (no pyproject.toml beside ``engine/``) is never
    the default target; a source checkout's writable ``engine/data`` is."""
    installed = tmp_path / "site-packages"
    monkeypatch.chdir(tmp_path)
    assert solve_command.default_pool_file("chequers", installed) == tmp_path / "chequers.txt"
    assert solve_command.default_pool_file("chequers") == solve_command.pool_path("chequers")
