"""A table of the logs this process holds, games or races alike: each is
loaded from the store once however many ask, kept in step with the other
processes through its channel (``server.games.relay``), reloaded when it
falls behind, and forgotten when nothing here needs it any more (the
store still has it).

- Load once: the first ask loads, the others wait for the same load.
- Subscribe before load: the channel is subscribed before the log is
  read, so an entry appended meanwhile is either in what was read or
  arrives after it, never missed.
- Reload: a relayed entry that skips one (``seq``) means pub/sub lost
  some, and a store wiped or replaced (``store_replaced``) means the log
  held here may be gone; either way the log is read again.
- Release: when its last watcher leaves (``release``, which asks the
  table whether something else here still needs it).
- Append: an entry is stored and announced to the other processes in
  one atomic step (``append``), a game's action and a race's change
  alike, so no entry is stored untold or told unstored; who is told here
  is the caller's next step (``server.games.delivery`` for a game).

A held log is a ``Held``: a key (its id), its ``seq`` (entries applied)
and the ``lock`` that serializes its changes.  What differs between a
game and a race (reading one, applying an entry, what else its channel
carries, who still needs it) is what a table fills in.
"""

from __future__ import annotations

import asyncio
from typing import Any, Generic, Protocol, TypeVar

from server.games.relay import ENTRY, Relay, read_entry
from server.model.records import Action
from server.model.refusal import Refusal
from server.runtime.once import load_once
from server.storage.base import Store, Subscription


class Held(Protocol):
    lock: asyncio.Lock

    @property
    def key(self) -> str: ...

    @property
    def seq(self) -> int: ...


R = TypeVar("R", bound=Held)


class HeldTable(Generic[R]):
    """The table; see the module docstring.  ``prefix`` names the kind of
    log on the channel (``game``, ``race``)."""

    def __init__(self, store: Store, origin: str, prefix: str) -> None:
        self._store = store
        self.rooms: dict[str, R] = {}
        self._loading: dict[str, asyncio.Future[R]] = {}
        self.relay = Relay(store, origin, prefix, self._on_message, self.resumed)

    # ------------------------------------------------------------ what a table fills in

    async def read(self, key: str) -> R:
        """The log ``key`` as the store has it; ``Refusal`` if there is none."""
        raise NotImplementedError

    def needed(self, room: R) -> bool:
        """Whether something here besides a change in progress needs ``room``."""
        raise NotImplementedError

    async def apply_relayed(self, room: R, entry: Action) -> None:
        """Apply another process's entry, the next one (the caller holds ``room.lock``)."""
        raise NotImplementedError

    async def behind(self, room: R, problem: str) -> None:
        """``room`` missed entries (the caller holds its lock): read it again."""
        raise NotImplementedError

    async def reload(self, room: R) -> None:
        """Read ``room`` again from the store (the caller holds its lock);
        ``Refusal`` if the store no longer has it."""
        raise NotImplementedError

    async def resumed(self, key: str) -> None:
        """The channel of ``key`` is back after an outage: catch up with the store."""
        raise NotImplementedError

    async def note(self, room: R, kind: str, fields: list[Any]) -> None:
        """A message of another ``kind`` than an entry on ``room``'s channel."""
        raise ValueError(f"unknown message kind {kind!r}")

    async def loaded(self, room: R) -> None:
        """``room`` was just loaded and held."""

    def held(self, room: R) -> None:
        """``room`` is held from now on."""

    def released(self, room: R) -> None:
        """``room`` was released: nothing here needed it any more."""

    def lost(self, room: R) -> None:
        """The store no longer has ``room``'s log (the caller holds its lock)."""
        self.forget(room)

    # ------------------------------------------------------------ the table

    async def room(self, key: str) -> R:
        """The log ``key``, loaded and followed (once, however many ask at
        the same time); ``Refusal`` if there is none."""
        room = self.rooms.get(key)
        if room is not None:
            return room
        return await load_once(self._loading, key, lambda: self._load(key))

    async def _load(self, key: str) -> R:
        subscription = await self.relay.subscribe(key)
        try:
            room = await self.read(key)
        except BaseException:
            await subscription.close()
            raise
        self.hold(room, subscription)
        await self.loaded(room)
        return room

    def hold(self, room: R, subscription: Subscription) -> None:
        """Hold a log, with the subscription taken before the store had (or
        was read for) it, so nothing published since is missed."""
        self.rooms[room.key] = room
        self.relay.follow(room.key, subscription)
        self.held(room)

    async def append(self, room: R, entry: Action, *, ends: bool = False) -> None:
        """Store ``entry`` as the next of ``room``'s log if the log is as long
        as ``room`` knows it (``LogConflict`` otherwise), announcing it to
        the other processes in the same atomic step (``Relay.announcement``),
        so an entry is never stored untold nor told unstored."""
        seq = room.seq
        await self._store.append(room.key, seq, entry, ends=ends, announce=self.relay.announcement(room.key, seq + 1, entry))

    def release(self, room: R) -> None:
        """Forget a log nothing here needs (the store still has it)."""
        if self.needed(room) or room.lock.locked() or self.rooms.get(room.key) is not room:
            return
        self.forget(room)
        self.released(room)

    def forget(self, room: R) -> None:
        """Drop ``room`` and its channel from this process."""
        if self.rooms.get(room.key) is room:
            del self.rooms[room.key]
            self.relay.unfollow(room.key)

    async def store_replaced(self) -> None:
        """The store was wiped or replaced: read every log held here again,
        and let go of those it no longer has (``lost``)."""
        for room in list(self.rooms.values()):
            async with room.lock:
                try:
                    await self.reload(room)
                except Refusal:
                    self.lost(room)

    async def _on_message(self, key: str, kind: str, fields: list[Any]) -> None:
        room = self.rooms.get(key)
        if room is None:
            return
        if kind != ENTRY:
            await self.note(room, kind, fields)
            return
        seq, entry = read_entry(fields)
        await self.relayed(room, seq, entry)

    async def relayed(self, room: R, seq: int, entry: Action) -> None:
        """Another process appended ``entry`` as entry ``seq`` of ``room``:
        apply it if it is the next, reload if some were missed."""
        async with room.lock:
            if seq <= room.seq:
                return
            if seq > room.seq + 1:
                await self.behind(room, f"missed entries {room.seq + 1}..{seq - 1}")
                return
            await self.apply_relayed(room, entry)

    async def close(self) -> None:
        await self.relay.close()
