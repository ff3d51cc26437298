"""Whether the store takes writes, as the operator sees it.

A store that cannot write (Redis unreachable, stalled, full under
``noeviction``, a read-only replica, a failing disk) makes every request
that needs it fail with ``storage_unavailable``; thousands of requests a
minute would be thousands of identical log lines.  So the failures are
counted as an episode: the first one after the store last took a write is
logged once, at WARNING, with its cause; the rest are only counted
(``arena_storage_failures_total``, by kind); and the first successful
write probe after it logs the recovery, at INFO.  ``arena_storage_writable``
is 1 or 0 as the last evidence says, ``arena_storage_episodes_total``
counts the episodes.

The evidence: every request refused for the store (``Hub``), the write
probe that ``/healthz`` makes, and the one the Hub makes with each epoch
check (``store_epoch_check_seconds``), so a recovery is noticed even when
nobody asks ``/healthz``.
"""

from __future__ import annotations

import logging

from prometheus_client import CollectorRegistry, Counter, Gauge

from server.runtime.metrics import labelled_counter
from server.storage.base import StorageError, StorageRefused, Store

log = logging.getLogger("arena.store")

FAILURE_KINDS = ("unreachable", "refused")
"""``refused``: the store answered with an error (full, read-only ...);
``unreachable``: it did not answer (down, stalled, timed out)."""


def failure_kind(error: StorageError) -> str:
    return "refused" if isinstance(error, StorageRefused) else "unreachable"


class StoreHealth:
    """One process's view of its store's health; see the module docstring."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.writable = True
        self.episodes = 0
        self._failures = labelled_counter(
            "arena_storage_failures",
            "Requests and probes the store failed, by kind: refused (an error reply: out of memory, read-only, "
            "failing disk ...) or unreachable (no answer).",
            "kind",
            FAILURE_KINDS,
            registry,
        )
        self._episodes = Counter(
            "arena_storage_episodes", "Times the store stopped taking writes (logged once each).", registry=registry
        )
        self._writable = Gauge(
            "arena_storage_writable", "1 while the store takes writes, 0 since a failure until a write succeeds.",
            registry=registry,
        )
        self._writable.set(1)

    def failed(self, error: StorageError) -> None:
        """A request or a probe failed for the store."""
        kind = failure_kind(error)
        self._failures.labels(kind).inc()
        if not self.writable:
            return
        self.writable = False
        self.episodes += 1
        self._episodes.inc()
        self._writable.set(0)
        log.warning(
            "the store cannot write (%s: %s); requests that need it are refused with storage_unavailable "
            "until it recovers", kind, error,
        )

    def recovered(self) -> None:
        """A write probe succeeded."""
        if self.writable:
            return
        self.writable = True
        self._writable.set(1)
        log.info("the store takes writes again")

    async def probe(self, store: Store) -> StorageError | None:
        """Write the probe key (``Store.check_writable``) and record what
        happened; the failure, or None."""
        try:
            await store.check_writable()
        except StorageError as error:
            self.failed(error)
            return error
        self.recovered()
        return None
