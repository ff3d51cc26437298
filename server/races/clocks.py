"""A race's clocks and its settling, and what each change of a race held
here means for this process (the ledgers' ``RaceChanges``).

- Clocks (on the injected ``Scheduler``): at ``starts_at`` each process
  gives its connected racers their boards; at ``ends_at`` it settles the
  race (abandoning games still playing, then appending ``finish``; the
  log decides who appends it).  A race nobody follows is settled when
  someone next loads it.
- A change, made here or relayed from another process: a start arms the
  clocks, an end stops them and ends the delays of the race's boards, a
  rematch takes the racers following here along; then the news goes to
  every follower (``server.races.followers``), the actor's copy carrying
  its request id.

What it needs of the game side is ``RaceBoards``, attached once both
sides exist.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Awaitable, Callable

from protocol import ErrorCode
from protocol.to_server import RequestId
from server.model.records import Action
from server.model.refusal import Refusal
from server.net.peer import Peer
from server.races.followers import RaceFollowers, RaceRoom
from server.races.ledgers import LEDGER_RETRIES, RaceRooms
from server.races.progress import Progress
from server.races.state import Milestones, event_of
from server.races.views import final_progress
from server.runtime.metrics import Metrics
from server.runtime.scheduler import Scheduler
from server.storage.base import StorageError

log = logging.getLogger("arena.races")

Follow = Callable[[Peer, RaceRoom, RequestId | None], Awaitable[None]]
"""Have a connection follow a race (the desk's, which a rematch reuses)."""


@dataclass(frozen=True)
class RaceBoards:
    """What the races need from the game side: handing a racer its board,
    ending the delays of a race's boards, abandoning a game, and making
    room for one more live game of a player."""

    watch_game: Callable[[Peer, str], Awaitable[None]]
    race_over: Callable[[list[str]], None]
    abandon: Callable[[str], Awaitable[None]]
    make_room_for: Callable[[str], Awaitable[None]]


class RaceClocks:
    """Clocks, settling and changes; see the module docstring."""

    def __init__(
        self,
        clock: Callable[[], int],
        scheduler: Scheduler,
        metrics: Metrics,
        ledgers: RaceRooms,
        followers: RaceFollowers,
        follow: Follow,
    ) -> None:
        self._now = clock
        self._scheduler = scheduler
        self._metrics = metrics
        self._ledgers = ledgers
        self._followers = followers
        self._follow = follow
        self._boards: RaceBoards | None = None

    def attach(self, boards: RaceBoards) -> None:
        self._boards = boards

    @property
    def boards(self) -> RaceBoards:
        assert self._boards is not None, "the Hub attaches the game side before serving"
        return self._boards

    # ------------------------------------------------------------ settling

    async def settle(self, race_id: str) -> None:
        """End the race if every game is over or its time is up (any
        process may try; the ledger takes one ``finish``)."""
        ledgers = self._ledgers
        try:
            room = await ledgers.room(race_id)
            async with room.settling:
                state = room.state
                if state.starts_at is None or state.finished_ms is not None:
                    return
                sessions = await ledgers.sessions(state)
                playing = [game_id for game_id, session in sessions.items() if session and session.result is None]
                if playing and self._now() < (state.ends_at or 0):
                    return
                for game_id in playing:
                    await self._abandon(game_id)
                if playing:
                    sessions = await ledgers.sessions(state)
                by_racer = {state.games[game_id]: session for game_id, session in sessions.items()}
                results = state.results_of(by_racer)
                if await ledgers.change(room, lambda current, now: current.finish_entry(now, results)) is not None:
                    self._metrics.race_events.labels("finished").inc()
            ledgers.release(room)
        except (Refusal, StorageError) as error:
            log.warning("could not settle race %s: %s", race_id, getattr(error, "message", error))

    async def _abandon(self, game_id: str) -> None:
        for _ in range(LEDGER_RETRIES):
            try:
                await self.boards.abandon(game_id)
                return
            except Refusal as refusal:
                if refusal.code is not ErrorCode.STATE_CONFLICT:
                    raise

    # ------------------------------------------------------------ changes

    def race_changed(
        self, room: RaceRoom, before: Milestones, entry: Action | None, actor: Peer | None,
        request_id: RequestId | None,
    ) -> None:
        """Side effects of the state's change (by ``entry``, or by a reload),
        then the news to every watcher."""
        started, finished, rematched = before
        state = room.state
        if state.starts_at is not None and not started:
            room.progress = {player_id: room.progress.get(player_id, Progress()) for player_id in state.racers}
            self._schedule(room)
        if state.finished_ms is not None and not finished:
            room.progress = final_progress(state)
            for timer in room.timers:
                timer.cancel()
            self.boards.race_over(list(state.games))
        if state.rematch is not None and not rematched:
            for peer in list(room.watchers):
                if room.member(peer) and peer is not actor:
                    self._ledgers.spawn(self._follow_rematch(peer, state.rematch))
        if entry is not None and entry.kind == "presence":
            self._followers.broadcast_progress(room, json.loads(entry.text)["player_id"])
            return
        if actor is not None:
            self._followers.add(actor, room)
        self._followers.broadcast(room, event_of(state, before, entry), actor, request_id)

    def progress_changed(self, room: RaceRoom, player_id: str) -> None:
        self._followers.broadcast_progress(room, player_id)

    async def _follow_rematch(self, peer: Peer, race_id: str) -> None:
        try:
            await self._follow(peer, await self._ledgers.room(race_id), None)
        except (Refusal, StorageError) as error:
            log.warning("could not follow rematch %s: %s", race_id, error)

    # ------------------------------------------------------------ timers

    def race_armed(self, room: RaceRoom) -> None:
        """A race followed from now on: its clocks, and a settling in case
        its end passed while nobody followed it (every game over, or the
        time limit gone by).  A race still under way is settled by its
        clock or its last game's end, so loading it reads no log twice."""
        self._schedule(room)
        state = room.state
        if state.starts_at is None or state.finished_ms is not None:
            return
        every_game_over = all(
            (progress := room.progress.get(racer)) is not None and progress.result is not None
            for racer in state.games.values()
        )
        if every_game_over or self._now() >= (state.ends_at or 0):
            self._ledgers.spawn(self.settle(room.race_id))

    def _schedule(self, room: RaceRoom) -> None:
        """Arm the race's clocks: the boards at ``starts_at``, the settling at ``ends_at``."""
        for timer in room.timers:
            timer.cancel()
        room.timers = []
        state = room.state
        if state.starts_at is None or state.ends_at is None or state.finished_ms is not None:
            return
        self._at(room, state.starts_at, lambda: self._go(room))
        self._at(room, state.ends_at, lambda: self._ledgers.spawn(self.settle(room.race_id)))

    def _at(self, room: RaceRoom, when_ms: int, action: Callable[[], None]) -> None:
        """Run ``action`` once the server's clock reads ``when_ms`` (the
        event loop's timer may fire a little early: then wait again)."""

        def fire() -> None:
            if self._now() < when_ms:
                self._at(room, when_ms, action)
            else:
                action()

        delay = max(0, when_ms - self._now()) / 1000
        room.timers.append(self._scheduler.call_later(delay, fire))

    def _go(self, room: RaceRoom) -> None:
        """The countdown is over: each racer following here gets their board."""
        for peer in list(room.watchers):
            racer = room.state.racers.get(peer.player.player_id) if peer.player is not None else None
            if racer is not None and racer.game_id is not None:
                self._ledgers.spawn(self._watch_game(peer, racer.game_id))

    async def _watch_game(self, peer: Peer, game_id: str) -> None:
        try:
            await self.boards.watch_game(peer, game_id)
        except (Refusal, StorageError) as error:
            log.info("could not hand %r its board %s: %s", peer, game_id, error)
