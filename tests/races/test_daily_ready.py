"""A fresh server answers at once (docs/protocol.md, *The daily
challenge*): ``daily`` never waits for a deal proof, listing today's
variants still being proven as ``pending`` with an estimate, and the
prover runs a player's proof before the ones queued for later (tomorrow's
dailies, the race deal stock).

The hub here is in memory; its prover is a real one (worker processes),
held at a gate where a test must know that no proof has finished."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.races.arena_races import MemoryArena, player, race_settings, ready_daily
from tests.server.arena_memory import ThreadWorker

from protocol import to_server as ts
from server.deals.daily import daily_variants
from server.deals.proofs import DealProver, ProvenDeal, ProvenDeals, Urgency
from server.runtime.workers import Lane, WorkerPool

HANG_SECONDS = 600.0
"""Bounds a hang only: the waits below end on events (a proof answered, a
gate opened), however long a loaded machine takes to get there."""


class GatedProver(DealProver):
    """A real prover whose proofs start only once ``gate`` is open: while
    it is shut, no daily deal can be ready, however fast the machine."""

    def __init__(self, workers: WorkerPool) -> None:
        super().__init__(workers, 30_000, 50)
        self.gate = asyncio.Event()

    async def prove(
        self, game_id: str, options: dict[str, Any], secret: str, label: str, urgency: Urgency = Urgency.PLAYER
    ) -> ProvenDeal:
        await self.gate.wait()
        return await super().prove(game_id, options, secret, label, urgency)


async def test_daily_answers_at_once_with_the_variants_still_being_proven() -> None:
    settings = race_settings(deal_workers=1)
    workers = WorkerPool.sized(settings)
    prover = GatedProver(workers)
    async with MemoryArena(settings, workers=workers, prover=prover) as arena:
        client = await player(arena, "ann")
        async with asyncio.timeout(HANG_SECONDS):
            info = await client.request(ts.Daily)
            pong = await client.request(ts.Ping)
        assert info.type == "daily_info" and pong.type == "pong", "answered while no proof can finish"
        assert info.deals == []
        assert [(p.game, p.options) for p in info.pending] == daily_variants()
        assert all(p.ready_in_ms > 0 for p in info.pending), info.pending
        board = await client.request(ts.Leaderboard, game="chequers")
        assert board.type == "leaderboard", "a board needs no proof"

        prover.gate.set()
        ready = await ready_daily(client)
        assert [(d.game, d.options) for d in ready.deals] == daily_variants()
        started, _ = await client.new_game("chequers", deal="daily")
        assert started.ranked and started.deal_kind == "daily"


async def test_a_players_proof_goes_before_the_stock_queued_ahead_of_it() -> None:
    """One worker: four stock proofs asked, then a player's.  The first
    stock proof is under way and finishes first; the player's comes next,
    before the three stock proofs asked before it."""
    pool = WorkerPool({Lane.PROOF: 1})
    prover = DealProver(pool, 30_000, 50)
    answered: list[str] = []

    async def ask(label: str, urgency: Urgency) -> None:
        await prover.prove("klondike", {"draw": 3}, "secret", label, urgency)
        answered.append(label)

    try:
        async with asyncio.timeout(HANG_SECONDS):
            stock = [asyncio.ensure_future(ask(f"race/stock/{n}", Urgency.STOCK)) for n in range(4)]
            await asyncio.sleep(0)
            player_proof = asyncio.ensure_future(ask("daily/player", Urgency.PLAYER))
            await asyncio.sleep(0)
            assert prover.eta_seconds("daily/player") < prover.eta_seconds("race/stock/1"), "estimated as the next"
            await asyncio.gather(player_proof, *stock)
    finally:
        await pool.close()
    assert answered == ["race/stock/0", "daily/player", "race/stock/1", "race/stock/2", "race/stock/3"]


async def test_asking_again_more_urgently_moves_a_queued_proof_up() -> None:
    pool = WorkerPool({Lane.PROOF: 1})
    prover = DealProver(pool, 30_000, 50)
    answered: list[str] = []

    async def ask(label: str, urgency: Urgency) -> None:
        await prover.prove("klondike", {"draw": 3}, "secret", label, urgency)
        answered.append(f"{label} {urgency.name}")

    try:
        async with asyncio.timeout(HANG_SECONDS):
            asked = [asyncio.ensure_future(ask(label, Urgency.AHEAD)) for label in ("a", "b", "c")]
            await asyncio.sleep(0)
            asked.append(asyncio.ensure_future(ask("c", Urgency.PLAYER)))
            await asyncio.gather(*asked)
    finally:
        await pool.close()
    assert answered[0] == "a AHEAD" and answered[1:3] in (["c AHEAD", "c PLAYER"], ["c PLAYER", "c AHEAD"])
    assert answered[3] == "b AHEAD"


async def test_a_prover_proves_a_label_once_and_keeps_its_proofs_to_itself() -> None:
    """Asked twice at once and once after, a label is proven once; a second
    prover on the same pool has its own ``ProvenDeals`` and proves it again,
    and one handed the first's proofs does not."""
    pool = WorkerPool({Lane.PROOF: 1}, ThreadWorker)
    kept = ProvenDeals()
    first = DealProver(pool, 30_000, 50, kept)
    ask = ("klondike", {"draw": 3}, "secret", "daily/kept")
    try:
        async with asyncio.timeout(HANG_SECONDS):
            together = await asyncio.gather(first.prove(*ask), first.prove(*ask))
            assert together[0] == together[1] == await first.prove(*ask)
            assert pool.jobs["prove"] == 1
            assert await DealProver(pool, 30_000, 50).prove(*ask) == together[0]
            assert pool.jobs["prove"] == 2, "a new prover keeps no proof of another"
            assert await DealProver(pool, 30_000, 50, kept).prove(*ask) == together[0]
            assert pool.jobs["prove"] == 2
    finally:
        await pool.close()
