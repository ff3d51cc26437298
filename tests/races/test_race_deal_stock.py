"""The stock of secret race deals (``server.deals.keeper.RaceDealStock``): filled
ahead with proven deals, each taken once, topped up after a take, and a
deal proven on the spot when the stock is empty."""

from __future__ import annotations

from typing import AsyncIterator

import pytest
from tests.races.arena_races import race_settings
from tests.storage.lost_cancellation import LosesCancellation

from server.deals.book import DailyBook
from server.deals.keeper import RaceDealStock, stock_name
from server.deals.proofs import DealProver, replays_to_win
from server.runtime.workers import Lane, WorkerPool
from server.runtime.entropy import SystemEntropy
from server.runtime.settings import Settings
from server.storage.memory import MemoryStore

WORDLINK = ("klondike", {"draw": 1})
STOCK = stock_name("klondike", "draw=1,scoring=standard")


def _stock(store: MemoryStore, settings: Settings, prover: DealProver) -> RaceDealStock:
    entropy = SystemEntropy()
    return RaceDealStock(DailyBook(store, settings, prover, entropy), entropy)


@pytest.fixture
async def prover() -> AsyncIterator[DealProver]:
    settings = race_settings()
    pool = WorkerPool({Lane.PROOF: 1})
    yield DealProver(pool, settings.deal_proof_nodes, settings.deal_proof_attempts)
    await pool.close()


async def test_a_stock_is_filled_taken_once_and_topped_up(prover: DealProver) -> None:
    store = MemoryStore()
    stock = _stock(store, race_settings(race_deal_stock=2), prover)
    await stock.fill_soon(*WORDLINK)
    assert await store.stock_size(STOCK) == 2
    first, second = await stock.take(*WORDLINK), await stock.take(*WORDLINK)
    assert first.seed != second.seed, "each stocked deal has a label of its own"
    assert all(replays_to_win("klondike", {"draw": 1}, deal.seed, deal.line) for deal in (first, second))
    await stock.fill_soon(*WORDLINK)
    assert await store.stock_size(STOCK) == 2, "taking tops the stock up again"
    await stock.close()


async def test_an_empty_stock_proves_a_deal_on_the_spot(prover: DealProver) -> None:
    store = MemoryStore()
    stock = _stock(store, race_settings(race_deal_stock=0), prover)
    deal = await stock.take(*WORDLINK)
    assert replays_to_win("klondike", {"draw": 1}, deal.seed, deal.line)
    assert await store.stock_size(STOCK) == 0
    await stock.close()


async def test_closing_the_stock_proves_no_deal_even_when_the_store_loses_the_cancellation(prover: DealProver) -> None:
    """The fill waits in the store as the stock closes, and the store call
    answers as if it had not been cancelled: the fill must stop there, not
    prove the deals it found missing."""
    store = LosesCancellation("stock_size")
    stock = _stock(store, race_settings(race_deal_stock=2), prover)
    filling = stock.fill_soon(*WORDLINK)
    await store.waiting("stock_size")
    await stock.close()
    assert filling.done()
    assert await store.stock_size(STOCK) == 0, "no deal proven after the close"
