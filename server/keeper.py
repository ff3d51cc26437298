"""Preparing ranked deals ahead: each day's secret dailies are proven the
day before, so nobody waits for a proof and ``daily`` shows tomorrow's
commitments before tomorrow begins; and a small stock of proven race
deals per variant waits in the store (``RaceDealStock``), so starting a
winnable race takes one from it instead of a search.

``DailyKeeper`` runs in every server process (``prepare_dailies``): at
start and then every ``daily_prepare_interval_seconds`` it makes sure the
records of today and tomorrow exist.  Several processes doing so at once
agree: a proof is a pure function of the secret and the label, and the
store keeps the first record written.  ``arena prepare-dailies`` does
the same from the command line for an operator, with progress and an ETA
(``server.progress``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from dataclasses import asdict
from datetime import date, timedelta
from typing import Any, Callable

import engine
from server.daily import daily_variants, fixed_record, utc_day
from server.deals import daily_secret
from server.secret_deals import DealProver, NoProvenDeal, ProvenDeal
from server.variants import variant_label
from server.settings import Settings
from server.storage.base import StorageError, Store

log = logging.getLogger("arena.keeper")

Report = Callable[[int, int, str], None]
"""Called after each prepared deal with (done, total, what)."""


async def prepare_day(
    store: Store, settings: Settings, prover: DealProver, day: date, now_ms: int, report: Report | None = None
) -> int:
    """Prove and fix every daily variant's record of ``day``; the number
    that could not be proven (logged, left for the next round)."""
    failed = 0
    variants = daily_variants()
    for done, (game_id, options) in enumerate(variants, start=1):
        game_cls = engine.game_class(game_id)
        try:
            await fixed_record(store, settings, prover, game_cls, options, day, now_ms)
        except NoProvenDeal as error:
            failed += 1
            log.error("could not prepare the daily deal: %s", error)
        if report is not None:
            report(done, len(variants), f"{day} {game_id} {options or ''}".rstrip())
    return failed


class DailyKeeper:
    """The background task that keeps today's and tomorrow's dailies ready."""

    def __init__(
        self, store: Store, settings: Settings, prover: DealProver, stock: RaceDealStock, clock: Callable[[], int]
    ) -> None:
        self.store = store
        self.settings = settings
        self.prover = prover
        self.stock = stock
        self.clock = clock
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="daily-keeper")

    async def _run(self) -> None:
        for game_id, options in daily_variants():
            self.stock.fill_soon(game_id, options)
        while True:
            today = utc_day(self.clock())
            for day in (today, today + timedelta(days=1)):
                try:
                    await prepare_day(self.store, self.settings, self.prover, day, self.clock())
                except StorageError as error:
                    log.warning("could not prepare the dailies of %s: %s", day, error)
            await asyncio.sleep(self.settings.daily_prepare_interval_seconds)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)


def stock_name(game_id: str, variant: str) -> str:
    return f"race_deals/{game_id}/{variant}"


class RaceDealStock:
    """Secret race deals proven ahead, ``race_deal_stock`` per variant,
    shared by every process through the store (first in, first out; a
    deal is taken once).  Taking one tops the stock up in the background;
    an empty stock (a variant nobody raced yet, or a burst of races) proves
    a deal on the spot.  Each deal's label carries a fresh random token, so
    no two stocked deals share a seed."""

    def __init__(self, store: Store, settings: Settings, prover: DealProver) -> None:
        self.store = store
        self.settings = settings
        self.prover = prover
        self._filling: dict[str, asyncio.Task[None]] = {}

    async def take(self, game_id: str, options: dict[str, Any]) -> ProvenDeal:
        name = stock_name(game_id, variant_label(engine.game_class(game_id), options))
        stocked = await self.store.stock_pop(name)
        self.fill_soon(game_id, options)
        if stocked is not None:
            data = json.loads(stocked)
            return ProvenDeal(data["seed"], data["attempt"], tuple(data["line"]))
        return await self._prove(game_id, options)

    def fill_soon(self, game_id: str, options: dict[str, Any]) -> asyncio.Task[None]:
        """Top the variant's stock up in the background (once at a time);
        the task doing it, for whoever wants to know when it is full."""
        name = stock_name(game_id, variant_label(engine.game_class(game_id), options))
        running = self._filling.get(name)
        if running is None or running.done():
            running = self._filling[name] = asyncio.create_task(self._fill(name, game_id, options), name=f"fill {name}")
        return running

    async def _fill(self, name: str, game_id: str, options: dict[str, Any]) -> None:
        try:
            while await self.store.stock_size(name) < self.settings.race_deal_stock:
                proven = await self._prove(game_id, options)
                await self.store.stock_push(name, json.dumps(asdict(proven)))
        except (StorageError, NoProvenDeal) as error:
            log.warning("could not fill the race deal stock %s: %s", name, error)

    async def _prove(self, game_id: str, options: dict[str, Any]) -> ProvenDeal:
        secret = await daily_secret(self.store, self.settings)
        variant = variant_label(engine.game_class(game_id), options)
        return await self.prover.prove(game_id, options, secret, f"race/{game_id}/{variant}/{secrets.token_hex(16)}")

    async def close(self) -> None:
        for task in self._filling.values():
            task.cancel()
        await asyncio.gather(*self._filling.values(), return_exceptions=True)

