"""Presence: friends see each other online, away or offline (last seen),
and what they are doing; nobody else sees anything.

A memory hub on the fake clock and scheduler (``tests.server.arena_clock``),
so the idle rule, the coalescing window and the lease run when the test
moves time.  The friend graph is the test's own small relation
(``Friends``), handed to presence as the Hub hands the real one.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from contextlib import asynccontextmanager
from typing import AsyncIterator

from tests.server.arena_clock import FakeClock, ManualScheduler
from tests.server.arena_memory import MemoryArena, MemoryClient
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WAIT_SECONDS

from protocol import MSGPACK_SUBPROTOCOL
from protocol import to_client as tc
from protocol import to_server as ts
from server.games.lobby import hash_token
from server.model.records import PlayerRecord
from server.storage.memory import MemoryStore
from server.storage.presence import LivePresence


class Friends:
    """A friend relation and the blocks between players, as the graph's two calls."""

    def __init__(self) -> None:
        self.graph: defaultdict[str, set[str]] = defaultdict(set)
        self.blocks: set[frozenset[str]] = set()

    def befriend(self, one: str, other: str) -> None:
        self.graph[one].add(other)
        self.graph[other].add(one)

    async def friends_of(self, player_id: str) -> list[str]:
        return sorted(self.graph[player_id])

    async def hidden(self, pairs: list[tuple[str, str]]) -> set[tuple[str, str]]:
        return {pair for pair in pairs if frozenset(pair) in self.blocks}


class World:
    """One hub on the fake clock, its players made with known ids."""

    def __init__(self, arena: MemoryArena, clock: FakeClock, scheduler: ManualScheduler, friends: Friends) -> None:
        self.arena, self.clock, self.scheduler, self.friends = arena, clock, scheduler, friends

    async def connect(self, player_id: str, subprotocol: str | None = MSGPACK_SUBPROTOCOL) -> MemoryClient:
        token = f"token-of-{player_id}"
        if await self.arena.store.get_player(player_id) is None:
            await self.arena.store.create_player(PlayerRecord(player_id, player_id.title(), hash_token(token), 0))
        client = await self.arena.client(subprotocol)
        assert (await client.request(ts.Hello, token=token)).type == "welcome"
        return client

    async def online_elsewhere(self, origin: str, player_id: str) -> int:
        """Write ``player_id`` in the lobby of process ``origin``, whose
        lease starts now, straight to the store (nothing is told); now."""
        now = self.clock.ms
        lease_ms = round(self.arena.hub.presence.timing.lease_seconds * 1000)
        await self.arena.store.renew_presence_lease(origin, now, lease_ms)
        await self.arena.store.put_presence(origin, player_id, LivePresence(False, {"kind": "lobby"}, now), now)
        return now

    def advance(self, seconds: float) -> None:
        self.scheduler.advance(round(seconds * 1000))


class SharedStore:
    """Hubs that share one store on one fake clock, as server processes
    share Redis; Ann and Bob are friends."""

    def __init__(self) -> None:
        self.clock = FakeClock()
        self.scheduler = ManualScheduler(self.clock)
        self.friends = Friends()
        self.friends.befriend("ann", "bob")
        self.store = MemoryStore(self.clock)

    def hub(self) -> MemoryArena:
        return MemoryArena(
            make_settings(), self.store, clock=self.clock, monotonic=self.clock.seconds, scheduler=self.scheduler
        )

    async def connect(self, arena: MemoryArena, player_id: str) -> MemoryClient:
        arena.hub.presence.use_friends(self.friends.friends_of, self.friends.hidden)
        return await World(arena, self.clock, self.scheduler, self.friends).connect(player_id)


@asynccontextmanager
async def world() -> AsyncIterator[World]:
    clock = FakeClock()
    scheduler = ManualScheduler(clock)
    friends = Friends()
    store = MemoryStore(clock)
    async with MemoryArena(make_settings(), store, clock=clock, monotonic=clock.seconds, scheduler=scheduler) as arena:
        arena.hub.presence.use_friends(friends.friends_of, friends.hidden)
        yield World(arena, clock, scheduler, friends)


