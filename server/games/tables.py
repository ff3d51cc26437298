"""The games this process holds: one ``Room`` per game someone here
watches or plays, in a ``HeldTable`` (``server.games.held``: loaded once,
subscribed before loading, kept in step through the relay, reloaded when
behind, forgotten when nobody here needs it any more).

The table knows nothing of who is told what: after it rebuilds a room
from the store or applies an entry relayed from another process, it
hands the room to its ``RoomNews`` (the delivery part), which sends the
news.  Who still needs a room is read from the room itself (watchers,
followers, its lock), from the delayed boards held here, and from the
hooks given to ``on_release`` (a race game's race may be forgotten with it).
A game is loaded a chunk of its log at a time, letting the event loop
serve the others between chunks (``server.games.pacing``).

A room converges on the stored log by itself, whatever happened to the
process that wrote it: each entry comes with its announcement (published
by the append itself, ``server.games.relay``); a gap in relayed entries
reloads the room; every ``relay_audit_seconds`` the stored lengths of
all the live games held here are read, one round trip per
``AUDIT_SLICE`` of them, and a room behind is reloaded (so an entry
whose announcement was lost reaches the watchers here within that
period and a few round trips, without waiting for a later one); and
``current``, which ``watch``, ``resync`` and ``hello`` use, checks the
stored length before it answers, so a returning player is never given a
stale snapshot.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Callable, Protocol

from engine import EngineError
from protocol import ErrorCode
from server.games.delay import DelayedBoard
from server.runtime.metrics import Metrics
from server.model.race_phases import LEDGER_STATUS
from server.games.records import settle
from server.model.refusal import Refusal
from server.games.held import HeldTable
from server.games.owners import owner_of
from server.games.pacing import Pacing
from server.games.room import Room
from server.runtime.scheduler import Scheduler, Timer
from server.model.session import Change, Session
from server.runtime.settings import Settings
from server.model.records import Action
from server.storage.base import StorageError, Store

log = logging.getLogger("arena.core")

AUDIT_SLICE = 250
"""Live rooms an audit reads the stored lengths of at once, before it lets
the loop serve others: about half a millisecond's work on the memory
store, and one pipelined round trip of 500 commands on Redis."""


class RoomNews(Protocol):
    """Who hears that a room changed without an action made here."""

    def reloaded(self, room: Room) -> None:
        """The room's session was rebuilt from the store."""

    def relayed(self, room: Room, change: Change) -> None:
        """Another process's entry was applied (the caller holds ``room.lock``)."""

    def lost(self, room: Room) -> None:
        """The store no longer has the room's game."""


