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
import hashlib
import hmac
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import engine
from engine.solver.driver import solve
from engine.solver.search import WON
from server.searches import background_worker

SEED_BYTES = 8
"""64 secret bits: the generator's whole seed."""
PROVEN_CACHE = 256
"""Proofs kept per process: the same label asked again is not searched again."""


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


def _abandoned(answer: asyncio.Future[ProvenDeal]) -> None:
    """Take the error of a proof that ``DealProver.close`` abandoned: its
    worker was killed, and nobody awaits it any more, so asyncio would
    log it as never retrieved."""
    if not answer.cancelled():
        answer.exception()


class DealProver:
    """Proofs in a pool of worker processes, each label searched once.

    The pool starts with the first proof (a server that never deals a
    ranked game starts no process) and uses ``spawn``: forking a process
    that runs an event loop and threads copies locks in unknown states.
    Its workers run at a lower CPU priority and end with the server
    (``server.searches.background_worker``), deaf to the signals that
    stop the server: it ends them itself (``close``).
    """

    _proven: dict[tuple[Any, ...], ProvenDeal] = {}
    """Shared by every prover of the process: a proof is a pure function of its key."""

    def __init__(self, workers: int, budget: int, attempts: int) -> None:
        self.workers = workers
        self.budget = budget
        self.attempts = attempts
        self._pool: ProcessPoolExecutor | None = None
        self._running: dict[tuple[Any, ...], asyncio.Future[ProvenDeal]] = {}

    async def prove(self, game_id: str, options: dict[str, Any], secret: str, label: str) -> ProvenDeal:
        """The proven deal of ``label`` (waiting for a proof under way)."""
        key = (game_id, tuple(sorted(options.items())), secret, label, self.budget, self.attempts)
        known = self._proven.get(key)
        if known is not None:
            return known
        running = self._running.get(key)
        if running is None:
            running = self._running[key] = asyncio.ensure_future(self._search(key, game_id, options, secret, label))
            running.add_done_callback(lambda _: self._running.pop(key, None))
        return await asyncio.shield(running)

    async def _search(self, key: tuple[Any, ...], game_id: str, options: dict[str, Any], secret: str, label: str) -> ProvenDeal:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=background_worker, initargs=(os.getpid(),),
            )
        answer = asyncio.get_running_loop().run_in_executor(
            self._pool, prove, game_id, dict(options), secret, label, self.budget, self.attempts
        )
        answer.add_done_callback(_abandoned)
        # Shielded: cancelling this task must not cancel the pool's future
        # from the event loop's thread, behind the pool's back (see close).
        proven = await asyncio.shield(answer)
        if len(self._proven) >= PROVEN_CACHE:
            self._proven.pop(next(iter(self._proven)))
        self._proven[key] = proven
        return proven

    async def close(self) -> None:
        """Stop the workers now, abandoning a proof under way (a proof runs
        for seconds: waiting for it held up the server's exit), and return
        once no worker is left.  Only the pool itself cancels the proofs
        queued in it (``_search`` shields them): a future cancelled from
        outside and then failed by the pool when its worker died is what
        raised CPython 3.11's ``InvalidStateError`` in the pool's thread.
        A proof after this starts a new pool."""
        running = list(self._running.values())
        for proof in running:
            proof.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # The executor has no public way to stop a call under way.
        for worker in list(pool._processes.values()):
            worker.kill()
        await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)
