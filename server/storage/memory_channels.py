"""The memory store's pub/sub: channels of one process.

A message published reaches every subscription of its channel in this
process, in order, and nothing else; a subscription ends when closed or
when the store closes.  Kept apart from ``server.storage.memory``, whose
data and expiry it shares nothing with.
"""

from __future__ import annotations

import asyncio
from typing import AsyncIterator

from .base import Subscription

Listeners = dict[str, set[asyncio.Queue[bytes | None]]]
"""Each channel's subscriptions, as the queues their messages wait in (None ends one)."""


class _MemorySubscription(Subscription):
    def __init__(self, listeners: Listeners, channel: str) -> None:
        self._listeners = listeners
        self._channel = channel
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        listeners.setdefault(channel, set()).add(self._queue)

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
            queues.discard(self._queue)
            if not queues:
                del self._listeners[self._channel]
        self._queue.put_nowait(None)


class MemoryChannels:
    """The channels of one memory store."""

    def __init__(self) -> None:
        self._listeners: Listeners = {}

    def subscribe(self, channel: str) -> Subscription:
        return _MemorySubscription(self._listeners, channel)

    def publish(self, channel: str, payload: bytes) -> None:
        for queue in list(self._listeners.get(channel, ())):
            queue.put_nowait(payload)

    def close(self) -> None:
        """End every subscription."""
        for queues in list(self._listeners.values()):
            for queue in list(queues):
                queue.put_nowait(None)
        self._listeners.clear()
