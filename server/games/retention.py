"""The sweeper: game ends left open are settled without a restart, expired
data is dropped, and ``/metrics`` shows how much the store holds.

A game's end is an outbox the appending process settles at once (see
``server.games.records``).  When that fails (Redis went away between the
append and the settling) the outbox stays open; the start-up sweep would
find it, but a server that runs for weeks must not make a player wait for
the next restart to see a finished game in the record.  So every
``retention_sweep_seconds`` each process sweeps: it settles the open
outboxes (settling is idempotent, so two processes sweeping at once, or a
sweep racing the appending process, still count each game once), asks the
store to drop what has expired (the memory store's part; Redis expires
keys by itself) and measures the store.

The measurement is kept for the scrapes in between: a ``/metrics`` scrape
is synchronous (``prometheus_client`` collects without awaiting), and a
store stalled at the moment of a scrape must not stall it.  A measurement
that fails or takes longer than ``SIZE_TIMEOUT_SECONDS`` removes the
store's gauges until the next one succeeds, rather than showing old
figures as current.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from server.games.records import settle_pending
from server.runtime.scheduler import BackgroundLoop, Scheduler, sleep
from server.runtime.settings import Settings
from server.storage import Retention, StorageError, Store, StoreSize

log = logging.getLogger("arena.retention")

SIZE_TIMEOUT_SECONDS = 1.0
"""How long a sweep waits for the store's size (Redis ``DBSIZE`` and ``INFO``)."""


def retention_of(settings: Settings) -> Retention:
    """The store's part of the settings."""
    return Retention(identity_seconds=settings.identity_retention_seconds)


class StoreGauges(Collector):
    """The last measurement of the store, read at each scrape."""

    def __init__(self, sweeper: Sweeper) -> None:
        self._sweeper = sweeper

    def collect(self) -> Iterator[Metric]:
        size = self._sweeper.size
        if size is None:
            return
        yield GaugeMetricFamily(
            "arena_store_keys", "Keys in the store (Redis: DBSIZE of its database, every namespace).", value=size.keys
        )
        yield GaugeMetricFamily("arena_store_live_games", "Unfinished games in the store.", value=size.live_games)
        yield GaugeMetricFamily(
            "arena_store_open_finishes", "Game ends appended and not yet settled.", value=size.open_finishes
        )
        optional = (
            ("arena_store_sessions", "Games and race ledgers in the store, finished ones included.", size.sessions),
            ("arena_store_identities", "Identities in the store.", size.identities),
            ("arena_store_memory_bytes", "Memory the store reports using (Redis used_memory).", size.memory_bytes),
        )
        for name, text, value in optional:
            if value is not None:
                yield GaugeMetricFamily(name, text, value=value)


class Sweeper:
    """One process's sweeps (see the module docstring), each
    ``retention_sweep_seconds`` on ``scheduler`` after the last; its
    figures go into ``registry``, the hub's."""

    def __init__(self, store: Store, settings: Settings, registry: CollectorRegistry, scheduler: Scheduler) -> None:
        self._store = store
        self._settings = settings
        self._scheduler = scheduler
        self.size: StoreSize | None = None
        self._background = BackgroundLoop("retention sweeper")
        self._settled = Counter(
            "arena_sweep_settled", "Game ends left open that a sweep settled.", registry=registry
        )
        self._expired = Counter(
            "arena_sweep_expired", "Expired entries a sweep dropped (memory store).", registry=registry
        )
        registry.register(StoreGauges(self))

    async def sweep(self) -> None:
        """One sweep; a store that fails is logged, and the next sweep tries again."""
        self._settled.inc(await settle_pending(self._store, self._settings))
        try:
            self._expired.inc(await self._store.expire_due())
            async with asyncio.timeout(SIZE_TIMEOUT_SECONDS):
                self.size = await self._store.size()
        except (StorageError, TimeoutError) as error:
            self.size = None
            log.warning("could not sweep or measure the store: %s", error or "timed out")

    def start(self) -> None:
        """Sweep every ``retention_sweep_seconds`` until ``close``."""
        self._background.start(self._run)

    async def _run(self) -> None:
        """Sweep until ``close``.  A sweep that raises what no store should
        (a bug, not an outage: ``sweep`` handles those) is logged with its
        traceback and the sweeps go on: a sweeper that died with it would
        leave game ends unsettled and the store growing for as long as the
        process runs, and nothing would say so.  The same failure sweep
        after sweep is logged once, not every few seconds."""
        logged: tuple[type[BaseException], str] | None = None
        while not self._background.closing:
            await sleep(self._scheduler, self._settings.retention_sweep_seconds)
            try:
                await self.sweep()
            except Exception as error:
                failure = (type(error), str(error))
                if failure != logged:
                    log.exception("a sweep failed; the next one runs in %s s", self._settings.retention_sweep_seconds)
                    logged = failure
            else:
                logged = None

    async def close(self) -> None:
        await self._background.close()
