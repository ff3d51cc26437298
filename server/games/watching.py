"""Who sees which game, and how: live, delayed, or as progress only.

How a viewer watches is ``server.model.visibility.view_of``'s decision,
from facts gathered here: the time, a daily deal's reveal and, for a
race game, its race as the ledgers tell it (``RaceViews``).  A watcher of
a game gets a snapshot and then every diff; a viewer of a secret deal
follows ``progress`` instead; a spectator of a running race's board
watches a ``DelayedBoard`` that stays ``race_spectator_delay_seconds``
behind, released entry by entry on the ``Scheduler``, and catching up
when the race ends.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Protocol

from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts
from protocol.to_server import RequestId
from server.games.assists import AssistDesk
from server.games.delay import DelayedBoard, released
from server.games.facts import GameFacts
from server.model.fair_play import unlisted
from server.model.race_phases import FINISHED
from server.games.replay_budget import ReplayBudget
from server.games.tables import GameRooms
from server.net.outbox import Outbox
from server.net.peer import Peer
from server.model.refusal import Refusal
from server.games.room import Room
from server.runtime.scheduler import Scheduler, Timer
from server.model.session import Change
from server.model.visibility import RaceFacts, Visibility, deal_named, view_of
from server.runtime.settings import Settings


HiddenFrom = Callable[[str, str], Awaitable[bool]]
"""Whether a player (first) hides their games from a viewer (second): a
block, which the social part knows and watching only asks."""


async def nobody_hidden(owner: str, viewer: str) -> bool:
    return False


class RaceViews(Protocol):
    """What watching asks the races about a race game's race."""

    async def race_facts(self, race_id: str) -> RaceFacts:
        """The race now, loaded if need be (``RACE_GONE``: not stored)."""

    def held_race_facts(self, race_id: str) -> RaceFacts | None:
        """The race now if this process holds it, else None."""


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
        budget: ReplayBudget,
    ) -> None:
        self._settings = settings
        self._budget = budget
        self._clock = clock
        self._scheduler = scheduler
        self._outbox = outbox
        self._rooms = rooms
        self._races = races
        self._facts = GameFacts(settings, clock, races.race_facts)
        self._assists = assists
        self._timers: dict[str, Timer] = {}
        self.hidden_from: HiddenFrom = nobody_hidden
        """Set by the Hub once the social part exists: a blocked viewer's
        ``watch`` of the blocker's game reads as a game that does not exist.
        Not asked of a game's own player (nobody blocks themselves), whose
        ``resync`` is then served from the game held here even while the
        store is unreachable."""

    # ------------------------------------------------------------ requests

    async def watch_request(self, peer: Peer, message: ts.Watch | ts.Resync) -> None:
        """Watch a game; one this process does not hold is loaded, which the
        asking address pays for from its ``ReplayBudget``."""
        room = await self._budget.load(peer.address, message.game_id, self._rooms.rooms, self._rooms.current)
        owner = room.session.header.owner
        viewer = None if peer.player is None else peer.player.player_id
        if viewer is not None and viewer != owner and await self.hidden_from(owner, viewer):
            self._rooms.release(room)
            raise Refusal(ErrorCode.GAME_NOT_FOUND, f"there is no game {message.game_id!r}", game_id=message.game_id)
        await self.watch(peer, room, message.id)

    async def unwatch(self, peer: Peer, message: ts.Unwatch) -> None:
        peer.watching.discard(message.game_id)
        self.stop_watching(peer, message.game_id)
        self._outbox.send(peer, tc.Ack(id=message.id, game_id=message.game_id))

    async def watch_game(self, peer: Peer, game_id: str) -> None:
        """Watch a game as ``watch`` does, without a request id."""
        await self.watch(peer, await self._rooms.current(game_id), None)

    def free_slot(self, peer: Peer, game_id: str | None = None) -> None:
        """Make room in ``peer``'s watch limit for one more game (``game_id``,
        if known), letting go of the finished games it watches: they send
        nothing more (but a race's delayed board, which may still be playing
        one back).  ``Refusal`` if every slot holds a game still running."""
        limit = self._settings.watch_limit
        if game_id in peer.watching or len(peer.watching) < limit:
            return
        for watched in list(peer.watching):
            room = self._rooms.rooms.get(watched)
            if watched not in self._rooms.delayed and (room is None or room.session.result is not None):
                peer.watching.discard(watched)
                self.stop_watching(peer, watched)
        if len(peer.watching) >= limit:
            raise Refusal(
                ErrorCode.FORBIDDEN, f"a connection watches at most {limit} games; unwatch one first", game_id=game_id
            )

    async def watch(self, peer: Peer, room: Room, request_id: RequestId | None) -> None:
        settings = self._settings
        try:
            self.free_slot(peer, room.game_id)
        except Refusal:
            self._rooms.release(room)
            raise
        header = room.session.header
        try:
            facts = await self._facts.of(header, room.session.result)
        except BaseException:
            self._rooms.release(room)
            raise
        viewer = peer.player.player_id if peer.player is not None else None
        view = view_of(header, viewer, facts, round(settings.race_spectator_delay_seconds * 1000))
        if view.refusal is not None:
            self._rooms.release(room)
            raise view.refusal
        async with room.lock:
            peer.watching.add(room.game_id)
            now = self._clock()
            if view.visibility is Visibility.PROGRESS_ONLY:
                room.followers.add(peer)
                self._outbox.send(peer, room.progress(now, request_id))
                return
            if view.visibility is Visibility.LIVE:
                room.watchers.add(peer)
                self._outbox.send(peer, room.snapshot(now, request_id))
                self._assists.refresh_offer(room)
                offer = self._assists.standing_offer(room)
                if offer is not None:
                    self._outbox.send(peer, offer)
                return
            board = self._rooms.delayed.get(room.game_id)
            if board is None:
                log = room.session.log
                mirror = await self._rooms.pacing.replay(room.session.header, log[:released(log, view.delay_ms, now)])
                board = self._rooms.delayed[room.game_id] = DelayedBoard(room, view.delay_ms, mirror)
            board.watchers.add(peer)
            self._outbox.send(peer, board.snapshot(now, request_id))
            self.advance_delayed(room.game_id)

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
        """The game's ``game_over`` as its watchers get it: naming the
        deal where ``deal_named`` allows, with the reasons a ranked attempt
        is off the public board (``fair_play.unlisted``)."""
        header = room.session.header
        race = self._races.held_race_facts(header.race_id) if header.race_id is not None else None
        deal = header.deal if deal_named(header, race) else None
        return room.game_over(deal).model_copy(update={"unlisted": unlisted(self._settings, room.session)})

    def reloaded(self, room: Room) -> None:
        self._outbox.send_each(room.watchers, room.snapshot(self._clock()))
        self.tell_followers(room)
        self.advance_delayed(room.game_id)

    def announce(
        self, room: Room, change: Change, *, diff: dict[str, Any] | None = None, skip: Peer | None = None
    ) -> None:
        """Tell this process's watchers, followers and delayed boards of
        one committed change.  ``Delivery`` calls this for an action played
        here and for one relayed from another process alike, so a watcher
        gets the same frames in the same order wherever the player is
        connected."""
        self._outbox.send_each(room.watchers, room.diff(change) if diff is None else diff, skip=skip)
        self.tell_followers(room)
        self.advance_delayed(room.game_id)
        if change.finished:
            self._outbox.send_each(room.watchers, self.game_over(room))

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
        and those who followed its progress get the board where they may
        now see it (a daily race's deal stays secret until the day's
        reveal: they keep progress)."""
        for game_id in game_ids:
            room = self._rooms.rooms.get(game_id)
            if room is not None and room.followers:
                self._show_ended_race(room)
            board = self._rooms.delayed.get(game_id)
            if board is None:
                continue
            self._send_delayed(board, board.drain())
            board.room.watchers.update(board.watchers)
            board.watchers.clear()
            self._drop_delayed(game_id)

    def _show_ended_race(self, room: Room) -> None:
        """Give the board to the followers of an ended race's game who may
        see it now."""
        header = room.session.header
        facts = self._facts.now(header, room.session.result, RaceFacts(FINISHED))
        now = facts.now_ms
        for peer in list(room.followers):
            viewer = peer.player.player_id if peer.player is not None else None
            if view_of(header, viewer, facts, 0).visibility is Visibility.LIVE:
                self._outbox.send(peer, room.snapshot(now))
                room.watchers.add(peer)
                room.followers.discard(peer)

    def close(self) -> None:
        """Stop the delayed boards' clocks (at shutdown)."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