class GameRooms(HeldTable[Room]):
    """The table of rooms; see the module docstring."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        origin: str,
        clock: Callable[[], int],
        metrics: Metrics,
    ) -> None:
        super().__init__(store, origin, "game")
        self._settings = settings
        self._clock = clock
        self._metrics = metrics
        self._release_hooks: list[Callable[[str | None], None]] = []
        self._ended: list[Callable[[Session], None]] = []
        self.delayed: dict[str, DelayedBoard] = {}
        """Delayed mirrors of race games (``server.games.watching``), by game id."""
        self._news: RoomNews | None = None
        self._audit_timer: Timer | None = None
        self._audit_task: asyncio.Task[None] | None = None
        self.audit_slice = AUDIT_SLICE
        self.pacing = Pacing()
        """How a long log is rebuilt without holding the event loop (``server.games.pacing``)."""
        self._closed = False

    def on_ended(self, listener: Callable[[Session], None]) -> None:
        """Call ``listener`` with each game this process settles the end of
        (the social part tells a ranked daily attempt's end to friends)."""
        self._ended.append(listener)

    def tell(self, news: RoomNews) -> None:
        """Send the news of reloads and relayed entries to ``news`` (the
        delivery part, built after this table because it reads it)."""
        self._news = news

    def on_release(self, hook: Callable[[str | None], None]) -> None:
        """Call ``hook`` with a released room's race id (None for a game
        outside races), so the race can be let go with its last game."""
        self._release_hooks.append(hook)

    # ------------------------------------------------------------ the held table's parts

    async def read(self, key: str) -> Room:
        loaded = await self._store.load_session(key)
        if loaded is None:
            raise Refusal(ErrorCode.GAME_NOT_FOUND, f"there is no game {key!r}", game_id=key)
        header, entries = loaded
        if header.status == LEDGER_STATUS:
            raise Refusal(ErrorCode.GAME_NOT_FOUND, f"{key!r} is a race; send watch_race", game_id=key)
        session = await self.pacing.replay(header, entries)
        return Room(session, await owner_of(self._store, header.owner))

    async def loaded(self, room: Room) -> None:
        session = room.session
        if session.result is not None and session.header.status == "playing":
            await self.record(session)

    def needed(self, room: Room) -> bool:
        return bool(room.watchers or room.followers or room.game_id in self.delayed)

    def released(self, room: Room) -> None:
        for hook in self._release_hooks:
            hook(room.session.header.race_id)

    def lost(self, room: Room) -> None:
        if self._news is not None:
            self._news.lost(room)
        self.forget(room)

    async def apply_relayed(self, room: Room, entry: Action) -> None:
        try:
            change = room.session.apply_committed(entry)
        except (LookupError, EngineError) as problem:
            await self.behind(room, str(problem))
            return
        self._metrics.relay_lag.observe(max(0, self._clock() - entry.at_ms) / 1000)
        if self._news is not None:
            self._news.relayed(room, change)

    async def behind(self, room: Room, problem: str) -> None:
        log.info("reloading %s: %s", room.game_id, problem)
        self._metrics.catch_ups.labels("gap").inc()
        await self._reload_quietly(room)

    async def resumed(self, key: str) -> None:
        """Pass the log's last entry on as if relayed: the room ignores it if
        it has it, applies it if it is the next one, and reloads on a gap,
        which covers every entry lost while the subscription was down."""
        try:
            loaded = await self._store.load_session(key)
        except StorageError as error:
            # The store is gone again; it will resume the subscription again.
            log.warning("could not catch up with %s after a pub/sub outage: %s", key, error)
            return
        room = self.rooms.get(key)
        if room is not None and loaded is not None and loaded[1]:
            entries = loaded[1]
            await self.relayed(room, len(entries), entries[-1])

    async def reload(self, room: Room) -> None:
        """Rebuild a room's session from the store and snapshot every watcher
        (after a log conflict or a gap in relayed entries)."""
        loaded = await self._store.load_session(room.game_id)
        if loaded is None:
            raise Refusal(ErrorCode.GAME_NOT_FOUND, f"there is no game {room.game_id!r}", game_id=room.game_id)
        room.session = Session.replay(*loaded)
        if self._news is not None:
            self._news.reloaded(room)

    async def _reload_quietly(self, room: Room) -> None:
        try:
            await self.reload(room)
        except (Refusal, StorageError) as error:
            log.warning("could not reload %s: %s", room.game_id, error)

    # ------------------------------------------------------------ converging

    async def current(self, game_id: str) -> Room:
        """The room of ``game_id`` as the store has it now: a room already
        held is checked against the stored log and rebuilt if it is behind
        (an entry whose announcement is on its way, or was lost).  While
        the store cannot be read the held room is the best there is, and
        is what the watcher gets."""
        held = game_id in self.rooms
        room = await self.room(game_id)
        if held:
            try:
                stored = await self._store.log_lengths([game_id])
            except StorageError as error:
                log.debug("serving %s as held: %s", game_id, error)
                return room
            await self._catch_up(room, stored.get(game_id), "watch")
        return room

    def audit_every(self, scheduler: Scheduler, seconds: float) -> None:
        """Compare the live games held here with their stored logs every
        ``seconds`` (``audit``), on ``scheduler``, until ``close``."""
        if not self._closed:
            self._audit_timer = scheduler.call_later(seconds, lambda: self._audit_due(scheduler, seconds))

    def _audit_due(self, scheduler: Scheduler, seconds: float) -> None:
        self._audit_task = asyncio.create_task(self._audit_then_again(scheduler, seconds), name="log audit")

    async def _audit_then_again(self, scheduler: Scheduler, seconds: float) -> None:
        try:
            await self.audit()
        except StorageError as error:
            log.debug("could not compare the games held here with the store: %s", error)
        finally:
            self.audit_every(scheduler, seconds)

    async def audit(self) -> None:
        """Reload every live room held here whose stored log is longer than
        its session: one read of the lengths per ``audit_slice`` rooms,
        then a reload each.  The loop serves others between slices: read
        and compared in one go, five thousand rooms held it for 12 ms every
        ``relay_audit_seconds``, the longest stall an action met there."""
        live = [room for room in self.rooms.values() if room.session.result is None]
        for start in range(0, len(live), self.audit_slice):
            part = live[start : start + self.audit_slice]
            stored = await self._store.log_lengths([room.game_id for room in part])
            for room in part:
                length = stored.get(room.game_id)
                if length is not None and length > room.session.seq:
                    await self._catch_up(room, length, "audit")
            await asyncio.sleep(0)

    async def _catch_up(self, room: Room, stored: int | None, cause: str) -> None:
        """Reload ``room`` if the store has more entries than it (``cause``
        names who noticed, for the metric)."""
        if stored is None or stored <= room.session.seq:
            return
        async with room.lock:
            if stored <= room.session.seq or self.rooms.get(room.game_id) is not room:
                return
            log.info("reloading %s: the store has %d entries, this process %d", room.game_id, stored, room.session.seq)
            self._metrics.catch_ups.labels(cause).inc()
            await self._reload_quietly(room)

    async def close(self) -> None:
        """Stop the audits and the relay."""
        self._closed = True
        if self._audit_timer is not None:
            self._audit_timer.cancel()
        if self._audit_task is not None:
            self._audit_task.cancel()
            await asyncio.gather(self._audit_task, return_exceptions=True)
        await super().close()

    # ------------------------------------------------------------ games

    async def record(self, session: Session) -> None:
        """Settle a finished game's outbox: its final header, its owner's
        record and Vegas earnings, a ranked daily win's leaderboard entry
        (``records.settle``).  If the store fails here the outbox stays
        open, and the next start or the next process to load the game
        settles it."""
        try:
            await settle(self._store, self._settings, session)
        except StorageError as error:
            log.warning("could not settle the end of %s: %s", session.game_id, error)
            return
        for listener in self._ended:
            listener(session)
