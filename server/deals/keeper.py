"""Preparing ranked deals ahead: each day's secret dailies are proven the
day before, so nobody waits for a proof and ``daily`` shows tomorrow's
commitments before tomorrow begins; and a small stock of proven race
deals per variant waits in the store (``RaceDealStock``), so starting a
winnable race takes one from it instead of a search.

``DailyKeeper`` runs in every server process (``prepare_dailies``): at
start and then every ``daily_prepare_interval_seconds`` it makes sure the
records of today and tomorrow exist, today's first (a fresh server's
players are waiting for them), and answers whether today's record of a
variant is ready without waiting for a proof (``DailyKeeper.today``).  Several processes doing so at once
agree: a proof is a pure function of the secret and the label, and the
store keeps the first record written.  ``arena prepare-dailies`` does
the same from the command line for an operator, with progress and an ETA
(``server.runtime.progress``).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from dataclasses import asdict
from datetime import date, timedelta
from typing import Any, Callable

import engine
from engine import Game
from server.deals.book import DailyBook
from server.deals.daily import DailyRecord, daily_label, daily_variants, utc_day
from server.deals.proofs import NoProvenDeal, ProvenDeal, Urgency
from server.deals.variants import variant_label
from server.runtime.entropy import Entropy
from server.runtime.scheduler import BackgroundLoop, Scheduler, sleep
from server.storage.base import StorageError

log = logging.getLogger("arena.keeper")

Report = Callable[[int, int, str], None]
"""Called after each prepared deal with (done, total, what)."""


async def prepare_day(
    book: DailyBook, day: date, now_ms: int, report: Report | None = None, urgency: Urgency = Urgency.AHEAD
) -> int:
    """Prove and fix every daily variant's record of ``day``, all asked of
    the prover at once (it runs ``deal_workers`` of them at a time); the
    number that could not be proven (logged, left for the next round)."""
    variants = daily_variants()
    done = 0

    async def prepare(game_id: str, options: dict[str, Any]) -> bool:
        nonlocal done
        try:
            await book.fixed(engine.game_class(game_id), options, day, now_ms, urgency)
            proven = True
        except NoProvenDeal as error:
            log.error("could not prepare the daily deal: %s", error)
            proven = False
        done += 1
        if report is not None:
            report(done, len(variants), f"{day} {game_id} {options or ''}".rstrip())
        return proven

    proven = await asyncio.gather(*(prepare(game_id, options) for game_id, options in variants))
    return proven.count(False)


class DailyKeeper:
    """The background task that keeps today's and tomorrow's dailies
    ready, and the answer to "is today's deal of this variant ready?"
    that never waits (``today``).

    At start it asks for today's proofs first (``Urgency.TODAY``), then
    tomorrow's (``AHEAD``), then the race deal stock (``STOCK``); the
    prover runs them in that order whatever order they were asked in, so
    a fresh server's dailies are ready after today's proofs alone.  A
    player asking for a variant not ready yet moves its proof first
    (``Urgency.PLAYER``).  Its rounds wait on the ``scheduler``."""

    def __init__(self, book: DailyBook, stock: RaceDealStock, clock: Callable[[], int], scheduler: Scheduler) -> None:
        self.book = book
        self.stock = stock
        self.clock = clock
        self.scheduler = scheduler
        self._background = BackgroundLoop("daily-keeper")
        self._hurried: dict[str, asyncio.Task[DailyRecord]] = {}
        """Today's records being fixed because somebody asked, by label."""

    def start(self) -> None:
        self._background.start(self._run)

    async def _run(self) -> None:
        stocked = False
        while True:
            today = utc_day(self.clock())
            for day, urgency in ((today, Urgency.TODAY), (today + timedelta(days=1), Urgency.AHEAD)):
                try:
                    await prepare_day(self.book, day, self.clock(), urgency=urgency)
                except StorageError as error:
                    log.warning("could not prepare the dailies of %s: %s", day, error)
                if self._background.closing:
                    return
                if not stocked:
                    stocked = True
                    for game_id, options in daily_variants():
                        self.stock.fill_soon(game_id, options)
            await sleep(self.scheduler, self.book.settings.daily_prepare_interval_seconds)

    async def today(self, game_cls: type[Game], options: dict[str, Any], now_ms: int) -> DailyRecord | float:
        """Today's record of this game and variant if it is fixed; else the
        seconds until it should be, having put its proof first.  Never
        waits for a proof: ``daily`` answers with this at once."""
        day = utc_day(now_ms)
        record = await self.book.known(game_cls, options, day)
        if record is not None:
            return record
        label = daily_label(game_cls.id, variant_label(game_cls, options), day)
        if label not in self._hurried:
            fixing = asyncio.create_task(self.book.fixed(game_cls, options, day, now_ms), name=f"hurry {label}")
            self._hurried[label] = fixing
            fixing.add_done_callback(functools.partial(self._fixed, label))
        return self.book.prover.eta_seconds(label)

    def _fixed(self, label: str, fixing: asyncio.Task[DailyRecord]) -> None:
        self._hurried.pop(label, None)
        error = None if fixing.cancelled() else fixing.exception()
        if error is not None:
            log.warning("could not fix the daily deal %s: %s", label, error)

    async def close(self) -> None:
        await self._background.close()
        for task in self._hurried.values():
            task.cancel()
        await asyncio.gather(*self._hurried.values(), return_exceptions=True)


