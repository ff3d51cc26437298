"""Following races from one server process: each race's ledger, loaded
from the store, changed by compare-and-append, and kept in step with the
other processes through the race's channel.

- The ledger (see ``server.races.state``) is the race's truth, so any process
  can serve any racer: a change is appended with the ledger's expected
  length; a process that lost the race re-reads the ledger and checks the
  request again.
- Every appended entry and every racer's progress (published by the
  process where the racer acted) go out on the race's channel,
  ``race:<race_id>``, tagged with the sender's origin; each process that
  follows the race applies what others send.  A gap in the ledger's
  numbering, or a subscription back after an outage, makes the process
  re-read the ledger and the racers' games from the store.

``RaceRooms`` does this bookkeeping, creates ledgers, and answers the
watching part's questions about a race game (may it be watched live,
does its ``game_over`` hide the deal).  What a change means for the
connections and the race's clocks is told to its ``RaceChanges`` (the
race desk, ``server.races.desk``), which it knows only as that.

Documents: ``race_code`` (code -> race id) and ``race`` (one per race,
indexed under ``player/<id>`` for each racer: the race history), both
kept as long as the ledger.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import Counter
from typing import Any, Callable, Container, Coroutine, Protocol

import msgpack

from protocol import ErrorCode
from protocol import to_client as tc
from protocol.to_server import RequestId
from server.runtime.once import load_once
from server.net.outbox import Outbox
from server.net.peer import Peer
from server.races.followers import RaceRoom
from server.races.progress import Progress
from server.model.race_phases import FINISHED, RUNNING
from server.races.state import Milestones, RaceLedger, RaceState, create_entry, milestones
from server.races.views import final_progress
from server.model.ids import new_code, new_id
from server.model.refusal import Refusal
from server.model.session import ABANDONED, Session
from server.runtime.settings import Settings
from server.model.records import Action
from server.storage.base import LogConflict, StorageError, Store, Subscription

log = logging.getLogger("arena.races")

LEDGER_RETRIES = 5
RACE_DOCUMENT = "race"
CODE_DOCUMENT = "race_code"
CODE_ATTEMPTS = 5

Make = Callable[[RaceState, int], Action | None]


def race_channel(race_id: str) -> str:
    return f"race:{race_id}"


def history_index(player_id: str) -> str:
    return f"player/{player_id}"


class RaceChanges(Protocol):
    """Who acts on what happens to a race held here."""

    def race_armed(self, room: RaceRoom) -> None:
        """A race is followed from now on: set its clocks."""

    def race_changed(
        self, room: RaceRoom, before: Milestones, entry: Action | None, actor: Peer | None,
        request_id: RequestId | None,
    ) -> None:
        """The race changed (by ``entry``, or by a reload when None)."""

    def progress_changed(self, room: RaceRoom, player_id: str) -> None:
        """A racer's progress changed."""


