"""Telling everyone of a game's change, in one part.

Playing performs an action and returns the ``Change`` the store took
(``Play.apply``), telling nobody; ``Delivery.deliver`` is then the one
step that tells: the actor (its copy of the diff carries the request id,
unless an assist answers with a reply of its own, a hint's suggestion or
a finish's moves, which then carries it), this process's watchers,
followers and delayed boards (``Watching.announce``), and what a game's
end or a racer's action means beyond it: the game's record, and the
racer's progress to the race's followers on every process.

The other processes have heard of the entry already: the store's append
published it in the same atomic step that wrote it (``server.games.relay``),
so nobody, the actor included, hears of an entry the store does not have.
Each of them applies it to the room it holds and hands the change back
here (``Delivery`` is the game rooms' ``RoomNews``): ``relayed`` tells its
watchers through the same ``Watching.announce``, so a watcher gets the
same frames wherever the player is connected.  Only the telling is
repeated there; the record and the race's progress were the acting
process's.
"""

from __future__ import annotations

import time
from typing import Callable, Protocol

from protocol import to_client as tc
from protocol.to_server import RequestId
from server.games.assists import AssistDesk
from server.games.room import Room
from server.games.tables import GameRooms
from server.games.watching import Watching
from server.model.session import Change, Session
from server.net.outbox import Outbox, with_id
from server.net.peer import Peer
from server.runtime.metrics import Metrics


class RaceProgress(Protocol):
    """What delivering tells the races of a race game's change."""

    async def progressed(self, session: Session) -> None:
        """A racer's game changed here."""


class Delivery:
    """The one part that tells of a change, made here or relayed; see the module docstring."""

    def __init__(
        self,
        clock: Callable[[], int],
        metrics: Metrics,
        outbox: Outbox,
        rooms: GameRooms,
        watching: Watching,
        races: RaceProgress,
        assists: AssistDesk,
    ) -> None:
        self._clock = clock
        self._metrics = metrics
        self._outbox = outbox
        self._rooms = rooms
        self._watching = watching
        self._races = races
        self._assists = assists
        self._changed: list[Callable[[Session], None]] = []

    def on_changed(self, listener: Callable[[Session], None]) -> None:
        """Call ``listener`` with each game that started or changed here
        (the friends' boards tell a ranked daily attempt's progress)."""
        self._changed.append(listener)

    def changed(self, session: Session) -> None:
        """A game started here (``Play.new_game`` says so, before its first
        action) or acted here."""
        for listener in self._changed:
            listener(session)

    async def deliver(
        self,
        room: Room,
        change: Change,
        begun: float,
        actor: Peer | None = None,
        request_id: RequestId | None = None,
        reply: tc.Event | None = None,
    ) -> None:
        """Tell everyone of ``change``, committed and stored (the caller
        holds ``room.lock``).  The request's one reply is the actor's copy
        of the diff, carrying ``request_id``, or an assist's ``reply``
        (which carries it instead), sent to the actor last.  ``begun`` is
        when the action started (``time.perf_counter``), for its metric."""
        started = time.perf_counter()
        shared = room.diff(change)
        if actor is not None:
            self._outbox.send(actor, with_id(request_id, shared))
        self._watching.announce(room, change, diff=shared, skip=actor)
        self._metrics.broadcast.observe(time.perf_counter() - started)
        self._metrics.action(time.perf_counter() - begun)
        self._metrics.relay_lag.observe(max(0, self._clock() - change.action.at_ms) / 1000)
        session = room.session
        if change.finished:
            await self._rooms.record(session)
        if session.header.race_id is not None:
            await self._races.progressed(session)
        self.changed(session)
        if actor is not None and reply is not None:
            self._outbox.send(actor, reply)

    def relayed(self, room: Room, change: Change) -> None:
        """Tell this process's watchers of an entry another process made
        (the caller holds ``room.lock``), and look for a finishing path
        from the new position, as the acting process does for its own."""
        self._watching.announce(room, change)
        self._assists.refresh_offer(room)

    def reloaded(self, room: Room) -> None:
        self._watching.reloaded(room)

    def lost(self, room: Room) -> None:
        self._watching.lost(room)
