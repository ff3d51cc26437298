"""Who of a player's friends is online, away or offline, and doing what.

Presence is the player's, not a connection's: a player with a phone in
the lobby and a laptop in a game is online, playing.  This process keeps
what each of its connections says (away or not, the activity it learned
from the games the connection plays) and writes the player's sum here to
the store under this process's lease (``server.storage.presence``); what
friends see is the sum over every process holding the player, read back
from the store.  ``docs/social.md`` ("Presence") has the rules a user
meets:

- away: the client said so (``set_presence``), or the player sent no
  request but ``ping`` for ``PresenceTiming.idle_seconds`` on any of its
  connections; any request but ``ping`` on one connection brings it back.
  A player is away only when every connection of it is away.
- activity: that of the connection whose activity changed last.
- appear offline: friends see the player offline, last seen when it was
  set (or its stored last seen, if it was offline then), until undone.
- coalescing: a player's friends are told of a change at once, then at
  most once per ``coalesce_seconds``; what they are told then is the
  state at that moment, and nothing if it is what they were told last.
  So a player flapping between games costs its friends one message per
  window, and a flap that ends where it began costs none.
- only friends are told, never a player a block hides the player from
  (``hidden``), never a stranger.

The friend graph is not this module's: it is handed in as two calls
(``friends_of``, ``hidden``), and the games a connection plays come
in through ``playing`` (the Hub wires ``server.games.play.Play``'s hook),
so nothing here imports the parts that know them.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Iterable

from protocol import to_client as tc
from protocol import to_server as ts
from server.model.records import SessionHeader
from server.net.outbox import Outbox
from server.net.peer import Peer, require_player
from server.runtime.scheduler import Scheduler, Timer
from server.social.bus import PlayerBus
from server.storage.base import StorageError, Store
from server.storage.presence import LivePresence, StoredPresence

log = logging.getLogger("arena.presence")

FriendsOf = Callable[[str], Awaitable[list[str]]]
"""The ids of a player's friends."""
Hidden = Callable[[list[tuple[str, str]]], Awaitable[set[tuple[str, str]]]]
"""``hidden(pairs)``: the ``(player, viewer)`` pairs of ``pairs`` in which a
block hides the player's presence from the viewer, asked for all of a
player's friends at once (a read per friend was a store call per friend
at every presence change)."""
LOBBY: dict[str, Any] = {"kind": "lobby"}
STORE_SLOTS = 8
"""Presence's store calls under way at once, at most: a storm of presence
changes waits its turn here instead of taking the store connections a
move needs (a Redis store's pool holds 64)."""


async def no_friends(player_id: str) -> list[str]:
    """The friend graph of a server without one: nobody is anybody's friend."""
    return []


async def never_hidden(pairs: list[tuple[str, str]]) -> set[tuple[str, str]]:
    return set()


@dataclass(frozen=True)
class PresenceTiming:
    """The rules' times (``docs/social.md``).  A process renews its lease
    every ``renew_seconds``, and it lasts ``lease_seconds``; another
    process reaps a lease at most ``renew_seconds`` after it ended, so a
    killed process's players show offline to friends within
    ``lease_seconds + renew_seconds`` (13 s) of its last renewal."""

    renew_seconds: float = 3.0
    lease_seconds: float = 10.0
    idle_seconds: float = 300.0
    coalesce_seconds: float = 2.0


def activity_of(header: SessionHeader, over: bool) -> dict[str, Any]:
    """What a connection playing ``header``'s game is doing, as friends may
    see it: a daily attempt by its game's name only (its deal is secret
    until the reveal, and so are its id and progress)."""
    if over:
        return LOBBY
    if header.race_id is not None:
        return {"kind": "race", "game": header.game, "race_id": header.race_id}
    if header.daily is not None:
        return {"kind": "daily", "game": header.game}
    return {"kind": "game", "game": header.game, "game_id": header.game_id}


def seen_by_friends(player_id: str, stored: StoredPresence) -> tc.PlayerPresence:
    """The presence a player's friends are shown of what the store has."""
    if stored.hidden_seen_ms is not None:
        return tc.PlayerPresence(player_id=player_id, state="offline", last_seen=stored.hidden_seen_ms)
    if not stored.live:
        return tc.PlayerPresence(player_id=player_id, state="offline", last_seen=stored.last_seen_ms)
    entries = stored.live.values()
    newest = max(entries, key=lambda entry: entry.changed_ms)
    state = "away" if all(entry.away for entry in entries) else "online"
    return tc.PlayerPresence(player_id=player_id, state=state, activity=tc.Activity(**newest.activity))


def told_form(view: tc.PlayerPresence) -> str:
    """A presence as this process remembers telling it: equal exactly when
    the views are, and a tenth of the model's size in memory."""
    return view.model_dump_json()