class RaceRooms:
    """The races this process follows; see the module docstring."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        clock: Callable[[], int],
        origin: str,
        outbox: Outbox,
        held_games: Container[str],
        changes: RaceChanges,
    ) -> None:
        self._settings = settings
        self._store = store
        self._now = clock
        self._origin = origin
        self._outbox = outbox
        self._held_games = held_games
        """The games this process holds: a race is kept while one of its games is."""
        self._changes = changes
        self.rooms: dict[str, RaceRoom] = {}
        self._loading: dict[str, asyncio.Future[RaceRoom]] = {}
        self._followers: dict[str, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    async def close(self) -> None:
        """Stop every clock, follower and task."""
        for room in self.rooms.values():
            for timer in room.timers:
                timer.cancel()
        tasks = [*self._followers.values(), *self._tasks]
        self._followers.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def room(self, race_id: str) -> RaceRoom:
        """The race, loaded and followed (once, however many ask at once);
        ``Refusal`` (race_not_found) if there is none."""
        room = self.rooms.get(race_id)
        if room is not None:
            return room
        return await load_once(self._loading, race_id, lambda: self._load(race_id))

    async def _subscribe(self, race_id: str) -> Subscription:
        async def resumed() -> None:
            room = self.rooms.get(race_id)
            if room is not None:
                async with room.lock:
                    await self._reload(room)

        subscription: Subscription = await self._store.subscribe(race_channel(race_id), on_resume=resumed)
        return subscription

    async def _load(self, race_id: str) -> RaceRoom:
        subscription = await self._subscribe(race_id)
        try:
            state = await self.read(race_id)
            if state is None:
                raise Refusal(ErrorCode.RACE_NOT_FOUND, f"there is no race {race_id!r}")
            room = RaceRoom(state)
            room.progress = await self._progress(state)
        except BaseException:
            await subscription.close()
            raise
        self._hold(room, subscription)
        return room

    async def read(self, race_id: str) -> RaceState | None:
        loaded = await self._store.load_session(race_id)
        ledger = RaceLedger.read(loaded[0]) if loaded is not None else None
        if loaded is None or ledger is None:
            return None
        return RaceState.replay(ledger, loaded[1])

    async def _progress(self, state: RaceState) -> dict[str, Progress]:
        if state.finished_ms is not None:
            return final_progress(state)
        sessions = await self.sessions(state)
        return {
            state.games[game_id]: Progress.of(session) if session else Progress(result=ABANDONED)
            for game_id, session in sessions.items()
        }

    async def sessions(self, state: RaceState) -> dict[str, Session | None]:
        sessions: dict[str, Session | None] = {}
        for game_id in state.games:
            loaded = await self._store.load_session(game_id)
            sessions[game_id] = Session.replay(*loaded) if loaded is not None else None
        return sessions

    def _hold(self, room: RaceRoom, subscription: Subscription) -> None:
        self.rooms[room.race_id] = room
        self._followers[room.race_id] = asyncio.create_task(
            self._consume(room.race_id, subscription), name=f"race {room.race_id}"
        )
        self._changes.race_armed(room)

    def release_room(self, room: RaceRoom) -> None:
        """Stop following a race nobody here watches or plays."""
        if room.watchers or room.lock.locked() or room.settling.locked() or self.rooms.get(room.race_id) is not room:
            return
        if any(game_id in self._held_games for game_id in room.state.games):
            return
        self.forget(room)

    def forget(self, room: RaceRoom) -> None:
        """Drop a race from this process: its room, clocks and channel."""
        if self.rooms.get(room.race_id) is room:
            del self.rooms[room.race_id]
        for timer in room.timers:
            timer.cancel()
        follower = self._followers.pop(room.race_id, None)
        if follower is not None:
            follower.cancel()

    async def change(
        self, room: RaceRoom, make: Make, actor: Peer | None = None, request_id: RequestId | None = None
    ) -> Action | None:
        """Append the entry ``make`` builds from the current state (None:
        nothing to do), re-reading the ledger when another process got
        there first; then tell everyone."""
        for _ in range(LEDGER_RETRIES):
            async with room.lock:
                before = milestones(room.state)
                entry = make(room.state, self._now())
                if entry is None:
                    return None
                try:
                    await self._store.append(room.race_id, room.state.seq, entry)
                except LogConflict:
                    await self._reload(room)
                    continue
                except KeyError:
                    raise Refusal(ErrorCode.RACE_NOT_FOUND, "this race is no longer stored") from None
                room.state.apply(entry)
                seq = room.state.seq
            await self._publish(room.race_id, msgpack.packb(["entry", self._origin, seq, *entry.to_list()]))
            self._changes.race_changed(room, before, entry, actor, request_id)
            return entry
        raise Refusal(ErrorCode.STATE_CONFLICT, "the race kept changing on other servers; try again")

    async def store_replaced(self) -> None:
        """The store was wiped or replaced: reload every race held here, and
        tell the followers of one the store no longer has that it is gone."""
        for room in list(self.rooms.values()):
            async with room.lock:
                if await self.read(room.race_id) is not None:
                    await self._reload(room)
                    continue
                for peer in list(room.watchers):
                    self._outbox.send(peer, tc.Error(
                        code=ErrorCode.RACE_NOT_FOUND, message="this race was lost with the server's store",
                        reason=None, game_id=None,
                    ))
                room.watchers.clear()
                self.forget(room)

    async def _reload(self, room: RaceRoom) -> None:
        """Re-read the ledger and the racers' games (the caller holds the lock)."""
        before = milestones(room.state)
        state = await self.read(room.race_id)
        if state is None:
            return
        room.state = state
        room.progress = await self._progress(state)
        self._changes.race_changed(room, before, None, None, None)

    async def _consume(self, race_id: str, subscription: Subscription) -> None:
        try:
            async for payload in subscription:
                room = self.rooms.get(race_id)
                try:
                    kind, origin, *rest = msgpack.unpackb(payload, raw=False)
                    if room is None or origin == self._origin:
                        continue
                    if kind == "entry":
                        await self._on_entry(room, int(rest[0]), Action.from_list(rest[1:]))
                    elif kind == "progress":
                        self._on_progress(room, str(rest[0]), Progress.from_list(rest[1:]))
                except (ValueError, TypeError, KeyError, msgpack.ExtraData, msgpack.FormatError) as error:
                    log.warning("ignored a malformed race message for %s: %s", race_id, error)
                except (Refusal, StorageError) as error:
                    log.warning("could not follow race %s: %s", race_id, error)
        finally:
            await subscription.close()

    async def _on_entry(self, room: RaceRoom, seq: int, entry: Action) -> None:
        async with room.lock:
            if seq <= room.state.seq:
                return
            if seq > room.state.seq + 1:
                await self._reload(room)
                return
            before = milestones(room.state)
            room.state.apply(entry)
        self._changes.race_changed(room, before, entry, None, None)

    def _on_progress(self, room: RaceRoom, player_id: str, progress: Progress) -> None:
        current = room.progress.get(player_id)
        if player_id not in room.state.racers or current is not None and current.seq > progress.seq:
            return
        room.progress[player_id] = progress
        self._changes.progress_changed(room, player_id)

    async def share_progress(self, race_id: str, player_id: str, progress: Progress) -> None:
        """A racer acted here: tell this process's followers, then the others."""
        room = self.rooms.get(race_id)
        if room is not None:
            self._on_progress(room, player_id, progress)
        await self._publish(race_id, msgpack.packb(["progress", self._origin, player_id, *progress.to_list()]))

    async def _publish(self, race_id: str, payload: bytes) -> None:
        """Publish to the other processes (failures are logged: the store
        has the truth, and they re-read it on a gap)."""
        try:
            await self._store.publish(race_channel(race_id), payload)
        except StorageError as error:
            log.warning("could not publish to race %s: %s", race_id, error)


    # ------------------------------------------------------------ ledgers

    async def create(
        self, game: str, options: dict[str, Any], deal: int | str, host: tc.Owner, racers: list[tc.Owner]
    ) -> RaceRoom:
        settings = self._settings
        now = self._now()
        race_id = new_id("r_")
        # The latest end is a start at the invite's last moment, plus the
        # countdown, plus the time limit: the ledger, its code and its page
        # stay finished_retention_seconds after that.
        latest_end = settings.race_invite_seconds + math.ceil(settings.race_countdown_seconds) + settings.race_time_limit_seconds
        keep = latest_end + settings.finished_retention_seconds
        code = await self._free_code()
        ledger = RaceLedger(race_id, game, options, host.player_id, now)
        header = ledger.stored()
        entry = create_entry(
            code=code, host=host, deal=deal, limit=settings.race_limit,
            countdown_ms=round(settings.race_countdown_seconds * 1000),
            time_limit_ms=settings.race_time_limit_seconds * 1000,
            invite_expires_ms=now + settings.race_invite_seconds * 1000, racers=racers, now_ms=now,
        )
        subscription = await self._subscribe(race_id)
        try:
            await self._store.create_session(header)
            await self._store.finish_session(header, keep)
            await self._store.append(race_id, 0, entry)
            await self._store.put_document(CODE_DOCUMENT, code, {"race_id": race_id}, keep)
            await self._store.put_document(RACE_DOCUMENT, race_id, {"race_id": race_id, "created_ms": now}, keep)
            for racer in racers:
                await self._store.index_document(RACE_DOCUMENT, history_index(racer.player_id), race_id, now)
        except BaseException:
            await subscription.close()
            raise
        room = RaceRoom(RaceState.replay(ledger, [entry]))
        self._hold(room, subscription)
        return room

    async def _free_code(self) -> str:
        for _ in range(CODE_ATTEMPTS):
            code = new_code()
            if await self._store.get_document(CODE_DOCUMENT, code) is None:
                return code
        raise RuntimeError("could not find an unused invite code")

    async def discard_race(self, room: RaceRoom) -> None:
        """Remove a race that lost to another (a duplicate rematch)."""
        state = room.state
        ledger = RaceLedger(room.race_id, state.game, state.options, state.host, state.created_ms)
        await self._store.finish_session(ledger.stored(), 0)
        self.forget(room)

    # ------------------------------------------------------------ the watching part's questions

    async def watch_mode(self, peer: Peer, session: Session) -> bool:
        """Whether ``peer`` may watch this race game live (False: delayed);
        raises ``Refusal`` when it may not watch it at all."""
        header = session.header
        assert header.race_id is not None
        viewer = peer.player.player_id if peer.player is not None else None
        try:
            room = await self.room(header.race_id)
        except Refusal:
            return viewer == header.owner or session.result is not None
        state = room.state
        phase = state.phase(self._now())
        self.release_room(room)
        if phase == FINISHED:
            return True
        if viewer != header.owner and viewer in state.racers:
            raise Refusal(
                ErrorCode.FORBIDDEN,
                "you are in this race: rivals' boards stay hidden until it ends; race_progress tells how they do",
                game_id=header.game_id,
            )
        if phase != RUNNING:
            raise Refusal(ErrorCode.RACE_STATE, state.wait_sentence(self._now()), game_id=header.game_id)
        return viewer == header.owner

    def hides_deal(self, race_id: str) -> bool:
        """Whether a race game's ``game_over`` must not tell the deal yet
        (its rivals may still be playing it)."""
        room = self.rooms.get(race_id)
        return room is None or room.state.finished_ms is None

    async def deal_public(self, race_id: str) -> bool:
        """Whether a race's deal may be shown (its race is over, or gone
        from the store), loading the race if this process does not hold it."""
        try:
            room = await self.room(race_id)
        except Refusal:
            return True
        self.release_room(room)
        return room.state.finished_ms is not None

    def phases(self) -> Counter[str]:
        """How many races this process holds in each phase (for ``/metrics``)."""
        now = self._now()
        return Counter(room.state.phase(now) for room in self.rooms.values())

    def release_if_idle(self, race_id: str | None) -> None:
        """A game of this race was released: stop following the race too if
        nothing else here needs it."""
        room = self.rooms.get(race_id) if race_id is not None else None
        if room is not None:
            self.release_room(room)