@asynccontextmanager
async def ann_and_bob() -> AsyncIterator[tuple[World, MemoryClient, MemoryClient]]:
    """Friends Ann and Bob connected, Bob told that Ann is online, and the
    coalescing window of that news over."""
    async with world() as w:
        w.friends.befriend("ann", "bob")
        bob = await w.connect("bob")
        ann = await w.connect("ann")
        await told(bob, "ann", "online")
        w.advance(3)
        yield w, ann, bob


async def told(client: MemoryClient, player_id: str, state: str, **fields: object) -> tc.Presence:
    """The next ``presence`` of ``player_id`` in ``state`` (with ``fields``) that ``client`` is told."""

    def wanted(message: tc.ServerMessage) -> bool:
        return (
            isinstance(message, tc.Presence) and message.player_id == player_id and message.state == state
            and all(getattr(message, name) == value for name, value in fields.items())
        )

    found: tc.Presence = await client.wait_for(wanted, WAIT_SECONDS)
    return found


def presences(client: MemoryClient) -> list[tc.Presence]:
    return [message for message in client.received if isinstance(message, tc.Presence)]


async def test_a_friend_sees_a_player_come_online_in_the_lobby_and_go_offline_last_seen_then() -> None:
    async with world() as w:
        w.friends.befriend("ann", "bob")
        bob = await w.connect("bob", subprotocol=None)
        ann = await w.connect("ann")
        await told(bob, "ann", "online", activity=tc.Activity(kind="lobby"))
        w.advance(5)
        left_at = w.clock.ms
        await ann.close()
        assert (await told(bob, "ann", "offline")).last_seen == left_at
        reply = await bob.request(ts.FriendsPresence)
        assert isinstance(reply, tc.Presences)
        assert reply.players == [tc.PlayerPresence(player_id="ann", state="offline", last_seen=left_at)]


async def test_a_stranger_is_never_told_and_lists_no_presence() -> None:
    async with world() as w:
        w.friends.befriend("ann", "bob")
        stranger = await w.connect("eve")
        bob = await w.connect("bob")
        ann = await w.connect("ann")
        await told(bob, "ann", "online")
        w.advance(3)
        started, _ = await ann.new_game()
        await told(bob, "ann", "online", activity=tc.Activity(kind="game", game="klondike", game_id=started.game_id))
        reply = await stranger.request(ts.FriendsPresence)
        assert isinstance(reply, tc.Presences) and reply.players == []
        assert presences(stranger) == []


async def test_a_blocked_friend_sees_nothing_and_lists_nothing() -> None:
    async with world() as w:
        w.friends.befriend("ann", "bob")
        w.friends.befriend("ann", "cat")
        w.friends.blocks.add(frozenset(("ann", "cat")))
        bob, cat = await w.connect("bob"), await w.connect("cat")
        await w.connect("ann")
        await told(bob, "ann", "online")
        reply = await cat.request(ts.FriendsPresence)
        assert isinstance(reply, tc.Presences) and reply.players == []
        assert [message for message in presences(cat) if message.player_id == "ann"] == []


async def test_away_when_the_client_says_so_or_after_the_idle_time_and_back_on_any_request() -> None:
    async with ann_and_bob() as (w, ann, bob):
        assert (await ann.request(ts.SetPresence, away=True)).type == "ack"
        await told(bob, "ann", "away")
        w.advance(3)
        await ann.request(ts.ListGames)
        await told(bob, "ann", "online")
        w.advance(3)
        await ann.request(ts.Ping)
        w.advance(w.arena.hub.presence.timing.idle_seconds + 3)
        await told(bob, "ann", "away", activity=tc.Activity(kind="lobby"))
        w.advance(3)
        await ann.request(ts.Catalogue)
        await told(bob, "ann", "online")


