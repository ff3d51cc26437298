"""The races this process follows (``RaceRoom``), the connections that
follow them, and the race messages they get.

A ``race`` message goes out through the outbox's fan-out once per
membership (racers see the invite code, others do not), so it is encoded
at most once per codec and membership; the actor's copy carries its
request id.  A connection follows at most ``watch_limit`` races.
"""

from __future__ import annotations

import asyncio
from typing import Callable

from protocol import ErrorCode
from protocol import to_client as tc
from protocol.to_server import RequestId
from server.net.outbox import Outbox
from server.net.peer import Peer
from server.races.progress import Progress
from server.races.state import RaceState
from server.races.views import race_info, racer_view
from server.model.refusal import Refusal
from server.runtime.scheduler import Timer


class RaceRoom:
    """A race this process follows: its ledger's state, the racers'
    progress and the connections following it.  ``lock`` serializes
    changes to the state (appends, relayed entries, reloads)."""

    def __init__(self, state: RaceState) -> None:
        self.state = state
        self.progress: dict[str, Progress] = {}
        self.watchers: set[Peer] = set()
        self.lock = asyncio.Lock()
        self.settling = asyncio.Lock()
        self.timers: list[Timer] = []

    @property
    def race_id(self) -> str:
        return self.state.race_id

    @property
    def key(self) -> str:
        """The race's id, as the table of held races keys it (``server.games.held``)."""
        return self.state.race_id

    @property
    def seq(self) -> int:
        return self.state.seq

    def member(self, peer: Peer) -> bool:
        return peer.player is not None and peer.player.player_id in self.state.racers

    def connected_here(self, player_id: str) -> bool:
        return any(peer.player is not None and peer.player.player_id == player_id for peer in self.watchers)


class RaceFollowers:
    """Who follows which race here, and sending to them."""

    def __init__(self, outbox: Outbox, clock: Callable[[], int], watch_limit: int) -> None:
        self._outbox = outbox
        self._clock = clock
        self._watch_limit = watch_limit
        self.watching: dict[Peer, set[str]] = {}

    def check_limit(self, peer: Peer, room: RaceRoom | None = None) -> None:
        watched = self.watching.get(peer, set())
        limit = self._watch_limit
        if (room is None or room.race_id not in watched) and len(watched) >= limit:
            raise Refusal(ErrorCode.FORBIDDEN, f"a connection follows at most {limit} races; unwatch one first")

    def add(self, peer: Peer, room: RaceRoom) -> None:
        room.watchers.add(peer)
        self.watching.setdefault(peer, set()).add(room.race_id)

    def message(self, room: RaceRoom, event: str, member: bool, request_id: RequestId | None = None) -> tc.Race:
        now = self._clock()
        return tc.Race(id=request_id, event=event, server_time=now, race=race_info(room.state, room.progress, now, member))

    def reply(self, peer: Peer, room: RaceRoom, event: str, request_id: RequestId | None) -> None:
        self._outbox.send(peer, self.message(room, event, room.member(peer), request_id))

    def broadcast(self, room: RaceRoom, event: str, actor: Peer | None, request_id: RequestId | None) -> None:
        """The race message to every watcher, racers' and others' apart (racers
        see the code), the actor's with its request id."""
        others = [peer for peer in room.watchers if peer is not actor]
        for member in (True, False):
            group = [peer for peer in others if room.member(peer) is member]
            if group:
                self._outbox.send_each(group, self.message(room, event, member))
        if actor is not None and actor in room.watchers:
            self.reply(actor, room, event, request_id)

    def broadcast_progress(self, room: RaceRoom, player_id: str) -> None:
        racer = room.state.racers[player_id]
        now = self._clock()
        message = tc.RaceProgress(
            race_id=room.race_id, server_time=now,
            racer=racer_view(room.state, racer, room.progress.get(player_id), now),
        )
        self._outbox.send_each(room.watchers, message)
