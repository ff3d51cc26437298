"""Proofs and analyses run where nothing may be written: the Docker
image's user, whose home does not exist, beside a package directory it
may not write.

The processes run as ``nobody`` (``setpriv``), with ``HOME=/nonexistent``
and without ``NUMBA_CACHE_DIR``: numba then has no directory to cache the
compiled kernel in and raises ``RuntimeError: cannot cache function ...:
no locator available`` as the kernel is imported (the first test checks
that this setting still reproduces it).  ``nobody`` keeps one capability,
reading any file, so that it can run this checkout's Python (under
``/root`` here) without being able to write anything of it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.server.arena_wire import WireClient

from protocol import to_server as ts

REPO_ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534
START_SECONDS = 120.0
"""Bounds a hang only: the server prints its address as soon as it listens."""
PURE_WARNING = "the compiled WordLink proof search is off"

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="running a process as another user needs root and setpriv",
)


def as_nobody(
    *arguments: str, cache_dir: Path | None = None, data_dir: Path | None = None
) -> tuple[list[str], dict[str, str]]:
    """``python arguments`` as ``nobody`` with an unwritable home, and its
    environment; ``data_dir`` is the server's, as the image's
    ``ARENA_DATA_DIR`` volume gives it one (the default under the home
    cannot be made there)."""
    environment = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": "/nonexistent",
        "PYTHONPATH": str(REPO_ROOT),
        "PYTHONUNBUFFERED": "1",
        "ARENA_PING_INTERVAL": "none",
    }
    if cache_dir is not None:
        environment["NUMBA_CACHE_DIR"] = str(cache_dir)
    if data_dir is not None:
        environment["ARENA_DATA_DIR"] = str(data_dir)
    command = [
        "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
        "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search",
        sys.executable, *arguments,
    ]
    return command, environment


def run_as_nobody(*arguments: str, cache_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    command, environment = as_nobody(*arguments, cache_dir=cache_dir)
    return subprocess.run(command, env=environment, cwd="/", capture_output=True, text=True, timeout=600)


def test_this_setting_leaves_numba_nowhere_to_cache() -> None:
    imported = run_as_nobody("-c", "import engine.solver.klondike_kernel")
    assert imported.returncode != 0
    assert "cannot cache function" in imported.stderr and "no locator available" in imported.stderr, imported.stderr


def test_a_solve_falls_back_to_pure_python_with_one_warning() -> None:
    solved = run_as_nobody("-m", "server.cli", "solve", "klondike", "--deal", "3")
    assert solved.returncode == 0, solved.stderr
    assert solved.stdout.splitlines()[1] == "result: won"
    assert solved.stderr.count(PURE_WARNING) == 1, solved.stderr
    assert "Traceback" not in solved.stderr


def test_a_broken_deck_practice_solve_falls_back_to_the_python_search_with_one_warning() -> None:
    script = (
        "import logging; logging.basicConfig(); from engine.solver import solve;"
        " from engine.solver.certify import seeded_game;"
        " print(solve(seeded_game('broken-deck', 1, 1002, {'practice': True})).result)"
    )
    solved = run_as_nobody("-c", script)
    assert solved.returncode == 0, solved.stderr
    assert solved.stdout.strip() == "won"
    assert solved.stderr.count("the compiled Broken Deck search is off") == 1, solved.stderr
    assert "Traceback" not in solved.stderr


def test_a_solve_compiles_into_numba_cache_dir(tmp_path: Path) -> None:
    cache_dir = tmp_path / "numba"
    cache_dir.mkdir()
    os.chown(cache_dir, NOBODY, NOBODY)
    os.chmod(tmp_path, 0o755)
    solved = run_as_nobody("-m", "server.cli", "solve", "klondike", "--deal", "3", cache_dir=cache_dir)
    assert solved.returncode == 0, solved.stderr
    assert solved.stdout.splitlines()[1] == "result: won"
    assert PURE_WARNING not in solved.stderr, solved.stderr
    assert list(cache_dir.rglob("*.nbi")), "numba cached the kernel where it was told to"


async def test_a_finished_wordlink_game_is_analysed(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    os.chown(data_dir, NOBODY, NOBODY)
    os.chmod(tmp_path, 0o755)
    command, environment = as_nobody("-m", "server.cli", "serve", "--port", "0", data_dir=data_dir)
    process = subprocess.Popen(command, env=environment, cwd="/", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(process.stdout.readline), START_SECONDS)
        assert "listening on ws://" in line, line
        client = await WireClient.open(line.split()[-1])
        await client.hello()
        started, _ = await client.new_game(deal=3)
        resigned = await client.request(ts.Resign, game_id=started.game_id)
        assert resigned.type == "diff", resigned
        analysis = await client.request(ts.Analyse, START_SECONDS, game_id=started.game_id)
        assert analysis.type == "analysis", analysis
        await client.close()
    finally:
        process.kill()
        process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
