"""The memory store's pub/sub: channels of one process.

A message published reaches every subscription of its channel in this
process, in order, and nothing else, but for a subscription whose
``skip`` matches it: that one is not woken at all.  A subscription ends
when closed or when the store closes.  Kept apart from ``server.storage.memory``, whose
data and expiry it shares nothing with.
"""

from __future__ import annotations

import asyncio
from typing import AsyncIterator

from .base import Skip, Subscription

Listener = tuple[asyncio.Queue[bytes | None], Skip | None]
"""A subscription as its channel sees it: the queue its messages wait in
(None ends it) and the messages it does not want."""

Listeners = dict[str, set[Listener]]
"""Each channel's subscriptions."""


class _MemorySubscription(Subscription):
    def __init__(self, listeners: Listeners, channel: str, skip: Skip | None) -> None:
        self._listeners = listeners
        self._channel = channel
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._listener: Listener = (self._queue, skip)
        listeners.setdefault(channel, set()).add(self._listener)

    async def _iterate(self) -> AsyncIterator[bytes]:
        while True:
            item = await self._queue.get()
            if item is None:
                return
            yield item

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._iterate()

    async def close(self) -> None:
        queues = self._listeners.get(self._channel)
        if queues is not None:
            queues.discard(self._listener)
            if not queues:
                del self._listeners[self._channel]
        self._queue.put_nowait(None)


class MemoryChannels:
    """The channels of one memory store."""

    def __init__(self) -> None:
        self._listeners: Listeners = {}

    def subscribe(self, channel: str, skip: Skip | None = None) -> Subscription:
        return _MemorySubscription(self._listeners, channel, skip)

    def publish(self, channel: str, payload: bytes) -> None:
        for queue, skip in list(self._listeners.get(channel, ())):
            if skip is None or not skip(payload):
                queue.put_nowait(payload)

    def close(self) -> None:
        """End every subscription."""
        for queues in list(self._listeners.values()):
            for queue, _ in list(queues):
                queue.put_nowait(None)
        self._listeners.clear()
