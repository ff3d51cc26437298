"""The one worker pool (``server.runtime.workers``): waiting jobs start in
``Priority`` order within their lane, a lane never waits for another, and
a job's error reaches whoever asked.  Its workers here are threads
(``ThreadWorker``); the processes' life has its own tests
(``tests/server/test_server_search_pool.py``, ``test_deal_prover_close.py``)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from tests.server.arena_memory import ThreadWorker

from server.runtime.workers import Job, Lane, Priority, WorkerPool

HANG_SECONDS = 60.0
"""Bounds a hang only: every wait below ends on an event."""
HELD = threading.Event()
"""What ``held`` waits for: the test decides when the job under way ends."""


def echo(value: str) -> str:
    return value


def held(value: str) -> str:
    HELD.wait(HANG_SECONDS)
    return value


def failing(message: str) -> None:
    raise LookupError(message)


@pytest.fixture
async def pool() -> WorkerPool:
    HELD.clear()
    return WorkerPool({Lane.SEARCH: 1, Lane.ANALYSIS: 1, Lane.PROOF: 1}, ThreadWorker)


async def _answers_in_order(pool: WorkerPool, asked: list[tuple[Priority, str]]) -> list[str]:
    """Hold the proof lane's worker, queue ``asked`` behind it, release it,
    and return the values in the order they were answered."""
    answered: list[str] = []
    try:
        async with asyncio.timeout(HANG_SECONDS):
            first = pool.submit(Priority.STOCK, None, held, "under way")
            jobs = [pool.submit(priority, None, echo, value) for priority, value in asked]
            for job in (first, *jobs):
                job.answer.add_done_callback(lambda done: answered.append(done.result().value))
            HELD.set()
            await asyncio.gather(*(job.answer for job in (first, *jobs)))
    finally:
        HELD.set()
        await pool.close()
    return answered


async def _answered_once_released(first: Job, later: list[Job]) -> list[str]:
    """Release ``first`` (a ``held`` job under way) and return the values of
    ``later`` in the order they were answered."""
    answered: list[str] = []
    for job in later:
        job.answer.add_done_callback(lambda done: answered.append(done.result().value))
    HELD.set()
    async with asyncio.timeout(HANG_SECONDS):
        await asyncio.gather(first.answer, *(job.answer for job in later))
    return answered


async def test_waiting_proofs_start_most_urgent_first_then_in_the_order_asked(pool: WorkerPool) -> None:
    asked = [(Priority.STOCK, "stock"), (Priority.AHEAD, "tomorrow"), (Priority.TODAY, "today"), (Priority.PLAYER, "player"),
             (Priority.TODAY, "today again")]
    assert await _answers_in_order(pool, asked) == ["under way", "player", "today", "today again", "tomorrow", "stock"]


async def test_a_queued_job_asked_again_more_urgently_moves_up(pool: WorkerPool) -> None:
    try:
        first = pool.submit(Priority.STOCK, None, held, "under way")
        later = [pool.submit(Priority.AHEAD, None, echo, value) for value in ("a", "b")]
        pool.hasten(later[1], Priority.PLAYER)
        pool.hasten(first, Priority.PLAYER)
        assert (later[1].priority, first.priority) == (Priority.PLAYER, Priority.STOCK), "a job under way keeps its place"
        assert await _answered_once_released(first, later) == ["b", "a"]
    finally:
        HELD.set()
        await pool.close()


async def test_a_hint_and_an_analysis_do_not_wait_for_a_proof_under_way(pool: WorkerPool) -> None:
    try:
        proof = pool.submit(Priority.PLAYER, None, held, "proof")
        async with asyncio.timeout(HANG_SECONDS):
            hint = await pool.run(Priority.SEARCH, "g_1", echo, "hint")
            analysis = await pool.run(Priority.ANALYSIS, None, echo, "analysis")
        assert (hint.value, analysis.value) == ("hint", "analysis")
        assert not proof.answer.done()
        HELD.set()
        async with asyncio.timeout(HANG_SECONDS):
            assert (await proof.answer).value == "proof"
        assert dict(pool.jobs) == {"echo": 2, "held": 1}
    finally:
        HELD.set()
        await pool.close()


async def test_a_jobs_error_reaches_whoever_asked_and_the_worker_goes_on(pool: WorkerPool) -> None:
    try:
        async with asyncio.timeout(HANG_SECONDS):
            with pytest.raises(LookupError, match="no such deal"):
                await pool.run(Priority.SEARCH, "g_1", failing, "no such deal")
            assert (await pool.run(Priority.SEARCH, "g_1", echo, "after")).value == "after"
    finally:
        await pool.close()


async def test_close_abandons_the_waiting_jobs(pool: WorkerPool) -> None:
    first = pool.submit(Priority.STOCK, None, held, "under way")
    waiting = pool.submit(Priority.STOCK, None, echo, "waiting")
    closing = asyncio.ensure_future(pool.close())
    HELD.set()
    async with asyncio.timeout(HANG_SECONDS):
        await closing
    assert first.answer.cancelled() and waiting.answer.cancelled()


async def test_a_lane_without_workers_refuses_a_job() -> None:
    pool = WorkerPool({Lane.PROOF: 1}, ThreadWorker)
    with pytest.raises(ValueError, match="search_workers"):
        pool.submit(Priority.SEARCH, "g_1", echo, "hint")


async def test_waiting_jobs_of_one_priority_take_turns_between_askers(pool: WorkerPool) -> None:
    try:
        first = pool.submit(Priority.SEARCH, None, held, "under way", asker="A")
        later = [
            pool.submit(Priority.SEARCH, None, echo, value, asker=asker)
            for value, asker in (("a1", "A"), ("a2", "A"), ("a3", "A"), ("b1", "B"), ("none", None), ("c1", "C"), ("b2", "B"))
        ]
        answered = await _answered_once_released(first, later)
        assert answered == ["b1", "none", "c1", "a1", "b2", "a2", "a3"], "A's first job had started: the others go first"
    finally:
        HELD.set()
        await pool.close()
