"""Solver searches in worker processes: hints, finishing and analyses.

A search is pure Python that runs for up to seconds.  In a thread of the
server process it holds the interpreter lock the event loop needs for
every connection: 200 players at 2 moves a second went from p99 4.2 ms
to 104 ms while 4 clients asked for Broken Deck hints.  So searches run
in spawned worker processes (``SearchPool``), at a lower CPU priority
than the server (``WORKER_NICENESS``), and the event loop only pickles
their inputs and awaits the answer.

A worker is given data, never the live ``Game`` (which the room goes on
changing, and which cannot cross a process boundary anyway):

- a hint (``hint_job``): the session header and its log.  A hint depends
  on more than the board (the boards already seen, which it never
  returns to; the previous move; the plan the last hint came from, which
  ``engine.solver.assist`` keeps with the game object), and replaying the
  log rebuilds exactly the game the room holds, so the hint is the one
  that game would give.  A game's hints always go to the same worker
  (``SearchPool.run`` by key), which keeps the games it rebuilt
  (``GAMES_KEPT``): the pool sends only the entries logged since the
  game's last hint (``SearchPool.hint``; logs only grow), so a hint costs
  the event loop the same early in a game as after a thousand moves, and
  a trail of hints goes on with its plan as it did in one process.  A
  worker that no longer holds the game (restarted, or it forgot it) says
  so, and the whole log follows.
- a finishing search (``finish_job``): the header (for the rules and the
  difficulty) and the immutable ``Position`` to search.
- an analysis (``analysis_job``): the header and the line played.

Every job answers with its value, the worker's process id and the
seconds the search itself took (``Answer``): the metrics time searches,
not queues, and the tests can tell that an answer came from a worker.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import pickle
import signal
import threading
import time
import zlib
from collections import Counter, OrderedDict
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, NamedTuple, Sequence

from engine.game import Position
from engine.solver import Analysis, analyse, auto_finish
from engine.solver.assist import has_plan, hint_for_view
from server.model.session import Session, build_game
from server.model.records import Action, SessionHeader

GAMES_KEPT = 256
"""Rebuilt games a worker keeps for the next hint of the same game."""
PARENT_CHECK_SECONDS = 1.0
"""How often a worker checks that the server process that started it lives."""
WORKER_NICENESS = 10
"""How much lower a worker's CPU priority is: when a search and the event
loop both want a core, the event loop (every connection's moves) wins and
the search (one player's hint) waits."""


class Answer(NamedTuple):
    """What a job returns: its ``value``, the ``pid`` of the worker that
    searched and the search's own ``seconds``."""

    value: Any
    pid: int
    seconds: float


class _Kept(NamedTuple):
    length: int
    last: Action | None
    session: Session
    planless: bool = False
    """Its last hint found no winning line to go on with (``has_plan``)."""


_KEPT: OrderedDict[str, _Kept] = OrderedDict()
"""This worker's rebuilt games by game id, least recently hinted first."""


def background_worker(server: int) -> None:
    """Worker initializer (searches here, deal proofs in
    ``server.deals.proofs``): yield the CPU to the server process, and end
    when the server process does.  A server that is killed (SIGKILL, an
    out-of-memory kill) never shuts its pool down, and a worker blocked
    on its queue would otherwise outlive it for ever.

    Deaf to SIGINT and SIGTERM: those reach the whole process group
    (Ctrl-C, ``timeout``, a service manager stopping a unit), and a worker
    that died of one mid-search broke its pool under the server's own
    shutdown, which then failed futures the shutdown had cancelled
    (CPython 3.11 printed an ``InvalidStateError`` traceback) or, before
    that, failed the search a player was waiting for.  The server ends its
    workers itself when it closes."""
    os.nice(WORKER_NICENESS)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.Thread(target=_end_with, args=(server,), name="end with the server", daemon=True).start()


def _end_with(server: int) -> None:
    while os.getppid() == server:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(0)


def _replayed(header: SessionHeader, known: int, entries: tuple[Action, ...], last: Action | None) -> _Kept | None:
    """The session after the first ``known`` entries of its log (sent
    before; the last of them ``last``) and then ``entries``: from the kept
    session, or replayed when ``known`` is 0.  None when this worker does
    not hold the game as it was after ``known`` entries."""
    kept = _KEPT.pop(header.game_id, None)
    if known == 0:
        # The game replayed from the start goes on from the one kept (its
        # hint found no win, say) when the kept log begins the new one.
        planless = (
            kept is not None and kept.planless and kept.length <= len(entries)
            and (kept.length == 0 or entries[kept.length - 1] == kept.last)
        )
        kept = _Kept(len(entries), entries[-1] if entries else None, Session.replay(header, list(entries)), planless)
    elif kept is not None and kept.length == known and kept.last == last:
        for action in entries:
            kept.session.apply_committed(action)
        kept = kept._replace(length=known + len(entries), last=entries[-1] if entries else last)
    else:
        return None
    _KEPT[header.game_id] = kept
    while len(_KEPT) > GAMES_KEPT:
        _KEPT.popitem(last=False)
    return kept


def _unpickled(payload: bytes) -> Answer:
    """Run the job pickled in ``payload`` (see ``SearchPool.run``)."""
    job, args = pickle.loads(payload)
    return job(*args)


def _answer(started: float, value: Any) -> Answer:
    return Answer(value, os.getpid(), time.perf_counter() - started)


def hint_job(
    header: SessionHeader, known: int, entries: tuple[Action, ...], last: Action | None, planless_nodes: int | None = None
) -> Answer:
    """The hint's move as notation ("" for none) in the game of ``header``
    after its log's first ``known`` entries and ``entries``
    (``_replayed``): ``hint_for_view``, the player's view only.  None
    when this worker does not hold those first entries.

    A game whose last hint found no winning line searches at most
    ``planless_nodes`` (``hint_planless_nodes``): its full budget was just
    spent from a position a move or so away without a win, so the next
    full search most likely fails the same way, and a player asking
    again and again would hold a worker's core for a second a hint
    (Broken Deck).  A capped search that finds a win lifts the cap."""
    started = time.perf_counter()
    kept = _replayed(header, known, entries, last)
    if kept is None:
        return _answer(started, None)
    found = hint_for_view(kept.session.game, planless_nodes if kept.planless else None)
    _KEPT[header.game_id] = kept._replace(planless=not has_plan(kept.session.game))
    return _answer(started, "" if found is None else str(found))


def finish_job(header: SessionHeader, position: Position, budget: int) -> Answer:
    """A proven path to the foundations from ``position`` as notation, or
    None (``engine.solver.auto_finish`` within ``budget`` nodes)."""
    started = time.perf_counter()
    found = auto_finish(build_game(header), budget, position)
    return _answer(started, None if found is None else tuple(str(move) for move in found))


def analysis_job(header: SessionHeader, line: list[str], budget: int) -> Answer:
    """Where the game of ``header`` played along ``line`` stopped being
    winnable (``engine.solver.analyse``, ``budget`` nodes per position)."""
    started = time.perf_counter()
    dealt = build_game(header)
    start = dealt.position if header.position is not None or header.seed is not None else None
    analysis: Analysis = analyse(header.game, dealt.deal, header.options, line, budget, start)
    return _answer(started, analysis)


def spawned_worker() -> Executor:
    """One worker process, spawned (see ``SearchPool``)."""
    return ProcessPoolExecutor(
        1, mp_context=multiprocessing.get_context("spawn"), initializer=background_worker, initargs=(os.getpid(),)
    )


class SearchPool:
    """``workers`` worker processes, each its own single-process executor
    so that a job with a key always goes to the same one.

    They start with the first job (a server nobody asks for a search
    starts no process) and use ``spawn``: forking a process that runs an
    event loop and threads copies locks in unknown states.  A worker that
    dies is replaced at the next job; the job it held fails.
    """

    def __init__(self, workers: int, start_worker: Callable[[], Executor] = spawned_worker) -> None:
        self._start_worker = start_worker
        """Starts one worker.  Tests of the server's rules in memory give a
        thread instead (``tests/server/arena_memory.py``): the same jobs,
        pickled the same way, without a process to start per test."""
        self._executors: list[Executor | None] = [None] * workers
        self._busy = [0] * workers
        self.jobs: Counter[str] = Counter()
        """Jobs answered, by job function name."""
        self.pids: set[int] = set()
        """The workers that answered."""
        self._sent: OrderedDict[str, int] = OrderedDict()
        """Per game, how many log entries its worker was last sent."""

    async def run(self, key: str | None, job: Callable[..., Answer], *args: Any) -> Answer:
        """Run ``job(*args)`` in a worker: the one ``key`` names (always the
        same for the same key), or with no key the least busy one.  The
        arguments are pickled here and now, not when the executor gets to
        them: the worker searches the state at the time of the request."""
        index = zlib.crc32(key.encode()) % len(self._executors) if key is not None else self._busy.index(min(self._busy))
        executor = self._executors[index]
        if executor is None:
            executor = self._executors[index] = self._start_worker()
        self._busy[index] += 1
        try:
            payload = pickle.dumps((job, args), pickle.HIGHEST_PROTOCOL)
            answer: Answer = await asyncio.get_running_loop().run_in_executor(executor, _unpickled, payload)
        except BrokenProcessPool:
            if self._executors[index] is executor:
                self._executors[index] = None
            raise
        finally:
            self._busy[index] -= 1
        self.jobs[job.__name__] += 1
        self.pids.add(answer.pid)
        return answer

    async def hint(self, header: SessionHeader, log: Sequence[Action], planless_nodes: int | None = None) -> str:
        """The hint's move as notation ("" for none) for the game of
        ``header`` after ``log`` (``hint_job``, searching at most
        ``planless_nodes`` after a hint that found no win), sending its
        worker only the entries logged since the last hint, or the whole
        log when the worker no longer holds the rest."""
        game_id = header.game_id
        known = self._sent.pop(game_id, 0)
        if known > len(log):
            known = 0
        entries = tuple(log[known:])
        answer = await self.run(game_id, hint_job, header, known, entries, log[known - 1] if known else None, planless_nodes)
        if answer.value is None:
            answer = await self.run(game_id, hint_job, header, 0, tuple(log), None, planless_nodes)
        self._sent[game_id] = len(log)
        while len(self._sent) > GAMES_KEPT * len(self._executors):
            self._sent.popitem(last=False)
        return str(answer.value)

    async def close(self) -> None:
        """Stop the workers: jobs not yet started are dropped, a search
        under way ends first (node budgets bound it) so that no process
        outlives the pool.  A job after this starts new workers."""
        executors = [executor for executor in self._executors if executor is not None]
        self._executors = [None] * len(self._executors)
        for executor in executors:
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)


@dataclass(frozen=True)
class Searchers:
    """The assists' two pools: ``hints`` for hints and finishing,
    ``analyses`` for post-game analysis, so a long analysis never holds up
    a hint.  Injected beside the clock and the scheduler, so that a test
    can hold a real search at a point it chooses instead of hoping a slow
    one is still running when its next request arrives."""

    hints: SearchPool
    analyses: SearchPool

    @classmethod
    def sized(cls, hint_workers: int, analysis_workers: int, start_worker: Callable[[], Executor] = spawned_worker) -> Searchers:
        return cls(SearchPool(hint_workers, start_worker), SearchPool(analysis_workers, start_worker))
