"""Ranked deals: secret seeds, proven winnable before anyone sees them.

A deal that ranks (a daily, a race's daily or winnable deal) must not be
identifiable from its first board.  Numbered deals cannot give that: the
generator is public, the pools are public, and the seven face-up cards of
a WordLink deal pick one deal out of millions in seconds.  So a ranked
deal is a raw 64-bit shuffle seed (``engine.seeded_game``):

    seed = first 8 bytes of HMAC-SHA256(server secret, "LABEL/ATTEMPT")

where ``LABEL`` names what the deal is for (``daily/GAME/VARIANT/DATE`` or
``race/GAME/VARIANT/TOKEN``) and ``ATTEMPT`` counts 0, 1, 2… until the
server's own solver wins the layout and the win replays through the
checked engine (``Game.play``).  2^64 seeds cannot be tabulated, and
without the secret nobody can compute them.  The winning line is kept
with the deal in the store and revealed with the seed.

Proofs are solver searches of up to a few seconds each, so they run in a
process pool (``deal_workers`` processes) and never on the interpreter
the event loop shares with every connection.  A proof is a pure function
of its inputs (node budgets, not seconds, bound the search), so two
processes that prove the same label at once reach the same seed; the
store's first write decides which record is kept anyway.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import heapq
import hmac
import multiprocessing
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import engine
from engine.solver.driver import solve
from engine.solver.search import WON
from server.runtime.searches import background_worker

SEED_BYTES = 8
"""64 secret bits: the generator's whole seed."""
PROVEN_CACHE = 256
"""Proofs kept per process: the same label asked again is not searched again."""
TIMED_PROOFS = 16
"""The last proofs whose median time is a waiting proof's expected time."""


def seed_text(seed: int) -> str:
    """A seed as revealed: 16 hex digits (JSON numbers lose bits past 2^53)."""
    return f"{seed:016x}"


def race_commitment(race_id: str, seed: int, nonce: str) -> str:
    """What a winnable race publishes at its start and proves at its end."""
    return hashlib.sha256(f"race/{race_id}/{seed_text(seed)}/{nonce}".encode()).hexdigest()


