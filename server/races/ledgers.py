"""Following races from one server process: each race's ledger, held in
a ``HeldTable`` (``server.games.held``, as the game rooms are: loaded
once, subscribed before loading, reloaded when behind, released), changed
by compare-and-append, and kept in step with the other processes through
the same channel as games (``server.games.relay``).

- The ledger (see ``server.races.state``) is the race's truth, so any process
  can serve any racer: a change is appended with the ledger's expected
  length; a process that lost the race re-reads the ledger and checks the
  request again.
- Every appended entry (published by the append itself, as a game's is)
  and every racer's progress (published by the process where the racer
  acted) go out on the race's channel, ``race:<race_id>``; each process
  that follows the race applies what others send.  A gap in the ledger's
  numbering, or a subscription back after an outage, makes the process
  re-read the ledger and the racers' games from the store.

``RaceRooms`` does this bookkeeping, creates ledgers, and tells the
watching part what a race game's race is (``race_facts``), from which
``server.model.visibility`` decides what may be seen of it.  What a change means for the
connections and the race's clocks is told to its ``RaceChanges`` (the
race's clocks, ``server.races.clocks``), which it knows only as that.

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

from protocol import ErrorCode
from protocol import to_client as tc
from protocol.to_server import RequestId
from server.games.held import HeldTable
from server.games.pacing import Pacing
from server.net.outbox import Outbox
from server.net.peer import Peer
from server.races.followers import RaceRoom
from server.races.progress import Progress
from server.races.state import Milestones, RaceLedger, RaceState, create_entry, milestones
from server.races.views import final_progress
from server.model.refusal import Refusal
from server.model.session import ABANDONED, Session
from server.model.visibility import RACE_GONE, RaceFacts
from server.runtime.entropy import Entropy
from server.runtime.settings import Settings
from server.model.records import Action
from server.storage.base import LogConflict, StorageError, Store

log = logging.getLogger("arena.races")

LEDGER_RETRIES = 5
RACE_DOCUMENT = "race"
CODE_DOCUMENT = "race_code"
CODE_ATTEMPTS = 5

Make = Callable[[RaceState, int], Action | None]

PROGRESS = "progress"
"""What a race's channel carries beside its entries: a racer's progress."""


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


class RaceRooms(HeldTable[RaceRoom]):
    """The races this process follows; see the module docstring."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        clock: Callable[[], int],
        entropy: Entropy,
        origin: str,
        outbox: Outbox,
        held_games: Container[str],
    ) -> None:
        super().__init__(store, origin, "race")
        self._settings = settings
        self._now = clock
        self._entropy = entropy
        self._outbox = outbox
        self._held_games = held_games
        """The games this process holds: a race is kept while one of its games is."""
        self._changes: RaceChanges | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.pacing = Pacing()
        """Racers' games are rebuilt without holding the event loop (``server.games.pacing``)."""

    async def close(self) -> None:
        """Stop every clock, channel and task."""
        for room in self.rooms.values():
            for timer in room.timers:
                timer.cancel()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await super().close()

    def tell(self, changes: RaceChanges) -> None:
        """Tell ``changes`` (the race's clocks, built after the ledgers
        because they change them) what happens to the races held here."""
        self._changes = changes

    @property
    def changes(self) -> RaceChanges:
        assert self._changes is not None, "the desk tells the ledgers whom to tell before serving"
        return self._changes

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------ the held table's parts

    async def read(self, key: str) -> RaceRoom:
        state = await self.read_state(key)
        if state is None:
            raise Refusal(ErrorCode.RACE_NOT_FOUND, f"there is no race {key!r}")
        room = RaceRoom(state)
        room.progress = await self._progress(state)
        return room

    def held(self, room: RaceRoom) -> None:
        self.changes.race_armed(room)

    def needed(self, room: RaceRoom) -> bool:
        return bool(room.watchers) or room.settling.locked() or any(game_id in self._held_games for game_id in room.state.games)

    def forget(self, room: RaceRoom) -> None:
        """Drop a race from this process: its room, clocks and channel."""
        super().forget(room)
        for timer in room.timers:
            timer.cancel()

    def lost(self, room: RaceRoom) -> None:
        """Tell the followers of a race the store no longer has that it is gone."""
        for peer in list(room.watchers):
            self._outbox.send(peer, tc.Error(
                code=ErrorCode.RACE_NOT_FOUND, message="this race was lost with the server's store",
                reason=None, game_id=None,
            ))
        room.watchers.clear()
        self.forget(room)

    async def apply_relayed(self, room: RaceRoom, entry: Action) -> None:
        before = milestones(room.state)
        room.state.apply(entry)
        self.changes.race_changed(room, before, entry, None, None)

    async def behind(self, room: RaceRoom, problem: str) -> None:
        log.info("reloading race %s: %s", room.race_id, problem)
        await self.reload(room)

    async def resumed(self, key: str) -> None:
        room = self.rooms.get(key)
        if room is None:
            return
        try:
            async with room.lock:
                await self.reload(room)
        except (Refusal, StorageError) as error:
            log.warning("could not catch up with race %s after a pub/sub outage: %s", key, error)

    async def reload(self, room: RaceRoom) -> None:
        """Re-read the ledger and the racers' games (the caller holds the lock)."""
        before = milestones(room.state)
        state = await self.read_state(room.race_id)
        if state is None:
            raise Refusal(ErrorCode.RACE_NOT_FOUND, "this race is no longer stored")
        room.state = state
        room.progress = await self._progress(state)
        self.changes.race_changed(room, before, None, None, None)

    async def note(self, room: RaceRoom, kind: str, fields: list[Any]) -> None:
        if kind != PROGRESS:
            await super().note(room, kind, fields)
            return
        self._on_progress(room, str(fields[0]), Progress.from_list(fields[1:]))

    # ------------------------------------------------------------ races

    async def read_state(self, race_id: str) -> RaceState | None:
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
        pace = self.pacing.pace()
        for game_id in state.games:
            loaded = await self._store.load_session(game_id)
            sessions[game_id] = await self.pacing.replay(*loaded, pace) if loaded is not None else None
        return sessions

    async def change(
        self, room: RaceRoom, make: Make, actor: Peer | None = None, request_id: RequestId | None = None
    ) -> Action | None:
        """Append the entry ``make`` builds from the current state (None:
        nothing to do), announced to the other processes by the append
        itself, re-reading the ledger when another process got there
        first; then tell everyone here."""
        for _ in range(LEDGER_RETRIES):
            async with room.lock:
                before = milestones(room.state)
                entry = make(room.state, self._now())
                if entry is None:
                    return None
                try:
                    await self.append(room, entry)
                except LogConflict:
                    await self.reload(room)
                    continue
                except KeyError:
                    raise Refusal(ErrorCode.RACE_NOT_FOUND, "this race is no longer stored") from None
                room.state.apply(entry)
            self.changes.race_changed(room, before, entry, actor, request_id)
            return entry
        raise Refusal(ErrorCode.STATE_CONFLICT, "the race kept changing on other servers; try again")

    def _on_progress(self, room: RaceRoom, player_id: str, progress: Progress) -> None:
        current = room.progress.get(player_id)
        if player_id not in room.state.racers or current is not None and current.seq > progress.seq:
            return
        room.progress[player_id] = progress
        self.changes.progress_changed(room, player_id)

    async def share_progress(self, race_id: str, player_id: str, progress: Progress) -> None:
        """A racer acted here: tell this process's followers, then the others."""
        room = self.rooms.get(race_id)
        if room is not None:
            self._on_progress(room, player_id, progress)
        await self.relay.publish(race_id, PROGRESS, [player_id, *progress.to_list()])

    # ------------------------------------------------------------ ledgers

    async def create(
        self, game: str, options: dict[str, Any], deal: int | str, host: tc.Owner, racers: list[tc.Owner]
    ) -> RaceRoom:
        settings = self._settings
        now = self._now()
        race_id = self._entropy.new_id("r_")
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
        subscription = await self.relay.subscribe(race_id)
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
        self.hold(room, subscription)
        return room

    async def _free_code(self) -> str:
        for _ in range(CODE_ATTEMPTS):
            code = self._entropy.new_code()
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

    async def race_facts(self, race_id: str) -> RaceFacts:
        """What a race game's race is now, for the visibility rules
        (``server.model.visibility``): loaded if this process does not hold
        it, ``RACE_GONE`` if the store no longer has it."""
        try:
            room = await self.room(race_id)
        except Refusal:
            return RACE_GONE
        self.release(room)
        return self._facts(room)

    def held_race_facts(self, race_id: str) -> RaceFacts | None:
        """The race's facts if this process holds it (None: it does not),
        for a decision that cannot wait for a load (a ``game_over``)."""
        room = self.rooms.get(race_id)
        return None if room is None else self._facts(room)

    def _facts(self, room: RaceRoom) -> RaceFacts:
        now = self._now()
        state = room.state
        return RaceFacts(state.phase(now), frozenset(state.racers), state.wait_sentence(now))

    def phases(self) -> Counter[str]:
        """How many races this process holds in each phase (for ``/metrics``)."""
        now = self._now()
        return Counter(room.state.phase(now) for room in self.rooms.values())

    def release_if_idle(self, race_id: str | None) -> None:
        """A game of this race was released: stop following the race too if
        nothing else here needs it."""
        room = self.rooms.get(race_id) if race_id is not None else None
        if room is not None:
            self.release(room)
