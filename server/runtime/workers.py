"""The one pool of worker processes every solver search runs in: hints,
finishing searches, post-game analyses and deal proofs.

A search is pure Python that runs for up to seconds.  In a thread of the
server process it holds the interpreter lock the event loop needs for
every connection: 200 players at 2 moves a second went from p99 4.2 ms
to 104 ms while 4 clients asked for Broken Deck hints.  So every search
runs in a spawned worker process, at a lower CPU priority than the server
(``Settings.worker_niceness``: the searches yield the CPU to the moves), and the
event loop only pickles a job's inputs and awaits its ``Answer``.

Lanes.  The workers are in three lanes, sized by the settings:
``search_workers`` for hints and finishing searches, ``analysis_slots``
for analyses and ``deal_workers`` for deal proofs.  A job runs only in
its own lane, since a running search cannot be interrupted: so a hint
never waits for a proof of seconds, nor a player's daily for a long
analysis.  A job with a key always runs on the same worker of its lane
(a game's hints go to the worker that keeps that game rebuilt,
``server.runtime.searches``); a job without one takes any free worker.

Priority.  A worker runs one job at a time, and the jobs waiting are
started in one order (``Priority``), then in the order asked: a hint or
finishing search a player waits for at the board; a deal proof a player
waits for; an analysis; today's dailies on a fresh server; tomorrow's;
the race deals kept in stock.  A job asked again more urgently before it
started moves up (``WorkerPool.hasten``).  Within a priority, askers (a
hint's client address) take turns: one whose jobs have started more goes
behind, so many identities of one address queue behind each other.

Life.  A worker starts with the first job of its place in the pool (a
server nobody asks for a search starts no process) and uses ``spawn``:
forking a process that runs an event loop and threads copies locks in
unknown states.  It imports the solver afresh, so WordLink's compiled
search (``engine.solver.compiled``) is loaded, or falls back to pure
Python, in each worker at its first WordLink search.  A worker that dies
(killed, out of memory) fails the job it held, and the next job of its
place starts a new one.  ``WorkerPool.close`` kills every worker at once:
a proof runs for seconds and nobody waits for its answer any more.
"""

from __future__ import annotations

import asyncio
import functools
import multiprocessing
import multiprocessing.util
import os
import pickle
import signal
import threading
import time
import traceback
import zlib
from collections import Counter
from dataclasses import dataclass
from enum import Enum, IntEnum
from multiprocessing.connection import Connection
from typing import Any, Callable, Mapping, NamedTuple, Protocol, Self

from server.runtime.settings import DEFAULT_WORKER_NICENESS, Settings

PARENT_CHECK_SECONDS = 1.0
"""How often a worker checks that the server process that started it lives."""

class Lane(Enum):
    """Which workers a job may run on (see the module's docstring); each
    lane's value names the setting that sizes it."""

    SEARCH = "search_workers"
    ANALYSIS = "analysis_slots"
    PROOF = "deal_workers"


class Priority(IntEnum):
    """The one order in which waiting jobs start, most urgent first."""

    SEARCH = 0
    """A hint or a finishing search: a player at the board waits for it."""
    PLAYER = 1
    """A deal proof a player asked for and waits for."""
    ANALYSIS = 2
    """A post-game analysis."""
    TODAY = 3
    """Today's dailies, proven by a server that just started."""
    AHEAD = 4
    """Tomorrow's dailies, proven ahead."""
    STOCK = 5
    """Secret race deals kept proven in stock."""

    @property
    def lane(self) -> Lane:
        if self is Priority.SEARCH:
            return Lane.SEARCH
        return Lane.ANALYSIS if self is Priority.ANALYSIS else Lane.PROOF


class Answer(NamedTuple):
    """What a job returns: its ``value``, the ``pid`` of the worker that ran it and the seconds
    the job itself took (the metrics time searches, not queues; tests tell where an answer came from)."""

    value: Any
    pid: int
    seconds: float


class WorkerDied(RuntimeError):
    """The worker running a job ended before answering (killed, out of memory)."""


def run_job(payload: bytes) -> bytes:
    """Run the job pickled in ``payload`` (``WorkerPool.submit``) where this is called, and pickle
    its ``Answer`` or its error.  An error keeps its traceback as a note (the object cannot cross)."""
    started = time.perf_counter()
    try:
        job, args = pickle.loads(payload)
        return pickle.dumps((Answer(job(*args), os.getpid(), time.perf_counter() - started), None))
    except Exception as error:
        error.add_note(traceback.format_exc())
        try:
            return pickle.dumps((None, error))
        except Exception:
            return pickle.dumps((None, RuntimeError(f"{type(error).__name__}: {error}")))


def answer_of(outcome: bytes) -> Answer:
    """The ``Answer`` that ``run_job`` pickled, or its error raised."""
    answer, error = pickle.loads(outcome)
    if error is not None:
        raise error
    result: Answer = answer
    return result


