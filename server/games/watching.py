"""Who sees which game, and how: live, delayed, or as progress only.

A watcher of a game gets a snapshot and then every diff; a viewer who
may not see the board while its deal is secret (``fair_play.board_visible``)
follows ``progress`` instead; a spectator of a running race's board
watches a ``DelayedBoard`` that stays ``race_spectator_delay_seconds``
behind, released entry by entry on the ``Scheduler``, and catching up
when the race ends.  Which of these a race game allows is the race
ledgers' answer (``RaceViews``, ``server.races.ledgers``), asked through
three questions only.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Callable, Protocol

from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts
from protocol.to_server import RequestId
from server.games.assists import AssistDesk
from server.deals.daily import reveals_at
from server.games.delay import DelayedBoard
from server.model.fair_play import board_visible, deal_is_secret, unlisted
from server.games.tables import GameRooms
from server.net.outbox import Outbox
from server.net.peer import Peer
from server.model.refusal import Refusal
from server.games.room import Room
from server.runtime.scheduler import Scheduler, Timer
from server.model.session import Change, Session
from server.runtime.settings import Settings
from server.model.records import SessionHeader


class RaceViews(Protocol):
    """What watching asks the races about a race game."""

    async def watch_mode(self, peer: Peer, session: Session) -> bool:
        """Live (True) or delayed; raises ``Refusal`` when not at all."""

    async def deal_public(self, race_id: str) -> bool:
        """Whether the race's deal may be shown."""

    def hides_deal(self, race_id: str) -> bool:
        """Whether a ``game_over`` must leave the deal out."""


