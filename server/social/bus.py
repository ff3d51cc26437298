"""Messages for players, wherever they are connected.

A player may be connected to any server process, with several devices at
once.  ``PlayerBus.tell`` hands a message to every connection of the named
players here and publishes it once, on the one ``players`` channel, for
the other processes to do the same with their connections.  One channel
for every player, rather than one per player: a process would otherwise
hold a subscription per connected player (thousands of Redis
subscriptions, each resubscribed after an outage), while a message on one
channel costs each process a dictionary lookup per named player.

What crosses processes is the message's wire data (JSON-shaped, checked
again on arrival), tagged with the sender's origin so a process skips its
own.  Pub/sub may drop messages during a store outage: the bus tells its
listeners (``on_resume``) so that what must not be missed (an inbox of
notifications, the presence of friends) is read again from the store.

Arrival and departure (a connection's ``hello``, its close) are announced
to the parts that care (``on_arrival``, ``on_departure``): the inbox sends
what waited, presence tells friends.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from typing import Awaitable, Callable, Iterable

import msgpack
from pydantic import ValidationError

from protocol import SERVER_MESSAGE
from protocol import to_client as tc
from server.net.outbox import Outbox
from server.net.peer import Peer
from server.storage.base import StorageError, Store, Subscription

log = logging.getLogger("arena.social")

CHANNEL = "players"

Arrival = Callable[[Peer], Awaitable[None]]
"""Called with a connection that said ``hello``, before its next request is read."""

Departure = Callable[[Peer], None]
"""Called with a connection that closed, as it closes (the adapter's close
is not a coroutine); a listener with store work to do starts a task."""

Wanted = Callable[[Peer, tc.Event], bool]
"""Whether a connection wants a message of a kind only some connections watch."""

Resumed = Callable[[], Awaitable[None]]
"""Called when the channel is back after an outage: messages may have been lost."""


class PlayerBus:
    """This process's connections by player, and the channel to the others."""

    def __init__(self, store: Store, origin: str, outbox: Outbox) -> None:
        self._store = store
        self._origin = origin
        self._outbox = outbox
        self._connections: defaultdict[str, set[Peer]] = defaultdict(set)
        self._arrivals: list[Arrival] = []
        self._departures: list[Departure] = []
        self._resumes: list[Resumed] = []
        self._wanted: dict[type[tc.Event], Wanted] = {}
        self._task: asyncio.Task[None] | None = None

    # ---------------------------------------------------------------- wiring

    def on_arrival(self, listener: Arrival) -> None:
        self._arrivals.append(listener)

    def on_departure(self, listener: Departure) -> None:
        self._departures.append(listener)

    def on_resume(self, listener: Resumed) -> None:
        self._resumes.append(listener)

    def only(self, kind: type[tc.Event], wanted: Wanted) -> None:
        """Hand messages of ``kind`` only to the connections ``wanted``
        accepts (those watching what it is about), on every process."""
        self._wanted[kind] = wanted

    async def start(self) -> None:
        """Subscribe to the channel; returns once messages published from
        now on, by any process, will be delivered here."""
        subscription = await self._store.subscribe(CHANNEL, self._resumed)
        self._task = asyncio.create_task(self._consume(subscription), name=f"bus {CHANNEL}")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    # ---------------------------------------------------------------- connections

    async def arrived(self, peer: Peer) -> None:
        """``peer`` said hello: it hears what its player is told from now on."""
        assert peer.player is not None
        self._connections[peer.player.player_id].add(peer)
        for listener in self._arrivals:
            await listener(peer)

    def departed(self, peer: Peer) -> None:
        """``peer`` closed; a connection that never said hello is nobody's."""
        if peer.player is None:
            return
        player_id = peer.player.player_id
        connections = self._connections.get(player_id)
        if connections is None or peer not in connections:
            return
        connections.discard(peer)
        if not connections:
            del self._connections[player_id]
        for listener in self._departures:
            listener(peer)

    def connections(self, player_id: str) -> set[Peer]:
        """The player's connections on this process (empty if none)."""
        return self._connections.get(player_id, set())

    def players_here(self) -> list[str]:
        """Every player with a connection on this process."""
        return list(self._connections)

    # ---------------------------------------------------------------- telling

    def tell_here(self, player_ids: Iterable[str], message: tc.Event) -> None:
        """Send ``message`` to the named players' connections on this process only."""
        peers = [peer for player_id in player_ids for peer in self._connections.get(player_id, ())]
        wanted = self._wanted.get(type(message))
        if wanted is not None:
            peers = [peer for peer in peers if wanted(peer, message)]
        if peers:
            self._outbox.send_each(peers, message)

    async def tell(self, player_ids: Iterable[str], message: tc.Event) -> None:
        """Send ``message`` to every connection of the named players, on
        every process.  A failed publish is logged, not raised: whatever
        must not be lost is in the store already (an inbox entry), and the
        other processes read it again when they notice."""
        named = list(dict.fromkeys(player_ids))
        if not named:
            return
        self.tell_here(named, message)
        payload = msgpack.packb([self._origin, named, message.model_dump(mode="json")], use_bin_type=True)
        try:
            await self._store.publish(CHANNEL, payload)
        except StorageError as error:
            log.warning("could not tell other processes (%d players): %s", len(named), error)

    async def _consume(self, subscription: Subscription) -> None:
        try:
            async for payload in subscription:
                self._deliver(payload)
        finally:
            await subscription.close()

    def _deliver(self, payload: bytes) -> None:
        try:
            origin, named, data = msgpack.unpackb(payload, raw=False)
            if origin == self._origin:
                return
            message = SERVER_MESSAGE.validate_python(data)
            self.tell_here([str(player_id) for player_id in named], message)
        except (ValueError, TypeError, ValidationError, msgpack.ExtraData, msgpack.FormatError) as error:
            log.warning("ignored a malformed message on %s: %s", CHANNEL, error)

    async def _resumed(self) -> None:
        for listener in self._resumes:
            await listener()
