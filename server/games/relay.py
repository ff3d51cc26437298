"""Log entries between server processes, through the store's pub/sub.

What crosses processes is the log entry itself (origin, seq, action), not
encoded diffs: every process holding a game rebuilds it from the same
log, so applying the entry gives the same view and the same diff, which
it then encodes once per codec for its own watchers.  That keeps the
published payload tiny, lets a process that did not make the move serve
snapshots and even the next move, and needs no trust in bytes relayed
from elsewhere.  Pub/sub may drop a message (Redis does on reconnect):
a process that sees a gap in ``seq`` reloads the log from the store.
A gap shows only when a later entry comes, so when a subscription comes
back after a lost connection the relay reads the game's log and passes
its last entry on as if relayed: the holder ignores it if it has it,
applies it if it is the next one, and reloads on a gap, which covers
every entry lost while the subscription was down.

Each process tags what it publishes with its ``origin`` and ignores its
own messages, since it has already applied them.

An entry is published by the store's append itself (``announcement``,
``Store.append``), in the same atomic step that writes it: a process
that dies right after writing an entry, before or after acknowledging
it, has told every other process all the same.  What pub/sub can still
lose (a subscriber's lost connection) the resumed subscription's catch-up
finds, and ``GameRooms`` checks the stored logs of the games it holds on
a timer and at each ``watch`` and ``hello`` besides (docs/architecture.md,
"Scaling out").
"""

from __future__ import annotations

import asyncio
import logging
from typing import Awaitable, Callable

import msgpack

from server.model.records import Action, Announcement
from server.storage.base import StorageError, Store, Subscription

log = logging.getLogger("arena.relay")

OnAction = Callable[[str, int, Action], Awaitable[None]]


def game_channel(game_id: str) -> str:
    return f"game:{game_id}"


def pack(origin: str, seq: int, action: Action) -> bytes:
    return msgpack.packb([origin, seq, *action.to_list()], use_bin_type=True)


def unpack(payload: bytes) -> tuple[str, int, Action]:
    origin, seq, *entry = msgpack.unpackb(payload, raw=False)
    return str(origin), int(seq), Action.from_list(entry)


class Relay:
    """Subscriptions of this process, one per game it holds."""

    def __init__(self, store: Store, origin: str, on_action: OnAction) -> None:
        self._store = store
        self.origin = origin
        self._on_action = on_action
        self._tasks: dict[str, asyncio.Task[None]] = {}

    async def subscribe(self, game_id: str) -> Subscription:
        """Subscribe before loading a game, so nothing published while it
        loads is missed; then ``follow`` with the subscription."""

        async def catch_up() -> None:
            await self._catch_up(game_id)

        return await self._store.subscribe(game_channel(game_id), catch_up)

    async def _catch_up(self, game_id: str) -> None:
        """Pass on the log's last entry (see the module docstring)."""
        try:
            loaded = await self._store.load_session(game_id)
        except StorageError as error:
            # The store is gone again; it will resume the subscription again.
            log.warning("could not catch up with %s after a pub/sub outage: %s", game_id, error)
            return
        if loaded is not None and loaded[1]:
            entries = loaded[1]
            await self._on_action(game_id, len(entries), entries[-1])

    def follow(self, game_id: str, subscription: Subscription) -> None:
        """Start passing other processes' entries for ``game_id`` to ``on_action``."""
        self._tasks[game_id] = asyncio.create_task(self._consume(game_id, subscription), name=f"relay {game_id}")

    async def _consume(self, game_id: str, subscription: Subscription) -> None:
        try:
            async for payload in subscription:
                try:
                    origin, seq, action = unpack(payload)
                except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError) as error:
                    log.warning("ignored a malformed relay message for %s: %s", game_id, error)
                    continue
                if origin != self.origin:
                    await self._on_action(game_id, seq, action)
        finally:
            await subscription.close()

    def unfollow(self, game_id: str) -> None:
        task = self._tasks.pop(game_id, None)
        if task is not None:
            task.cancel()

    def announcement(self, game_id: str, seq: int, action: Action) -> Announcement:
        """What the append of entry ``seq`` publishes to the other processes."""
        return Announcement(game_channel(game_id), pack(self.origin, seq, action))

    async def close(self) -> None:
        tasks = list(self._tasks.values())
        self._tasks.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