class Watching:
    """Watchers, followers and delayed boards; see the module docstring."""

    def __init__(
        self,
        settings: Settings,
        clock: Callable[[], int],
        scheduler: Scheduler,
        outbox: Outbox,
        rooms: GameRooms,
        races: RaceViews,
        assists: AssistDesk,
    ) -> None:
        self._settings = settings
        self._clock = clock
        self._scheduler = scheduler
        self._outbox = outbox
        self._rooms = rooms
        self._races = races
        self._assists = assists
        self._timers: dict[str, Timer] = {}

    # ------------------------------------------------------------ requests

    async def watch_request(self, peer: Peer, message: ts.Watch | ts.Resync) -> None:
        await self.watch(peer, await self._rooms.current(message.game_id), message.id)

    async def unwatch(self, peer: Peer, message: ts.Unwatch) -> None:
        peer.watching.discard(message.game_id)
        self.stop_watching(peer, message.game_id)
        self._outbox.send(peer, tc.Ack(id=message.id, game_id=message.game_id))

    async def watch_game(self, peer: Peer, game_id: str) -> None:
        """Watch a game as ``watch`` does, without a request id."""
        await self.watch(peer, await self._rooms.current(game_id), None)

    async def watch(self, peer: Peer, room: Room, request_id: RequestId | None) -> None:
        settings = self._settings
        if room.game_id not in peer.watching and len(peer.watching) >= settings.watch_limit:
            self._rooms.release(room)
            raise Refusal(
                ErrorCode.FORBIDDEN,
                f"a connection watches at most {settings.watch_limit} games; unwatch one first",
                game_id=room.game_id,
            )
        header = room.session.header
        live = True
        if header.race_id is not None:
            try:
                live = await self._races.watch_mode(peer, room.session)
            except Refusal:
                self._rooms.release(room)
                raise
        viewer = peer.player.player_id if peer.player is not None else None
        if not board_visible(header, viewer, await self._deal_secret(header)):
            async with room.lock:
                peer.watching.add(room.game_id)
                room.followers.add(peer)
                self._outbox.send(peer, room.progress(self._clock(), request_id))
            return
        async with room.lock:
            peer.watching.add(room.game_id)
            now = self._clock()
            if live:
                room.watchers.add(peer)
                self._outbox.send(peer, room.snapshot(now, request_id))
                self._assists.refresh_offer(room)
                offer = self._assists.standing_offer(room)
                if offer is not None:
                    self._outbox.send(peer, offer)
                return
            board = self._rooms.delayed.get(room.game_id)
            if board is None:
                delay_ms = round(settings.race_spectator_delay_seconds * 1000)
                board = self._rooms.delayed[room.game_id] = DelayedBoard(room, delay_ms, now)
            board.watchers.add(peer)
            self._outbox.send(peer, board.snapshot(now, request_id))
            self.advance_delayed(room.game_id)

    async def _deal_secret(self, header: SessionHeader) -> bool:
        """Whether a game's deal is a secret seed not yet revealed: a daily's
        until its day's reveal, a race's until the race is over."""
        if header.seed is None:
            return False
        if header.daily is not None:
            return deal_is_secret(header, self._clock(), reveals_at(date.fromisoformat(header.daily), self._settings))
        assert header.race_id is not None, "secret seeds deal dailies and races only"
        return not await self._races.deal_public(header.race_id)

    def stop_watching(self, peer: Peer, game_id: str) -> None:
        board = self._rooms.delayed.get(game_id)
        if board is not None:
            board.watchers.discard(peer)
            if not board.watchers:
                self._drop_delayed(game_id)
        room = self._rooms.rooms.get(game_id)
        if room is not None:
            room.watchers.discard(peer)
            room.followers.discard(peer)
            self._rooms.release(room)

    def disconnect(self, peer: Peer) -> None:
        for game_id in list(peer.watching):
            self.stop_watching(peer, game_id)
        peer.watching.clear()

    # ------------------------------------------------------------ news

    def tell_followers(self, room: Room) -> None:
        """Send the game's progress to those who may not see its board."""
        if room.followers:
            self._outbox.send_each(room.followers, room.progress(self._clock()))

    def game_over(self, room: Room) -> tc.GameOver:
        """The game's ``game_over``, without the deal in a race still
        running, with the reasons a ranked attempt is off the public board
        (``fair_play.unlisted``)."""
        message = room.game_over().model_copy(update={"unlisted": unlisted(self._settings, room.session)})
        race_id = room.session.header.race_id
        if race_id is not None and self._races.hides_deal(race_id):
            return message.model_copy(update={"deal": None})
        return message

    def reloaded(self, room: Room) -> None:
        self._outbox.send_each(room.watchers, room.snapshot(self._clock()))
        self.tell_followers(room)
        self.advance_delayed(room.game_id)

    def announce(
        self, room: Room, change: Change, *, diff: dict[str, Any] | None = None, skip: Peer | None = None
    ) -> None:
        """Tell this process's watchers, followers and delayed boards of
        one committed change.  An action played here and one relayed from
        another process both come through this, so a watcher gets the
        same frames in the same order wherever the player is connected."""
        self._outbox.send_each(room.watchers, room.diff(change) if diff is None else diff, skip=skip)
        self.tell_followers(room)
        self.advance_delayed(room.game_id)
        if change.finished:
            self._outbox.send_each(room.watchers, self.game_over(room))

    def relayed(self, room: Room, change: Change) -> None:
        self.announce(room, change)
        self._assists.refresh_offer(room)

    def resync(self, peer: Peer) -> None:
        """Queue a fresh snapshot (or progress) of each game ``peer``
        watches, after the outbox dropped its backlog."""
        now = self._clock()
        for game_id in peer.watching:
            board = self._rooms.delayed.get(game_id)
            room = self._rooms.rooms.get(game_id)
            if board is not None and peer in board.watchers:
                peer.backlog.append(peer.codec.encode(board.snapshot(now)))
            elif room is not None and peer in room.followers:
                peer.backlog.append(peer.codec.encode(room.progress(now)))
            elif room is not None:
                peer.backlog.append(peer.codec.encode(room.snapshot(now)))

    def lost(self, room: Room) -> None:
        """Tell a room's watchers that the store lost its game, and forget it."""
        lost = tc.Error(
            code=ErrorCode.GAME_NOT_FOUND, message="this game was lost with the server's store",
            reason=None, game_id=room.game_id,
        )
        for peer in [*room.watchers, *room.followers]:
            peer.watching.discard(room.game_id)
            self._outbox.send(peer, lost)
        room.watchers.clear()
        room.followers.clear()
        self._drop_delayed(room.game_id)
        self._rooms.forget(room)

    # ------------------------------------------------------------ delayed boards

    def advance_delayed(self, game_id: str) -> None:
        """Send delayed watchers what has become old enough, and come back
        when the next entry will be."""
        board = self._rooms.delayed.get(game_id)
        if board is None:
            return
        timer = self._timers.pop(game_id, None)
        if timer is not None:
            timer.cancel()
        now = self._clock()
        self._send_delayed(board, board.due(now))
        due = board.next_due_ms()
        if due is not None:
            self._timers[game_id] = self._scheduler.call_later(
                max(0, due - now) / 1000, lambda: self.advance_delayed(game_id)
            )

    def _send_delayed(self, board: DelayedBoard, messages: list[dict[str, Any] | tc.GameOver]) -> None:
        for message in messages:
            if isinstance(message, tc.GameOver):
                message = self.game_over(board.mirror)
            self._outbox.send_each(board.mirror.watchers, message)

    def _drop_delayed(self, game_id: str) -> None:
        board = self._rooms.delayed.pop(game_id, None)
        timer = self._timers.pop(game_id, None)
        if timer is not None:
            timer.cancel()
        if board is not None:
            self._rooms.release(board.room)

    def race_over(self, game_ids: list[str]) -> None:
        """A race has ended: its delayed watchers catch up and watch live,
        and those who followed its progress get the board (a daily race's
        deal stays secret until the day's reveal: they keep progress)."""
        for game_id in game_ids:
            room = self._rooms.rooms.get(game_id)
            if room is not None and room.followers and room.session.header.daily is None:
                now = self._clock()
                for peer in room.followers:
                    self._outbox.send(peer, room.snapshot(now))
                room.watchers.update(room.followers)
                room.followers.clear()
            board = self._rooms.delayed.get(game_id)
            if board is None:
                continue
            self._send_delayed(board, board.drain())
            board.room.watchers.update(board.watchers)
            board.watchers.clear()
            self._drop_delayed(game_id)

    def close(self) -> None:
        """Stop the delayed boards' clocks (at shutdown)."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