def stock_name(game_id: str, variant: str) -> str:
    return f"race_deals/{game_id}/{variant}"


class RaceDealStock:
    """Secret race deals proven ahead, ``race_deal_stock`` per variant,
    shared by every process through the store (first in, first out; a
    deal is taken once).  Taking one tops the stock up in the background;
    an empty stock (a variant nobody raced yet, or a burst of races) proves
    a deal on the spot.  Each deal's label carries a fresh random token
    (drawn from ``entropy``), so no two stocked deals share a seed."""

    def __init__(self, book: DailyBook, entropy: Entropy) -> None:
        self.book = book
        self.store = book.store
        self._entropy = entropy
        self._filling: dict[str, asyncio.Task[None]] = {}
        self._closing = False

    async def take(self, game_id: str, options: dict[str, Any]) -> ProvenDeal:
        name = stock_name(game_id, variant_label(engine.game_class(game_id), options))
        stocked = await self.store.stock_pop(name)
        self.fill_soon(game_id, options)
        if stocked is not None:
            data = json.loads(stocked)
            return ProvenDeal(data["seed"], data["attempt"], tuple(data["line"]))
        return await self._prove(game_id, options, Urgency.PLAYER)

    def fill_soon(self, game_id: str, options: dict[str, Any]) -> asyncio.Task[None]:
        """Top the variant's stock up in the background (once at a time);
        the task doing it, for whoever wants to know when it is full."""
        name = stock_name(game_id, variant_label(engine.game_class(game_id), options))
        running = self._filling.get(name)
        if running is None or running.done():
            running = self._filling[name] = asyncio.create_task(self._fill(name, game_id, options), name=f"fill {name}")
        return running

    async def _fill(self, name: str, game_id: str, options: dict[str, Any]) -> None:
        """Prove deals until the stock is full or ``close`` says so in
        ``_closing``: the store call can lose the cancellation
        (docs/architecture.md, "Background loops")."""
        try:
            while await self.store.stock_size(name) < self.book.settings.race_deal_stock and not self._closing:
                proven = await self._prove(game_id, options, Urgency.STOCK)
                await self.store.stock_push(name, json.dumps(asdict(proven)))
        except (StorageError, NoProvenDeal) as error:
            log.warning("could not fill the race deal stock %s: %s", name, error)

    async def _prove(self, game_id: str, options: dict[str, Any], urgency: Urgency) -> ProvenDeal:
        variant = variant_label(engine.game_class(game_id), options)
        label = f"race/{game_id}/{variant}/{self._entropy.token_hex(16)}"
        return await self.book.prover.prove(game_id, options, await self.book.secret(), label, urgency)

    async def close(self) -> None:
        self._closing = True
        for task in self._filling.values():
            task.cancel()
        await asyncio.gather(*self._filling.values(), return_exceptions=True)