@dataclass(slots=True)
class _Connection:
    """What one connection says of its player (slotted: one per connection)."""

    heard_ms: int
    said_away: bool = False
    idle: bool = False
    activity: dict[str, Any] = field(default_factory=lambda: LOBBY)
    changed_ms: int = 0

    @property
    def away(self) -> bool:
        return self.said_away or self.idle


class Presence:
    """Presence of the players connected here, told to their friends."""

    def __init__(
        self, store: Store, origin: str, now: Callable[[], int], scheduler: Scheduler, bus: PlayerBus,
        outbox: Outbox, friends_of: FriendsOf = no_friends, hidden: Hidden = never_hidden,
        timing: PresenceTiming = PresenceTiming(),
    ) -> None:
        self._store = store
        self.origin = origin
        self._now = now
        self._scheduler = scheduler
        self._bus = bus
        self._outbox = outbox
        self._friends_of = friends_of
        self._hidden = hidden
        self.timing = timing
        self._connections: dict[Peer, _Connection] = {}
        self._told: dict[str, tuple[int, str]] = {}
        """Per player held here: when its friends were last told, and what
        (``told_form``: a string, not the model, kept for each player)."""
        self._pending: dict[str, Timer] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._slots = asyncio.Semaphore(STORE_SLOTS)

    def use_friends(self, friends_of: FriendsOf, hidden: Hidden) -> None:
        """Take the friend graph's two calls (the Hub wires the graph's part
        once it exists; a test hands in a small relation of its own)."""
        self._friends_of = friends_of
        self._hidden = hidden

    # ------------------------------------------------------------ connections

    async def arrived(self, peer: Peer) -> None:
        """A connection said hello: its player is online here, in the lobby
        (written after the ``welcome``, so a store failure here is no
        failure of the ``hello``, which is answered already)."""
        now = self._now()
        self._connections[peer] = _Connection(heard_ms=now, changed_ms=now)
        self._spawn(self.changed(require_player(peer).player_id))

    def departed(self, peer: Peer) -> None:
        """A connection closed (its player's last here: offline here)."""
        if self._connections.pop(peer, None) is not None and peer.player is not None:
            self._spawn(self.changed(peer.player.player_id))

    def heard(self, peer: Peer, message: object) -> None:
        """A request came from ``peer``: unless it is a ``ping`` (a client
        keeping its connection alive) or ``set_presence``, the player is here."""
        connection = self._connections.get(peer)
        if connection is None or isinstance(message, (ts.Ping, ts.SetPresence)):
            return
        connection.heard_ms = self._now()
        if connection.away:
            connection.said_away = connection.idle = False
            self._spawn(self.changed(require_player(peer).player_id))

    def playing(self, peer: Peer, header: SessionHeader, over: bool) -> None:
        """``peer`` started or played ``header``'s game (``over``: it has ended)."""
        connection = self._connections.get(peer)
        activity = activity_of(header, over)
        if connection is None or connection.activity == activity:
            return
        connection.activity = activity
        connection.changed_ms = self._now()
        self._spawn(self.changed(require_player(peer).player_id))

    def idle_check(self) -> None:
        """Mark away the connections that sent nothing for ``idle_seconds``.

        Walks the connections in place: a copied list of their pairs made
        a tracked tuple per connection, thousands at once on a busy server,
        and past the interpreter's free list of pairs each 700 of them
        started a young collection within this one turn of the loop.
        Nothing here changes the table (the changes run later, as tasks)."""
        quiet_since = self._now() - round(self.timing.idle_seconds * 1000)
        for peer, connection in self._connections.items():
            if not connection.away and connection.heard_ms <= quiet_since and peer.player is not None:
                connection.idle = True
                self._spawn(self.changed(peer.player.player_id))

    # ------------------------------------------------------------ requests

    async def set_presence(self, peer: Peer, message: ts.SetPresence) -> None:
        player = require_player(peer)
        connection = self._connections[peer]
        connection.said_away = message.away
        if not message.away:
            connection.idle = False
            connection.heard_ms = self._now()
        await self.changed(player.player_id)
        self._outbox.send(peer, tc.Ack(id=message.id))

    async def appear_offline(self, peer: Peer, message: ts.AppearOffline) -> None:
        """Hide, showing friends the last seen of this moment (or, for a
        player already offline everywhere, its stored last seen), or show again."""
        player_id = require_player(peer).player_id
        stored = (await self._store.presence([player_id], self._now()))[player_id]
        if message.on and stored.hidden_seen_ms is None:
            await self._store.hide_presence(player_id, self._now() if stored.live else stored.last_seen_ms or self._now())
        elif not message.on and stored.hidden_seen_ms is not None:
            await self._store.hide_presence(player_id, None)
        await self._announce(player_id)
        self._outbox.send(peer, tc.Ack(id=message.id))

    async def friends_presence(self, peer: Peer, message: ts.FriendsPresence) -> None:
        reply = await self._friends_view(require_player(peer).player_id)
        self._outbox.send(peer, reply.model_copy(update={"id": message.id}))

    async def resumed(self) -> None:
        """The bus was down and may have lost presence changes: each player
        here gets its friends' presence afresh (a ``presences`` unasked)."""
        for player_id in self._bus.players_here():
            self._bus.tell_here([player_id], await self._friends_view(player_id))

    async def _friends_view(self, player_id: str) -> tc.Presences:
        friends = await self._friends_unhidden(player_id, lambda friend: (friend, player_id))
        stored = await self._store.presence([player_id, *friends], self._now())
        players = [seen_by_friends(friend, stored[friend]) for friend in friends]
        return tc.Presences(players=players, appear_offline=stored[player_id].hidden_seen_ms is not None)

    async def presence_of(self, player_ids: Iterable[str]) -> dict[str, tc.PlayerPresence]:
        """Each player's presence as its friends see it, in one store read.
        Whoever asks is the one to check that the asker is a friend the
        player is not hidden from (the friends list does)."""
        named = list(dict.fromkeys(player_ids))
        async with self._slots:
            stored = await self._store.presence(named, self._now())
        return {player_id: seen_by_friends(player_id, stored[player_id]) for player_id in named}

    # ------------------------------------------------------------ telling

    def live_here(self, player_id: str) -> LivePresence | None:
        """The sum of the player's connections here (None: it has none)."""
        connections = [self._connections[peer] for peer in self._bus.connections(player_id) if peer in self._connections]
        if not connections:
            return None
        newest = max(connections, key=lambda connection: connection.changed_ms)
        away = all(connection.away for connection in connections)
        return LivePresence(away, newest.activity, newest.changed_ms)

    async def changed(self, player_id: str) -> None:
        """Write the player's presence here to the store, and tell its
        friends (now, or at the end of its coalescing window)."""
        async with self._slots:
            await self._store.put_presence(self.origin, player_id, self.live_here(player_id), self._now())
        self.soon(player_id)

    def soon(self, player_id: str) -> None:
        """Tell the player's friends now, or once its window ends."""
        if player_id in self._pending:
            return
        told_ms, _ = self._told.get(player_id, (None, None))
        window_ms = round(self.timing.coalesce_seconds * 1000)
        wait_ms = 0 if told_ms is None else told_ms + window_ms - self._now()
        if wait_ms <= 0:
            self._spawn(self._announce(player_id))
            return

        def due() -> None:
            del self._pending[player_id]
            self._spawn(self._announce(player_id))

        self._pending[player_id] = self._scheduler.call_later(wait_ms / 1000, due)

    async def _announce(self, player_id: str) -> None:
        """Tell the player's friends what the store has of it now, unless
        it is what this process told them last."""
        view = (await self.presence_of([player_id]))[player_id]
        _, last = self._told.get(player_id, (None, None))
        form = told_form(view)
        if form == last:
            return
        if self._bus.connections(player_id) or player_id in self._pending:
            self._told[player_id] = (self._now(), form)
        else:
            self._told.pop(player_id, None)
        await self.tell_friends(view)

    async def tell_friends(self, view: tc.PlayerPresence) -> None:
        """Push ``view`` to the player's friends, but not to one it is hidden from."""
        player_id = view.player_id
        friends = await self._friends_unhidden(player_id, lambda friend: (player_id, friend))
        await self._bus.tell(friends, tc.Presence(**view.model_dump()))

    async def _friends_unhidden(self, player_id: str, pair: Callable[[str], tuple[str, str]]) -> list[str]:
        """The player's friends but those whose ``pair(friend)``, a
        ``(player, viewer)`` pair, a block hides, asked in one read."""
        listed = await self._friends_of(player_id)
        hidden = await self._hidden([pair(friend) for friend in listed])
        return [friend for friend in listed if pair(friend) not in hidden]

    # ------------------------------------------------------------ life

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        error = None if task.cancelled() else task.exception()
        if isinstance(error, StorageError):
            log.warning("presence not written or told: %s", error)
        elif error is not None:
            log.error("presence failed", exc_info=error)

    async def write_again(self) -> None:
        """Write every player held here again, once this process's lease
        (just renewed) had lapsed.  Another process may have reaped it
        meanwhile and told these players' friends they were offline: where
        the store no longer shows what this process told them, they are
        told again, even if it is what this process told them last."""
        here = list(self._bus.players_here())
        shown = await self.presence_of(here)
        for player_id in here:
            if told_form(shown[player_id]) != self._told.get(player_id, (None, None))[1]:
                self._told.pop(player_id, None)
            await self.changed(player_id)

    async def close(self) -> None:
        """Finish the writes under way and tell friends now what waited for
        the end of its window (a player that just left, most often)."""
        await asyncio.gather(*self._tasks, return_exceptions=True)
        waiting = list(self._pending)
        for timer in self._pending.values():
            timer.cancel()
        self._pending.clear()
        for player_id in waiting:
            try:
                await self._announce(player_id)
            except StorageError as error:
                log.warning("presence not told at shutdown: %s", error)
