"""Stopping the deal proofs (``server.runtime.workers.WorkerPool.close``):
no worker left behind, no traceback.

A SIGTERM during a proof used to print CPython 3.11's ``InvalidStateError``
from ``ProcessPoolExecutor.terminate_broken`` (the pool failing a future
the shutdown had cancelled, once the worker died of the same signal), and
the server's exit waited for the proof under way."""

from __future__ import annotations

import asyncio
import gc
import os
import pickle
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable

import pytest

from server.deals.proofs import DealProver
from server.runtime.workers import Lane, ProcessWorker, WorkerDied, WorkerPool, run_job

START_SECONDS = 120.0
"""Bounds a hang of a worker starting or of ``arena serve`` starting or stopping."""
ENDLESS_BUDGET = 10**12
"""Nodes no proof spends before the test stops it: the proof is under way when it does."""


def _stat(pid: str) -> tuple[str, int, int] | None:
    """(state, parent, process group) of ``pid``, None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    state, parent, group = text.rsplit(")", 1)[1].split()[:3]
    return state, int(parent), int(group)


def _live(match: int, field: int) -> set[int]:
    """Processes not yet ended (zombies count as ended) whose parent
    (``field`` 1) or process group (``field`` 2) is ``match``."""
    found = set()
    for entry in os.listdir("/proc"):
        stat = _stat(entry) if entry.isdigit() else None
        if stat is not None and stat[0] != "Z" and stat[field] == match:
            found.add(int(entry))
    return found


def _workers(parent: int) -> set[int]:
    """The spawned pool workers of ``parent`` (not its resource tracker)."""
    workers = set()
    for pid in _live(parent, 1):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if b"spawn_main" in command:
            workers.add(pid)
    return workers


def _running(pid: int) -> bool:
    stat = _stat(str(pid))
    return stat is not None and stat[0] != "Z"


async def _until(condition: Callable[[], object], what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START_SECONDS
    while not condition():
        assert loop.time() < deadline, what
        await asyncio.sleep(0.05)


async def test_close_ends_a_proof_under_way_and_its_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    failures: list[threading.ExceptHookArgs] = []
    monkeypatch.setattr(threading, "excepthook", failures.append)
    pool = WorkerPool({Lane.PROOF: 1})
    prover = DealProver(pool, ENDLESS_BUDGET, 50)
    proofs = [asyncio.ensure_future(prover.prove("klondike", {}, "secret", f"label {n}")) for n in range(4)]
    await _until(lambda: _workers(os.getpid()), "the proof's worker starts")
    workers = _workers(os.getpid())

    await pool.close()

    assert not any(_running(pid) for pid in workers), "close ended the worker"
    await asyncio.gather(*proofs, return_exceptions=True)
    assert [proof.cancelled() for proof in proofs] == [True] * 4
    assert failures == [], "no exception in the pool's thread"


async def test_a_worker_dead_before_its_job_leaves_no_error_for_asyncio_to_log() -> None:
    """The signal that stops the server can reach a worker still starting
    up: the job sent to it fails at once, and stopping that worker later
    must not fail a second, forgotten future (asyncio logs one that nobody
    read as an ERROR at exit)."""
    logged: list[dict[str, object]] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: logged.append(context))
    try:
        before = _workers(os.getpid())
        worker = ProcessWorker()
        (pid,) = _workers(os.getpid()) - before
        os.kill(pid, signal.SIGKILL)
        await _until(lambda: not _running(pid), "the worker is gone")

        with pytest.raises(WorkerDied, match="before a job"):
            await worker.run(pickle.dumps((run_job, (b"",))))
        await worker.stop()
        gc.collect()

        assert logged == []
    finally:
        loop.set_exception_handler(None)


async def test_sigterm_to_the_process_group_during_a_proof_prints_no_traceback() -> None:
    """What ``timeout``, Ctrl-C or a service manager do: the signal reaches
    the server and its workers at once (the keeper proves the dailies at
    start, so a proof is under way)."""
    environment = {**os.environ, "ARENA_PING_INTERVAL": "none", "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--memory", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment, start_new_session=True,
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        line = await asyncio.wait_for(asyncio.to_thread(process.stdout.readline), START_SECONDS)
        assert "listening on ws://" in line, line
        await _until(lambda: _workers(process.pid), "the keeper's proof worker starts")

        os.killpg(process.pid, signal.SIGTERM)

        assert await asyncio.to_thread(process.wait, START_SECONDS) == 0
        printed = process.stdout.read() + process.stderr.read()
        assert "Traceback" not in printed and " ERROR " not in printed, printed
        await _until(lambda: not _live(process.pid, 2), "every process of the server's group ends")
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


async def test_a_proof_after_its_worker_was_killed_starts_a_new_pool() -> None:
    """A worker killed outright (out of memory, say): the proofs it held
    fail, and the next proof runs in a new worker instead of failing for
    ever."""
    pool = WorkerPool({Lane.PROOF: 1})
    prover = DealProver(pool, 30_000, 50)
    try:
        await prover.prove("klondike", {"draw": 3}, "secret", "before the kill")
        (worker,) = _workers(os.getpid())
        os.kill(worker, signal.SIGKILL)
        await _until(lambda: not _running(worker), "the worker is gone")
        failures = 0
        for attempt in range(3):
            try:
                await asyncio.wait_for(prover.prove("klondike", {"draw": 3}, "secret", f"after the kill {attempt}"), START_SECONDS)
                break
            except WorkerDied:
                failures += 1
        assert failures < 3, "a new worker proves"
        assert _workers(os.getpid()) - {worker}, "in a new worker"
    finally:
        await pool.close()
