"""Redis pub/sub for one store: one subscriber connection, many subscriptions.

A server process watches many games and races at once; a Redis
connection per watched channel would not scale, so each ``RedisStore``
keeps a single subscriber connection and one reader task that hands each
message to the local queues of that channel.

When the connection drops (Redis restarted, network gone) the reader
reconnects by itself with exponential backoff and subscribes again to
every channel that still has listeners; subscriptions keep delivering
without their owners doing anything.  Messages published while the
connection was down are lost, as always with Redis pub/sub: the diffs and
race events that travel here are numbered, so a watcher that sees a gap
asks for a resync.  A gap shows only when a later message comes, so each
subscription that was listening when the connection dropped gets a
``RESUMED`` marker in its queue once Redis confirms it again; iterating
the subscription turns the marker into a call of its ``on_resume``.

``subscribe`` returns only once Redis has confirmed the subscription, so a
message published (by any process) after it returns is delivered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, AsyncIterator, Awaitable, Callable, Final

from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ResponseError

from server.runtime.scheduler import LoopScheduler, Scheduler, sleep

from .base import OnResume, Skip, StorageUnavailable, Subscription
from .redis_errors import REDIS_DOWN, unavailable
from .redis_pool import RedisClient

logger = logging.getLogger("arena.store")

FIRST_BACKOFF_SECONDS = 0.05
MAX_BACKOFF_SECONDS = 2.0



class _Resumed:
    """The type of ``RESUMED``, a queue item no payload can equal."""


RESUMED: Final = _Resumed()
ListenerQueue = asyncio.Queue[bytes | _Resumed | None]
Remover = Callable[[bytes, ListenerQueue], Awaitable[None]]
SHARD_LOST: tuple[type[BaseException], ...] = (*REDIS_DOWN, ResponseError)
"""Failures of a subscriber connection: Redis unreachable, or (a shard
channel's master) a MOVED refusal of a subscription."""


class RedisSubscription(Subscription):
    """Messages of one channel, delivered in the order Redis sent them."""

    def __init__(
        self, remove: Remover, channel: bytes, queue: ListenerQueue, on_resume: OnResume | None, skip: Skip | None
    ) -> None:
        self._remove = remove
        self._channel = channel
        self._queue = queue
        self._on_resume = on_resume
        self._skip = skip
        self._closed = False

    async def _iterate(self) -> AsyncIterator[bytes]:
        while True:
            payload = await self._queue.get()
            if payload is None:
                return
            if isinstance(payload, _Resumed):
                if self._on_resume is not None:
                    await self._on_resume()
                continue
            if self._skip is None or not self._skip(payload):
                yield payload

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._iterate()

    async def close(self) -> None:
        """Stop listening; iteration ends after the messages already received."""
        if self._closed:
            return
        self._closed = True
        await self._remove(self._channel, self._queue)
        self._queue.put_nowait(None)


class PubSubHub:
    """The subscriber side of one store (or of one cluster node's shard);
    see the module docstring.

    ``sharded``: the channels are shard channels (SSUBSCRIBE, Redis 7), one
    connection per cluster master (``redis_shards``).  A shard channel
    lives on the master of its slot, so when that master stops serving it
    (Redis drops the subscription when its slot moves, refuses a
    subscription with MOVED, or the master is gone) ``on_lost`` is awaited
    with this hub, to move the channels elsewhere (``detach``, ``adopt``).
    ``remove`` is what a subscription's close calls: the hub's own, or the
    router's, which knows which hub holds the channel now.  The pause
    between reconnections is taken on ``scheduler`` (the running loop's by
    default), like the server's other background loops, so a test that
    holds time holds the reconnection too."""

    def __init__(
        self,
        client: RedisClient,
        *,
        confirm_timeout: float,
        sharded: bool = False,
        on_lost: Callable[[PubSubHub], Awaitable[None]] | None = None,
        remove: Remover | None = None,
        scheduler: Scheduler | None = None,
    ) -> None:
        self._client = client
        self._scheduler = scheduler or LoopScheduler()
        self._confirm_timeout = confirm_timeout
        self._sharded = sharded
        self._on_lost = on_lost
        self._remove = remove or self.remove
        self._listeners: dict[bytes, set[ListenerQueue]] = {}
        self._confirmed: set[bytes] = set()
        self._interrupted: set[ListenerQueue] = set()
        self._waiters: dict[bytes, list[asyncio.Future[None]]] = {}
        self._pubsub: PubSub | None = None
        self._reader: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._closed = False

    async def subscribe(self, channel: bytes, on_resume: OnResume | None = None, skip: Skip | None = None) -> RedisSubscription:
        """Listen to ``channel``; raises ``StorageUnavailable`` if Redis is down."""
        queue: ListenerQueue = asyncio.Queue()
        async with self._lock:
            if self._closed:
                raise StorageUnavailable("the store is closed")
            listeners = self._listeners.setdefault(channel, set())
            listeners.add(queue)
            if channel in self._confirmed:
                return RedisSubscription(self._remove, channel, queue, on_resume, skip)
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.setdefault(channel, []).append(waiter)
            try:
                if self._pubsub is None:
                    await self._open()
                elif len(listeners) == 1:
                    await self._subscribe(self._pubsub, channel)
            except REDIS_DOWN as exc:
                self._forget(channel, queue, waiter)
                raise unavailable(exc) from exc
            self._start_reader()
        try:
            await asyncio.wait_for(waiter, self._confirm_timeout)
        except BaseException as exc:
            async with self._lock:
                self._forget(channel, queue, waiter)
            if isinstance(exc, (StorageUnavailable, TimeoutError)):
                raise unavailable(exc) from exc
            raise
        return RedisSubscription(self._remove, channel, queue, on_resume, skip)

    def _forget(self, channel: bytes, queue: ListenerQueue, waiter: asyncio.Future[None]) -> None:
        """Undo a subscribe that failed (called with the lock held)."""
        listeners = self._listeners.get(channel, set())
        listeners.discard(queue)
        self._interrupted.discard(queue)
        if not listeners:
            self._listeners.pop(channel, None)
        waiters = self._waiters.get(channel, [])
        if waiter in waiters:
            waiters.remove(waiter)
        if not waiters:
            self._waiters.pop(channel, None)

    async def remove(self, channel: bytes, queue: ListenerQueue) -> None:
        async with self._lock:
            listeners = self._listeners.get(channel)
            if listeners is None:
                return
            listeners.discard(queue)
            self._interrupted.discard(queue)
            if listeners:
                return
            del self._listeners[channel]
            self._confirmed.discard(channel)
            if self._pubsub is not None:
                # A failed UNSUBSCRIBE is harmless: the reconnect that must
                # follow subscribes only to channels that still have listeners.
                with contextlib.suppress(*REDIS_DOWN):
                    await self._unsubscribe(self._pubsub, channel)

    def channels(self) -> list[bytes]:
        return list(self._listeners)

    async def detach(self, channel: bytes) -> set[ListenerQueue]:
        """Stop carrying ``channel``; its listeners, for another hub to ``adopt``."""
        async with self._lock:
            queues = self._listeners.pop(channel, set())
            self._confirmed.discard(channel)
            self._interrupted -= queues
            for waiter in self._waiters.pop(channel, []):
                if not waiter.done():
                    waiter.set_exception(StorageUnavailable(f"the slot of {channel!r} moved"))
            if self._pubsub is not None:
                with contextlib.suppress(*REDIS_DOWN, ResponseError):
                    await self._unsubscribe(self._pubsub, channel)
            return queues

    async def adopt(self, channel: bytes, queues: set[ListenerQueue]) -> None:
        """Carry ``channel`` for ``queues`` that listened to it elsewhere:
        each gets ``RESUMED`` once this hub's Redis confirms it."""
        async with self._lock:
            if self._closed:
                for queue in queues:
                    queue.put_nowait(None)
                return
            self._listeners.setdefault(channel, set()).update(queues)
            self._interrupted.update(queues)
            if self._pubsub is not None:
                # A failure here fails the reader too, which reconnects and
                # subscribes to every channel this hub carries.
                with contextlib.suppress(*REDIS_DOWN):
                    await self._subscribe(self._pubsub, channel)
            self._start_reader()

    async def close(self) -> None:
        """End every subscription and release the subscriber connection."""
        async with self._lock:
            self._closed = True
            reader, self._reader = self._reader, None
            if reader is not None:
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reader
            await self._discard_pubsub()
            for listeners in self._listeners.values():
                for queue in listeners:
                    queue.put_nowait(None)
            self._listeners.clear()
            self._interrupted.clear()
            self._fail_waiters(StorageUnavailable("the store is closed"))

    # ------------------------------------------------------------ internals

    async def _open(self) -> None:
        """A new subscriber connection, subscribed to every listened channel
        (called with the lock held).  A cluster client must know the
        cluster's map first: its pub/sub connection goes to a node found by
        the first channel's slot."""
        if isinstance(self._client, RedisCluster):
            await self._client.initialize()
        pubsub = self._client.pubsub()
        try:
            if self._sharded:
                await pubsub.connect()
                for channel in self._listeners:
                    await pubsub.ssubscribe(channel)
            elif self._listeners:
                await pubsub.subscribe(*self._listeners)
            else:
                await pubsub.connect()
        except BaseException:
            await _close_quietly(pubsub)
            raise
        self._pubsub = pubsub

    async def _discard_pubsub(self) -> None:
        """Drop the connection; the subscriptions it carried may lose
        messages from now until Redis confirms them again."""
        pubsub, self._pubsub = self._pubsub, None
        for channel in self._confirmed:
            self._interrupted.update(self._listeners.get(channel, ()))
        self._confirmed.clear()
        if pubsub is not None:
            await _close_quietly(pubsub)

    async def _subscribe(self, pubsub: PubSub, channel: bytes) -> None:
        await (pubsub.ssubscribe(channel) if self._sharded else pubsub.subscribe(channel))

    async def _unsubscribe(self, pubsub: PubSub, channel: bytes) -> None:
        await (pubsub.sunsubscribe(channel) if self._sharded else pubsub.unsubscribe(channel))

    def _fail_waiters(self, error: Exception) -> None:
        for waiters in self._waiters.values():
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_exception(error)
        self._waiters.clear()

    def _start_reader(self) -> None:
        if self._reader is None or self._reader.done():
            self._reader = asyncio.create_task(self._read(), name="redis-pubsub-reader")

    async def _read(self) -> None:
        backoff = FIRST_BACKOFF_SECONDS
        while True:
            try:
                pubsub = await self._connected()
                message = await pubsub.get_message(timeout=None)
            except SHARD_LOST as exc:
                if isinstance(exc, ResponseError) and not self._sharded:
                    raise
                if backoff == FIRST_BACKOFF_SECONDS:
                    logger.warning("Redis pub/sub connection lost (%s); reconnecting", exc)
                async with self._lock:
                    await self._discard_pubsub()
                    self._fail_waiters(unavailable(exc))
                if self._on_lost is not None:
                    await self._on_lost(self)
                await sleep(self._scheduler, backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)
                continue
            backoff = FIRST_BACKOFF_SECONDS
            if message is not None and self._dispatch(message) and self._on_lost is not None:
                await self._on_lost(self)

    async def _connected(self) -> PubSub:
        async with self._lock:
            if self._pubsub is None:
                await self._open()
                logger.info("Redis pub/sub connection restored (%d channels)", len(self._listeners))
            assert self._pubsub is not None
            return self._pubsub

    def _dispatch(self, message: dict[str, Any]) -> bool:
        """Hand a message on; True when Redis dropped a shard channel that
        still has listeners (its slot moved to another master)."""
        channel = message["channel"]
        kind = message["type"]
        if kind in ("message", "smessage"):
            for queue in self._listeners.get(channel, ()):
                queue.put_nowait(message["data"])
        elif kind == "sunsubscribe" and channel in self._listeners:
            self._confirmed.discard(channel)
            self._interrupted.update(self._listeners[channel])
            return True
        elif kind in ("subscribe", "ssubscribe") and channel in self._listeners:
            self._confirmed.add(channel)
            for queue in self._listeners[channel] & self._interrupted:
                self._interrupted.discard(queue)
                queue.put_nowait(RESUMED)
            for waiter in self._waiters.pop(channel, []):
                if not waiter.done():
                    waiter.set_result(None)
        return False


async def _close_quietly(pubsub: PubSub) -> None:
    with contextlib.suppress(*REDIS_DOWN):
        await pubsub.aclose()
