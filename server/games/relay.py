"""Log entries between server processes, through the store's pub/sub: the
one channel that game rooms and race ledgers share.

What crosses processes is the log entry itself (origin, seq, action), not
encoded frames: every process holding a game or a race rebuilds it from
the same log, so applying the entry gives the same view and the same
news, which it then encodes once per codec for its own watchers.  That
keeps the published payload tiny, lets a process that did not make the
change serve snapshots and even the next change, and needs no trust in
bytes relayed from elsewhere.  Pub/sub may drop a message (Redis does on
reconnect): the holder (``server.games.held``) reloads on a gap in
``seq``, and when a subscription comes back after a lost connection it
is told (``on_resume``) and reads the store again.

A message is MessagePack ``[origin, kind, *fields]``: kind ``entry``
(fields: seq, then the action) for every log, and whatever else a kind of
log sends beside its entries (a race's ``progress``).  Each process tags
what it publishes with its ``origin`` and subscribes without its own
messages, since it has already applied them: the store tells them by
their first bytes (``comes_from``), without unpacking them, and the
stores of one process drop them before waking the room at all.

An entry is published by the store's append itself (``announcement``,
``Store.append``), in the same atomic step that writes it: a process
that dies right after writing an entry, before or after acknowledging
it, has told every other process all the same.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, Callable

import msgpack

from protocol.codec import MSGPACK
from server.model.records import Action, Announcement
from server.model.refusal import Refusal
from server.storage.base import StorageError, Store, Subscription

log = logging.getLogger("arena.relay")

ENTRY = "entry"

OnMessage = Callable[[str, str, list[Any]], Awaitable[None]]
"""Called with the key (a game or race id), the kind and the fields of a
message another process sent."""

OnResume = Callable[[str], Awaitable[None]]
"""Called with the key whose subscription came back after an outage."""


def pack(origin: str, kind: str, fields: list[Any]) -> bytes:
    return MSGPACK.encode_data([origin, kind, *fields])


def unpack(payload: bytes) -> tuple[str, str, list[Any]]:
    origin, kind, *fields = msgpack.unpackb(payload, raw=False)
    return str(origin), str(kind), fields


ARRAY_HEADERS = {**{code: 1 for code in range(0x90, 0xA0)}, 0xDC: 3, 0xDD: 5}
"""The length of a MessagePack array's header by its first byte: fixarray,
array 16, array 32."""


def comes_from(payload: bytes, packed_origin: bytes) -> bool:
    """Whether ``pack`` made ``payload`` with the origin that packs alone to
    ``packed_origin``, read from the bytes: a process hears every message it
    publishes itself, and skips them without unpacking them (a packed
    string carries its length, so a longer origin cannot match)."""
    start = ARRAY_HEADERS.get(payload[0]) if payload else None
    return start is not None and payload.startswith(packed_origin, start)


def entry_fields(seq: int, action: Action) -> list[Any]:
    return [seq, *action.to_list()]


def read_entry(fields: list[Any]) -> tuple[int, Action]:
    return int(fields[0]), Action.from_list(fields[1:])


class Relay:
    """This process's subscriptions to one kind of log (``prefix``: ``game``
    or ``race``), one per log it holds."""

    def __init__(self, store: Store, origin: str, prefix: str, on_message: OnMessage, on_resume: OnResume) -> None:
        self._store = store
        self.origin = origin
        self._packed_origin = msgpack.packb(origin, use_bin_type=True)
        self._prefix = prefix
        self._on_message = on_message
        self._on_resume = on_resume
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def channel(self, key: str) -> str:
        return f"{self._prefix}:{key}"

    async def subscribe(self, key: str) -> Subscription:
        """Subscribe before loading a log, so nothing published while it
        loads is missed; then ``follow`` with the subscription."""

        async def resumed() -> None:
            await self._on_resume(key)

        return await self._store.subscribe(self.channel(key), resumed, self.own)

    def own(self, payload: bytes) -> bool:
        """Whether this process published ``payload``: it has applied it already."""
        return comes_from(payload, self._packed_origin)

    def follow(self, key: str, subscription: Subscription) -> None:
        """Start passing other processes' messages about ``key`` to ``on_message``."""
        self._tasks[key] = asyncio.create_task(self._consume(key, subscription), name=f"relay {self.channel(key)}")

    async def _consume(self, key: str, subscription: Subscription) -> None:
        try:
            async for payload in subscription:
                try:
                    _, kind, fields = unpack(payload)
                    await self._on_message(key, kind, fields)
                except (ValueError, TypeError, KeyError, IndexError, msgpack.ExtraData, msgpack.FormatError) as error:
                    log.warning("ignored a malformed message on %s: %s", self.channel(key), error)
                except (Refusal, StorageError) as error:
                    log.warning("could not follow %s: %s", self.channel(key), error)
        finally:
            await subscription.close()

    def unfollow(self, key: str) -> None:
        task = self._tasks.pop(key, None)
        if task is not None:
            task.cancel()

    def announcement(self, key: str, seq: int, action: Action) -> Announcement:
        """What the append of entry ``seq`` publishes to the other processes."""
        return Announcement(self.channel(key), pack(self.origin, ENTRY, entry_fields(seq, action)))

    async def publish(self, key: str, kind: str, fields: list[Any]) -> None:
        """Publish what is not a log entry (failures are logged: the store
        has the truth, and the others read it again on a gap)."""
        try:
            await self._store.publish(self.channel(key), pack(self.origin, kind, fields))
        except StorageError as error:
            log.warning("could not publish to %s: %s", self.channel(key), error)

    async def close(self) -> None:
        tasks = list(self._tasks.values())
        self._tasks.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