async def test_a_player_is_away_only_when_every_connection_of_it_is() -> None:
    async with world() as w:
        w.friends.befriend("ann", "bob")
        bob = await w.connect("bob")
        phone, laptop = await w.connect("ann"), await w.connect("ann")
        await told(bob, "ann", "online")
        w.advance(3)
        await phone.request(ts.SetPresence, away=True)
        w.advance(3)
        await laptop.request(ts.SetPresence, away=True)
        await told(bob, "ann", "away")
        w.advance(3)
        await phone.close()
        w.advance(3)
        assert [message.state for message in presences(bob) if message.player_id == "ann"] == ["online", "away"]
        await laptop.close()
        w.advance(3)
        await told(bob, "ann", "offline")


async def test_a_daily_attempt_shows_only_that_it_is_one_and_the_end_of_a_game_shows_the_lobby() -> None:
    async with ann_and_bob() as (w, ann, bob):
        started, _ = await ann.new_game(deal="daily", options={"draw": 3})
        shown = await told(bob, "ann", "online", activity=tc.Activity(kind="daily", game="klondike"))
        frame = bob.codec.encode(shown)
        assert started.game_id.encode() not in (frame if isinstance(frame, bytes) else frame.encode())
        w.advance(3)
        await ann.request(ts.Resign, game_id=started.game_id)
        await told(bob, "ann", "online", activity=tc.Activity(kind="lobby"))


async def test_changes_within_the_window_reach_friends_as_one_and_a_flap_back_as_none() -> None:
    async with ann_and_bob() as (w, ann, bob):
        zeroth, _ = await ann.new_game()
        await told(bob, "ann", "online", activity=tc.Activity(kind="game", game="klondike", game_id=zeroth.game_id))
        first, _ = await ann.new_game()
        second, _ = await ann.new_game()
        await ann.request(ts.Ping)
        assert len(presences(bob)) == 2, "the next changes wait for the end of the window"
        w.advance(w.arena.hub.presence.timing.coalesce_seconds)
        await told(bob, "ann", "online", activity=tc.Activity(kind="game", game="klondike", game_id=second.game_id))
        assert len(presences(bob)) == 3
        w.advance(5)
        await ann.request(ts.SetPresence, away=True)
        await told(bob, "ann", "away")
        w.advance(0.5)
        await ann.request(ts.SetPresence, away=False)
        await ann.request(ts.SetPresence, away=True)
        w.advance(w.arena.hub.presence.timing.coalesce_seconds)
        await ann.request(ts.Ping)
        await bob.request(ts.Ping)
        assert [message.state for message in presences(bob)] == ["online", "online", "online", "away"]
        assert first.game_id != second.game_id


async def test_appearing_offline_shows_friends_offline_last_seen_when_it_was_set_until_undone() -> None:
    async with ann_and_bob() as (w, ann, bob):
        w.advance(4)
        hidden_at = w.clock.ms
        assert (await ann.request(ts.AppearOffline, on=True)).type == "ack"
        assert (await told(bob, "ann", "offline")).last_seen == hidden_at
        w.advance(3)
        await ann.new_game()
        w.advance(3)
        reply = await bob.request(ts.FriendsPresence)
        assert isinstance(reply, tc.Presences)
        assert reply.players == [tc.PlayerPresence(player_id="ann", state="offline", last_seen=hidden_at)]
        own = await ann.request(ts.FriendsPresence)
        assert isinstance(own, tc.Presences) and own.appear_offline
        assert [message.state for message in presences(bob)] == ["online", "offline"]
        await ann.request(ts.AppearOffline, on=False)
        w.advance(3)
        await told(bob, "ann", "online")


async def test_appearing_offline_is_the_players_on_every_device_and_outlives_its_connections() -> None:
    async with world() as w:
        w.friends.befriend("ann", "bob")
        bob = await w.connect("bob")
        ann = await w.connect("ann")
        w.advance(3)
        await ann.request(ts.AppearOffline, on=True)
        await told(bob, "ann", "offline")
        await ann.close()
        w.advance(60)
        phone = await w.connect("ann")
        w.advance(3)
        await phone.request(ts.Ping)
        reply = await bob.request(ts.FriendsPresence)
        assert isinstance(reply, tc.Presences) and reply.players[0].state == "offline"
        assert "online" not in [message.state for message in presences(bob)][1:]


