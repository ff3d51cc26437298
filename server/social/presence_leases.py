"""This process's presence lease, and the reaping of other processes'.

Every ``renew_seconds`` the process renews its lease (so its players'
live entries keep counting), reaps every lease that ended (a process
that died without a word: ``kill -9``, a lost machine) and tells the
friends of that process's players, and marks idle connections away.
Any process may reap, and several at once: the store hands each dead
lease to one of them (``Store.reap_presence_leases``).

A lease that lapsed here (the store was down, or the process stalled
longer than ``lease_seconds``) may have been reaped meanwhile, so the
first renewal after it writes every player held here again, and their
friends are told they are back.
"""

from __future__ import annotations

import logging
from typing import Callable

from server.runtime.scheduler import BackgroundLoop, Scheduler, sleep
from server.social.presence import Presence
from server.storage.base import StorageError, Store

log = logging.getLogger("arena.presence")


class PresenceLeases:
    """Renews the lease of ``presence.origin`` and reaps the others'."""

    def __init__(self, store: Store, presence: Presence, now: Callable[[], int], scheduler: Scheduler) -> None:
        self._store = store
        self._presence = presence
        self._now = now
        self._scheduler = scheduler
        self._renewed_ms: int | None = None
        self._background = BackgroundLoop("presence lease")

    async def start(self) -> None:
        """Take the lease (before any player here is written under it), then keep it."""
        await self.round()
        self._background.start(self._keep)

    async def _keep(self) -> None:
        while not self._background.closing:
            await sleep(self._scheduler, self._presence.timing.renew_seconds)
            await self.round()

    async def round(self) -> None:
        """Renew, write again after a lapse, reap, mark idle connections away."""
        timing = self._presence.timing
        lease_ms = round(timing.lease_seconds * 1000)
        now = self._now()
        lapsed = self._renewed_ms is not None and now - self._renewed_ms >= lease_ms
        try:
            await self._store.renew_presence_lease(self._presence.origin, now, lease_ms)
            self._renewed_ms = now
            if lapsed:
                await self._presence.write_again()
            await self._reap(now)
        except StorageError as error:
            log.warning("could not keep the presence lease: %s", error)
        self._presence.idle_check()

    async def _reap(self, now: int) -> None:
        """Take the leases that ended and tell their players' friends.  Only
        another process's lease is news for the log: this one's own is
        reaped as it closes, on every shutdown."""
        for dead in await self._store.reap_presence_leases(now):
            if dead.origin != self._presence.origin:
                log.info("reaped the presence lease of process %s (%d players)", dead.origin, len(dead.player_ids))
            views = await self._presence.presence_of(dead.player_ids)
            for view in views.values():
                await self._presence.tell_friends(view)

    async def close(self) -> None:
        """Stop renewing, and end the lease now rather than let it run out:
        a process that shuts down shows its players offline at once."""
        if not await self._background.close():
            return
        try:
            await self._store.renew_presence_lease(self._presence.origin, self._now(), 0)
            await self._reap(self._now())
        except StorageError as error:
            log.warning("could not end the presence lease; it runs out by itself: %s", error)
