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

Proofs are solver searches of up to a few seconds each, so they run in
the worker pool's proof lane (``deal_workers`` processes,
``server.runtime.workers``) and never on the interpreter the event loop
shares with every connection.  A proof is a pure function
of its inputs (node budgets, not seconds, bound the search), so two
processes that prove the same label at once reach the same seed; the
store's first write decides which record is kept anyway.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import statistics
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import engine
from engine.solver.driver import solve
from engine.solver.search import WON
from server.runtime.workers import Answer, Job, Lane, Priority, WorkerPool

SEED_BYTES = 8
"""64 secret bits: the generator's whole seed."""
PROVEN_CACHE = 256
"""Proofs a prover keeps: the same label asked again is not searched again."""
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


Urgency = Priority
"""A proof's urgency is its place in the worker pool's one order: a
player's request (``PLAYER``) before a fresh server's dailies of today
(``TODAY``), those before tomorrow's (``AHEAD``), and those before the
race deals kept in stock (``STOCK``).  A proof asked again more urgently
moves up (it was queued, not started)."""


DEFAULT_PROOF_SECONDS = 2.0
"""What a proof is expected to take before this prover has timed one:
the slowest daily variant's proof (Chequers, 2.6 s) on a quiet core."""

ProofKey = tuple[Any, ...]
"""What a proof is a pure function of: game, options, secret, label, budget, attempts."""


class ProvenDeals:
    """The last ``PROVEN_CACHE`` proofs answered, by key.  A prover keeps
    its own; tests that start many servers under one secret hand them one
    to share, so that each day's deals are proven once."""

    def __init__(self) -> None:
        self._deals: OrderedDict[ProofKey, ProvenDeal] = OrderedDict()

    def get(self, key: ProofKey) -> ProvenDeal | None:
        return self._deals.get(key)

    def keep(self, key: ProofKey, deal: ProvenDeal) -> None:
        self._deals[key] = deal
        while len(self._deals) > PROVEN_CACHE:
            self._deals.popitem(last=False)


class DealProver:
    """What to prove and what was proven: each label searched once, in the
    worker pool's proof lane, the most urgent first (``Urgency``).

    The pool runs at most ``deal_workers`` proofs at once; the others wait
    there in order of urgency and then of asking.  So a player's daily is
    never queued behind the race deals being stocked or tomorrow's
    dailies: it waits for at most the proofs already running.  Whoever
    built the pool closes it, which abandons the proofs under way.
    """

    def __init__(self, workers: WorkerPool, budget: int, attempts: int, proven: ProvenDeals | None = None) -> None:
        self._workers = workers
        self.budget = budget
        self.attempts = attempts
        self._proven = proven if proven is not None else ProvenDeals()
        self._proofs: dict[ProofKey, Job] = {}
        """The proofs asked for and not yet answered."""
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
            proof = self._proofs[key] = self._workers.submit(
                urgency, None, prove, game_id, dict(options), secret, label, self.budget, self.attempts
            )
            proof.answer.add_done_callback(functools.partial(self._answered, key, proof))
        else:
            self._workers.hasten(proof, urgency)
        answer = await asyncio.shield(proof.answer)
        proven: ProvenDeal = answer.value
        return proven

    def _answered(self, key: ProofKey, proof: Job, answer: asyncio.Future[Answer]) -> None:
        """Keep a proof's deal.  Its error is always taken, even when
        nobody waits any more: asyncio would log it as never retrieved."""
        if self._proofs.get(key) is proof:
            del self._proofs[key]
        if answer.cancelled() or answer.exception() is not None:
            return
        self._proven.keep(key, answer.result().value)
        self._seconds = [*self._seconds[-(TIMED_PROOFS - 1):], answer.result().seconds]

    def eta_seconds(self, label: str) -> float:
        """About how long until the proof of ``label`` is answered, from
        the proofs ahead of it and the time the last ones took (a label not
        asked for yet counts as a player's proof asked now)."""
        proof = next((proof for key, proof in self._proofs.items() if key[3] == label), None)
        each = statistics.median(self._seconds) if self._seconds else DEFAULT_PROOF_SECONDS
        workers = self._workers.size(Lane.PROOF)
        now = time.monotonic()
        if proof is not None and proof.started is not None:
            return max(each - (now - proof.started), 0.0)
        place: tuple[int, float] = (Urgency.PLAYER, float("inf")) if proof is None else (proof.priority, proof.order)
        waiting = [other for other in self._proofs.values() if other.started is None]
        ahead = sum(1 for other in waiting if (other.priority, other.order) < place)
        running = [max(each - (now - other.started), 0.0) for other in self._proofs.values() if other.started is not None]
        soonest = min(running) if len(running) >= workers else 0.0
        return soonest + each * (ahead // workers + 1)