async def test_a_friend_on_another_process_is_told_and_a_stopped_process_shows_its_players_offline() -> None:
    shared = SharedStore()
    async with shared.hub() as here:
        there = shared.hub()
        await there.__aenter__()
        bob = await shared.connect(here, "bob")
        await shared.connect(there, "ann")
        await told(bob, "ann", "online")
        await there.__aexit__(None, None, None)
        await told(bob, "ann", "offline")


async def test_a_process_that_died_without_a_word_has_its_players_told_offline_by_a_live_one() -> None:
    async with world() as w:
        w.friends.befriend("ann", "bob")
        bob = await w.connect("bob")
        timing = w.arena.hub.presence.timing
        renewed = await w.online_elsewhere("dead", "ann")
        listed = await bob.request(ts.FriendsPresence)
        assert isinstance(listed, tc.Presences) and listed.players[0].state == "online"
        w.advance(timing.lease_seconds + timing.renew_seconds)
        assert (await told(bob, "ann", "offline")).last_seen == renewed


async def test_presence_lost_while_the_channel_was_down_is_sent_again_when_it_resumes() -> None:
    """Pub/sub drops what is published while a subscription is down (Redis;
    the memory store never does): when the channel is back, each player
    here is sent its friends' presence afresh from the store, so a friend
    who came online meanwhile shows without a request."""
    async with world() as w:
        w.friends.befriend("bob", "carol")
        bob = await w.connect("bob")
        await w.online_elsewhere("there", "carol")
        assert not [message for message in presences(bob) if message.player_id == "carol"], "written, never told"

        await w.arena.hub.presence.resumed()

        resent = await bob.wait_for(lambda message: isinstance(message, tc.Presences), WAIT_SECONDS)
        assert isinstance(resent, tc.Presences) and resent.id is None, "sent unasked"
        assert [(friend.player_id, friend.state) for friend in resent.players] == [("carol", "online")]


async def test_a_process_whose_own_lease_lapsed_and_was_reaped_tells_friends_its_players_are_back() -> None:
    """A process that stalled longer than its lease (or lost the store
    that long) finds its players reaped by another, which told their
    friends they were offline: its next renewal writes them again, and the
    friends are told they are back, though it had told them so before."""
    shared = SharedStore()
    async with shared.hub() as here, shared.hub() as there:
        bob = await shared.connect(here, "bob")
        await shared.connect(there, "ann")
        await told(bob, "ann", "online")
        timing = here.hub.presence.timing

        shared.clock.ms += round((timing.lease_seconds + timing.renew_seconds) * 1000)
        await here.hub.presence_leases.round()
        await told(bob, "ann", "offline")
        await there.hub.presence_leases.round()

        await told(bob, "ann", "online")
        listed = await bob.request(ts.FriendsPresence)
        assert isinstance(listed, tc.Presences) and [friend.state for friend in listed.players] == ["online"]


async def test_the_idle_check_makes_no_tracked_object_per_connection() -> None:
    """Run on every lease renewal over every connection: a tracked object
    per connection would start young collections inside that one turn of
    the loop on a busy server (one per 700 of them)."""
    async with world() as w:
        clients = [await w.connect(f"player{number}") for number in range(300)]
        presence = w.arena.hub.presence
        gc.disable()
        try:
            pairs_held = [(number, -number) for number in range(3_000)]
            # Held, these empty the interpreter's free list of pairs, which
            # would otherwise hand out pairs the count does not see.
            before = gc.get_count()[0]
            presence.idle_check()
            made = gc.get_count()[0] - before
            del pairs_held
        finally:
            gc.enable()
        assert made < len(clients) // 10, f"{made} tracked objects made for {len(clients)} connections"
        w.advance(presence.timing.idle_seconds + 1)
        presence.idle_check()
        assert all(connection.idle for connection in presence._connections.values()), "the check still marks them away"