def serve(pipe: Connection, server: int, niceness: int) -> None:
    """A worker process: run the jobs that come down ``pipe`` one at a time
    until the server closes it.

    The worker yields the CPU to the server process, and ends when the
    server process does: a server that is killed (SIGKILL, an
    out-of-memory kill) never closes its pool, and a worker blocked on
    its pipe would otherwise outlive it for ever.  It is deaf to SIGINT
    and SIGTERM: those reach the whole process group (Ctrl-C, ``timeout``,
    a service manager stopping a unit), and a worker that died of one
    mid-search failed the search a player was waiting for, under the
    server's own orderly shutdown.  The server ends its workers itself."""
    os.nice(niceness)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.Thread(target=_end_with, args=(server,), name="end with the server", daemon=True).start()
    while True:
        try:
            payload = pipe.recv_bytes()
        except EOFError:
            return
        pipe.send_bytes(run_job(payload))


def _end_with(server: int) -> None:
    while os.getppid() == server:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(0)


class Worker(Protocol):
    """Runs one job at a time (``ProcessWorker``; tests of the server's
    rules in memory give a thread instead, the same jobs pickled the same
    way, without a process to start per test)."""

    def alive(self) -> bool: ...

    async def run(self, payload: bytes) -> Answer: ...

    async def stop(self) -> None: ...


def _kill(process: multiprocessing.process.BaseProcess) -> None:
    if process.is_alive():
        process.kill()
    process.join()


class ProcessWorker:
    """One spawned worker process (``serve``) and the pipe to it."""

    def __init__(self, niceness: int = DEFAULT_WORKER_NICENESS) -> None:
        context = multiprocessing.get_context("spawn")
        self._pipe, theirs = context.Pipe()
        self._process = context.Process(target=serve, args=(theirs, os.getpid(), niceness), name="arena worker")
        self._process.start()
        theirs.close()
        self._outcome: asyncio.Future[bytes] | None = None
        """The answer of the job under way."""
        # Killed when dropped, and at exit before multiprocessing joins its
        # children: a worker waiting on its pipe would hold the exit for ever.
        multiprocessing.util.Finalize(self, _kill, args=(self._process,), exitpriority=10)

    def alive(self) -> bool:
        return self._process.is_alive()

    async def run(self, payload: bytes) -> Answer:
        try:
            self._pipe.send_bytes(payload)
        except OSError as error:
            raise WorkerDied(f"worker {self._process.pid} ended before a job") from error
        loop = asyncio.get_running_loop()
        outcome = self._outcome = loop.create_future()
        loop.add_reader(self._pipe.fileno(), self._readable)
        return answer_of(await outcome)

    def _readable(self) -> None:
        try:
            outcome = self._pipe.recv_bytes()
        except (EOFError, OSError):
            self._ended()
        else:
            self._answered().set_result(outcome)

    def _answered(self) -> asyncio.Future[bytes]:
        asyncio.get_running_loop().remove_reader(self._pipe.fileno())
        outcome, self._outcome = self._outcome, None
        assert outcome is not None, "a reader is added for a job only"
        return outcome

    def _ended(self) -> None:
        if self._outcome is not None:
            self._answered().set_exception(WorkerDied(f"worker {self._process.pid} ended during a job"))

    async def stop(self) -> None:
        """Kill the process now and wait until it is gone; the job it ran fails."""
        await asyncio.to_thread(_kill, self._process)
        self._ended()
        self._pipe.close()


@dataclass(eq=False)
class Job:
    """A job asked of the pool; ``answer`` is set once it ran."""

    priority: Priority
    order: int
    key: str | None
    name: str
    payload: bytes
    answer: asyncio.Future[Answer]
    started: float | None = None
    """When a worker took it (``time.monotonic``); None while it waits."""
    asker: str | None = None
    """Whose request it is: waiting jobs of one priority take turns between askers."""


@dataclass(eq=False)
class _Place:
    """One worker's place in a lane: its worker (None until needed) and the job it runs."""

    worker: Worker | None = None
    job: Job | None = None