def secret_seed(secret: str, label: str, attempt: int) -> int:
    """The shuffle seed of one attempt at ``label`` under ``secret``."""
    digest = hmac.new(secret.encode(), f"{label}/{attempt}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:SEED_BYTES], "big")


@dataclass(frozen=True)
class ProvenDeal:
    """A seed and the replayed line that wins it."""

    seed: int
    attempt: int
    line: tuple[str, ...]


class NoProvenDeal(Exception):
    """No attempt's layout was won within the budget (raise the budget or attempts)."""


def replays_to_win(game_id: str, options: dict[str, Any], seed: int, line: tuple[str, ...] | list[str]) -> bool:
    """Whether ``line`` wins the layout of ``seed`` through the checked
    entry point: the test a reveal must pass, and that a proof passes
    before it is kept.  An illegal move is a False, not an exception: a
    reveal comes from a server that may be wrong or lying."""
    game = engine.seeded_game(game_id, seed, **options)
    try:
        for move in line:
            game.play(move)
    except engine.EngineError:
        return False
    return game.status == engine.WON


def prove(game_id: str, options: dict[str, Any], secret: str, label: str, budget: int, attempts: int) -> ProvenDeal:
    """The first attempt at ``label`` whose layout the solver wins within
    ``budget`` nodes; runs in a worker process."""
    for attempt in range(attempts):
        seed = secret_seed(secret, label, attempt)
        found = solve(engine.seeded_game(game_id, seed, **options), budget=budget, prove=False)
        if found.result != WON:
            continue
        line = tuple(str(move) for move in found.moves)
        if not replays_to_win(game_id, options, seed, line):
            raise RuntimeError(f"{game_id} seed {seed:016x}: the solver's line does not replay to a win")
        return ProvenDeal(seed, attempt, line)
    raise NoProvenDeal(f"no layout of {label} was won in {attempts} attempts of {budget} nodes")


class Urgency(IntEnum):
    """Which proof the prover starts first when several wait: a player's
    request before a fresh server's dailies of today, those before
    tomorrow's, and those before the race deals kept in stock.  A proof
    asked again more urgently moves up (it was queued, not started)."""

    PLAYER = 0
    TODAY = 1
    AHEAD = 2
    STOCK = 3


DEFAULT_PROOF_SECONDS = 2.0
"""What a proof is expected to take before this process has timed one:
the slowest daily variant's proof (Chequers, 2.6 s) on a quiet core."""


@dataclass
class _Proof:
    """A proof asked for and not yet answered."""

    args: tuple[str, dict[str, Any], str, str]
    """game id, options, secret, label"""
    urgency: Urgency
    order: int
    answer: asyncio.Future[ProvenDeal]
    started: float | None = None


class DealProver:
    """Proofs in a pool of worker processes, each label searched once, the
    most urgent first (``Urgency``).

    At most ``workers`` proofs are in the pool at once; the others wait
    here, in order of urgency and then of asking.  So a player's daily is
    never queued behind the race deals being stocked or tomorrow's
    dailies: it waits for at most the proofs already running.

    The pool starts with the first proof (a server that never deals a
    ranked game starts no process) and uses ``spawn``: forking a process
    that runs an event loop and threads copies locks in unknown states.
    Its workers run at a lower CPU priority and end with the server
    (``server.runtime.searches.background_worker``), deaf to the signals that
    stop the server: it ends them itself (``close``).
    """

    _proven: dict[tuple[Any, ...], ProvenDeal] = {}
    """Shared by every prover of the process: a proof is a pure function of its key."""

    def __init__(self, workers: int, budget: int, attempts: int) -> None:
        self.workers = workers
        self.budget = budget
        self.attempts = attempts
        self._pool: ProcessPoolExecutor | None = None
        self._proofs: dict[tuple[Any, ...], _Proof] = {}
        self._waiting: list[tuple[int, int, tuple[Any, ...]]] = []
        """A heap of (urgency, order, key); an entry whose urgency is no
        longer its proof's is stale and skipped."""
        self._running = 0
        self._asked = 0
        self._seconds: list[float] = []
        """How long the last proofs took, for ``eta_seconds``."""

    async def prove(
        self, game_id: str, options: dict[str, Any], secret: str, label: str, urgency: Urgency = Urgency.PLAYER
    ) -> ProvenDeal:
        """The proven deal of ``label`` (waiting for a proof under way)."""
        key = (game_id, tuple(sorted(options.items())), secret, label, self.budget, self.attempts)
        known = self._proven.get(key)
        if known is not None:
            return known
        proof = self._proofs.get(key)
        if proof is None:
            self._asked += 1
            answer = asyncio.get_running_loop().create_future()
            proof = self._proofs[key] = _Proof((game_id, dict(options), secret, label), urgency, self._asked, answer)
            heapq.heappush(self._waiting, (urgency, proof.order, key))
        elif urgency < proof.urgency and proof.started is None:
            proof.urgency = urgency
            heapq.heappush(self._waiting, (urgency, proof.order, key))
        self._start_next()
        return await asyncio.shield(proof.answer)

    def eta_seconds(self, label: str) -> float:
        """About how long until the proof of ``label`` is answered, from
        the proofs ahead of it and the time the last ones took (a label not
        asked for yet counts as a player's proof asked now)."""
        proof = next((proof for key, proof in self._proofs.items() if key[3] == label), None)
        each = statistics.median(self._seconds) if self._seconds else DEFAULT_PROOF_SECONDS
        now = time.monotonic()
        if proof is not None and proof.started is not None:
            return max(each - (now - proof.started), 0.0)
        place = (Urgency.PLAYER, self._asked + 1) if proof is None else (proof.urgency, proof.order)
        ahead = sum(1 for other in self._proofs.values() if other.started is None and (other.urgency, other.order) < place)
        running = [max(each - (now - other.started), 0.0) for other in self._proofs.values() if other.started is not None]
        soonest = min(running) if len(running) >= self.workers else 0.0
        return soonest + each * (ahead // self.workers + 1)

    def _start_next(self) -> None:
        """Hand the most urgent waiting proofs to the pool, up to ``workers`` at once."""
        while self._running < self.workers and self._waiting:
            urgency, _, key = heapq.heappop(self._waiting)
            proof = self._proofs.get(key)
            if proof is None or proof.started is not None or proof.urgency != urgency:
                continue
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn"),
                    initializer=background_worker, initargs=(os.getpid(),),
                )
            job = functools.partial(prove, *proof.args, budget=self.budget, attempts=self.attempts)
            try:
                answer = asyncio.get_running_loop().run_in_executor(self._pool, job)
            except BrokenProcessPool as broken:
                # A worker died (killed, out of memory): this proof fails,
                # and the next one starts a new pool.
                self._pool = None
                del self._proofs[key]
                proof.answer.set_exception(broken)
                continue
            proof.started = time.monotonic()
            self._running += 1
            answer.add_done_callback(functools.partial(self._finished, key, proof, self._pool))

    def _finished(
        self, key: tuple[Any, ...], proof: _Proof, pool: ProcessPoolExecutor, answer: asyncio.Future[ProvenDeal]
    ) -> None:
        """A proof's answer from the pool.  Its error is always taken, even
        from a pool ``close`` abandoned: asyncio would log it as never
        retrieved."""
        error = None if answer.cancelled() else answer.exception()
        if self._proofs.get(key) is not proof:
            return
        del self._proofs[key]
        self._running -= 1
        if answer.cancelled():
            proof.answer.cancel()
        elif error is not None:
            if isinstance(error, BrokenProcessPool) and self._pool is pool:
                self._pool = None
            proof.answer.set_exception(error)
        else:
            proven = answer.result()
            if len(self._proven) >= PROVEN_CACHE:
                self._proven.pop(next(iter(self._proven)))
            self._proven[key] = proven
            self._seconds = [*self._seconds[-(TIMED_PROOFS - 1):], time.monotonic() - (proof.started or 0.0)]
            proof.answer.set_result(proven)
        self._start_next()

    async def close(self) -> None:
        """Stop the workers now, abandoning the proofs asked for (a proof
        runs for seconds: waiting for it held up the server's exit), and
        return once no worker is left.  The pool's own futures are never
        cancelled from here: a future cancelled from outside and then
        failed by the pool when its worker died is what raised CPython
        3.11's ``InvalidStateError`` in the pool's thread; whoever awaits
        a proof is cancelled through the prover's own future instead.  A
        proof after this starts a new pool."""
        proofs, self._proofs, self._waiting, self._running = self._proofs, {}, [], 0
        for proof in proofs.values():
            proof.answer.cancel()
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # The executor has no public way to stop a call under way.
        for worker in list(pool._processes.values()):
            worker.kill()
        await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)