class WorkerPool:
    """Every search and proof of this process, in worker processes (see
    the module's docstring: lanes, ``Priority``, a worker's life)."""

    def __init__(self, sizes: Mapping[Lane, int], start_worker: Callable[[], Worker] = ProcessWorker) -> None:
        self._start_worker = start_worker
        self._lanes = {lane: [_Place() for _ in range(sizes.get(lane, 0))] for lane in Lane}
        self._waiting: list[Job] = []
        self._turns: Counter[tuple[Priority, str | None]] = Counter()  # started, per asker with more waiting
        self._asked = 0
        self._stopping: set[asyncio.Task[None]] = set()
        self.jobs: Counter[str] = Counter()
        """Jobs answered, by job function name."""
        self.pids: set[int] = set()
        """The workers that answered."""

    @classmethod
    def sized(cls, settings: Settings, start_worker: Callable[[], Worker] | None = None) -> Self:
        """The pool with each lane as large as its setting says, of
        processes as nice as ``worker_niceness`` says (or ``start_worker``'s)."""
        if start_worker is None:
            start_worker = functools.partial(ProcessWorker, settings.worker_niceness)
        return cls({lane: getattr(settings, lane.value) for lane in Lane}, start_worker)

    def size(self, lane: Lane) -> int:
        return len(self._lanes[lane])

    def submit(self, priority: Priority, key: str | None, job: Callable[..., Any], *args: Any, asker: str | None = None) -> Job:
        """Queue ``job(*args)`` in the lane of ``priority`` (on the worker
        ``key`` names, if any), taking turns with other askers' jobs.  The
        arguments are pickled here and now, not when a worker is free: the
        job sees the state at the time it was asked."""
        if not self._lanes[priority.lane]:
            raise ValueError(f"the pool has no {priority.lane.value} for a job of priority {priority.name}")
        self._asked += 1
        payload = pickle.dumps((job, args), pickle.HIGHEST_PROTOCOL)
        queued = Job(priority, self._asked, key, job.__name__, payload, asyncio.get_running_loop().create_future(), asker=asker)
        self._waiting.append(queued)
        self._dispatch()
        return queued

    async def run(self, priority: Priority, key: str | None, job: Callable[..., Any], *args: Any, asker: str | None = None) -> Answer:
        """``submit`` and wait for the answer; a caller that stops waiting
        withdraws the job if it has not started yet."""
        queued = self.submit(priority, key, job, *args, asker=asker)
        try:
            return await asyncio.shield(queued.answer)
        except asyncio.CancelledError:
            if queued.started is None and queued in self._waiting:
                self._waiting.remove(queued)
                queued.answer.cancel()
            raise

    def hasten(self, job: Job, priority: Priority) -> None:
        """Move a job that has not started up to ``priority`` (in its lane)."""
        if job.started is None and priority < job.priority and priority.lane is job.priority.lane:
            job.priority = priority
            self._dispatch()

    def _dispatch(self) -> None:
        for job in self._queue():
            place = self._free_place(job)
            if place is not None:
                self._waiting.remove(job)
                self._start(place, job)

    def _queue(self) -> list[Job]:
        """The waiting jobs in the order they may start: by priority, then by how many of its asker's
        jobs started or wait before it (no asker: 0), then as asked; an asker with none waiting starts afresh."""
        waiting = {(job.priority, job.asker) for job in self._waiting}
        self._turns = Counter({key: count for key, count in self._turns.items() if key in waiting})
        turns, ranked = self._turns.copy(), list[tuple[Priority, int, int, Job]]()
        for job in sorted(self._waiting, key=lambda waiting: waiting.order):
            ranked.append((job.priority, turns[job.priority, job.asker] if job.asker is not None else 0, job.order, job))
            turns[job.priority, job.asker] += 1
        ranked.sort(key=lambda entry: entry[:3])
        return [job for *_, job in ranked]

    def _free_place(self, job: Job) -> _Place | None:
        places = self._lanes[job.priority.lane]
        if job.key is not None:
            home = places[zlib.crc32(job.key.encode()) % len(places)]
            return home if home.job is None else None
        return next((place for place in places if place.job is None), None)

    def _start(self, place: _Place, job: Job) -> None:
        if job.asker is not None:
            self._turns[job.priority, job.asker] += 1
        if place.worker is not None and not place.worker.alive():
            self._stop(place.worker)
            place.worker = None
        try:
            worker = place.worker = place.worker or self._start_worker()
        except Exception as error:
            job.answer.set_exception(error)
            return
        place.job = job
        job.started = time.monotonic()
        running = asyncio.ensure_future(worker.run(job.payload))
        running.add_done_callback(lambda done: self._finished(place, worker, job, done))

    def _finished(self, place: _Place, worker: Worker, job: Job, running: asyncio.Future[Answer]) -> None:
        """A job's outcome.  Its error is always taken, even when nobody
        waits any more: asyncio would log it as never retrieved."""
        error = None if running.cancelled() else running.exception()
        if place.job is job:
            place.job = None
        if isinstance(error, WorkerDied) and place.worker is worker:
            place.worker = None
            self._stop(worker)
        if not job.answer.done():
            if running.cancelled():
                job.answer.cancel()
            elif error is not None:
                job.answer.set_exception(error)
            else:
                answer = running.result()
                self.jobs[job.name] += 1
                self.pids.add(answer.pid)
                job.answer.set_result(answer)
        self._dispatch()

    def _stop(self, worker: Worker) -> None:
        stopping = asyncio.ensure_future(worker.stop())
        self._stopping.add(stopping)
        stopping.add_done_callback(self._stopping.discard)

    async def close(self) -> None:
        """Stop every worker now, abandoning the jobs asked for (whoever
        awaits one is cancelled), and return once no worker is left.  A
        job after this starts new workers."""
        waiting, self._waiting = self._waiting, []
        for job in waiting:
            job.answer.cancel()
        for places in self._lanes.values():
            for place in places:
                if place.job is not None:
                    place.job.answer.cancel()
                if place.worker is not None:
                    self._stop(place.worker)
                    place.worker = None
        await asyncio.gather(*self._stopping, return_exceptions=True)
