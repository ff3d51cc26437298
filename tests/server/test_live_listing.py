"""The live games' listing (``server.games.listing``): one store read for
every asker in a window, fresh at once for a game started or ended in this
process, and a reply that is the ``games`` model byte for byte."""

from __future__ import annotations

import asyncio

from tests.server.arena_clock import FakeClock
from tests.server.arena_memory import MemoryArena, MemoryClient
from tests.server.arena_servers import make_settings

from protocol import ErrorCode
from protocol import friends as pf
from protocol import to_client as tc
from protocol import to_server as ts
from protocol.codec import JSON, MSGPACK
from server.games.listing import FRESH_SECONDS
from server.model.records import SessionHeader
from server.storage.errors import StorageUnavailable
from server.storage.memory import MemoryStore


class CountingStore(MemoryStore):
    """A memory store that counts its reads of the live games, and can
    hold them until the test lets them go."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(clock)
        self.live_reads = 0
        self.gate: asyncio.Event | None = None
        self.failures = 0
        """Reads still to fail as an unreachable back end would."""

    async def live_sessions(self, limit: int = 100) -> list[SessionHeader]:
        self.live_reads += 1
        if self.gate is not None:
            await self.gate.wait()
        if self.failures:
            self.failures -= 1
            raise StorageUnavailable("the test's store is down")
        return await super().live_sessions(limit)


async def listed(client: MemoryClient, **fields: object) -> list[str]:
    reply = await client.request(ts.ListGames, **fields)
    assert reply.type == "games", reply
    return [game.game_id for game in reply.games]


def arena_on(store: CountingStore, clock: FakeClock) -> MemoryArena:
    return MemoryArena(make_settings(), store, clock=clock, monotonic=clock.seconds)


async def one_game_and_askers(arena: MemoryArena, askers: int) -> tuple[str, list[MemoryClient]]:
    """A player's live game, and ``askers`` anonymous connections."""
    player = await arena.client()
    await player.hello()
    started, _ = await player.new_game(deal=3)
    return started.game_id, [await arena.client() for _ in range(askers)]


async def test_many_askers_in_one_window_cost_one_read_of_the_store() -> None:
    clock = FakeClock()
    store = CountingStore(clock)
    async with arena_on(store, clock) as arena:
        game_id, askers = await one_game_and_askers(arena, 5)
        reads_before = store.live_reads
        for _ in range(4):
            for asker in askers:
                assert await listed(asker) == [game_id]
        assert store.live_reads - reads_before == 1, "twenty requests in one window read the store once"
        clock.ms += round(FRESH_SECONDS * 1000)
        assert await listed(askers[0]) == [game_id]
        assert store.live_reads - reads_before == 2, "a window later the listing is read again"


async def test_requests_that_arrive_during_a_read_wait_for_that_same_read() -> None:
    clock = FakeClock()
    store = CountingStore(clock)
    async with arena_on(store, clock) as arena:
        game_id, askers = await one_game_and_askers(arena, 3)
        reads_before = store.live_reads
        store.gate = asyncio.Event()
        waiting = [asyncio.create_task(listed(asker)) for asker in askers]
        while store.live_reads == reads_before:
            await asyncio.sleep(0)
        for _ in range(20):
            await asyncio.sleep(0)
        assert not any(task.done() for task in waiting)
        store.gate.set()
        assert await asyncio.gather(*waiting) == [[game_id]] * 3
        assert store.live_reads - reads_before == 1


async def test_a_game_started_or_ended_here_shows_at_once_and_one_of_another_process_within_the_window() -> None:
    clock = FakeClock()
    store = CountingStore(clock)
    async with arena_on(store, clock) as here, MemoryArena(make_settings(), store, clock=clock) as there:
        player, spectator = await here.client(), await here.client()
        await player.hello()
        first, _ = await player.new_game(deal=3)
        assert await listed(spectator) == [first.game_id]
        second, _ = await player.new_game(deal=4)
        assert await listed(spectator) == [second.game_id, first.game_id], "a start here is listed at once"
        await player.request(ts.Resign, game_id=first.game_id)
        assert await listed(spectator) == [second.game_id], "an end here leaves the list at once"

        elsewhere = await there.client()
        await elsewhere.hello()
        clock.ms += 10
        third, _ = await elsewhere.new_game(deal=5)
        assert await listed(spectator) == [second.game_id], "another process's start waits for the window"
        clock.ms += round(FRESH_SECONDS * 1000)
        assert await listed(spectator) == [third.game_id, second.game_id]


async def test_each_asker_is_checked_against_each_owners_blocks_once_a_window() -> None:
    clock = FakeClock()
    store = CountingStore(clock)
    async with arena_on(store, clock) as arena:
        ann, eve, bob = await arena.client(), await arena.client(), await arena.client()
        for client, name in ((ann, "ann"), (eve, "eve"), (bob, "bob")):
            await client.hello(name=name)
        blocked = await ann.request(pf.FriendChange, player_id=eve.player_id, action="block")
        assert blocked.type == "friend" and blocked.state == "blocked", blocked
        started, _ = await ann.new_game(deal=3)
        asked: list[tuple[str, str]] = []
        blocks = arena.hub.lobby.hidden_from

        async def counted(owner: str, viewer: str) -> bool:
            asked.append((owner, viewer))
            return await blocks(owner, viewer)

        arena.hub.lobby.hidden_from = counted
        for _ in range(3):
            assert await listed(eve) == []
            assert await listed(bob) == [started.game_id]
        assert sorted(asked) == sorted([(ann.player_id, eve.player_id), (ann.player_id, bob.player_id)])
        assert await listed(ann) == [started.game_id], "an owner is never asked about its own games"
        clock.ms += round(FRESH_SECONDS * 1000)
        assert await listed(eve) == [] and len(asked) == 3, "a new window asks again"


async def test_a_games_reply_is_byte_for_byte_the_games_model_in_both_codecs() -> None:
    clock = FakeClock()
    store = CountingStore(clock)
    async with arena_on(store, clock) as arena:
        player = await arena.client()
        await player.hello(name="Zoë 🂡")
        await player.new_game(deal=3, options={"undo_limit": 2**53 - 1})
        for codec, subprotocol in ((JSON, JSON.subprotocol), (MSGPACK, MSGPACK.subprotocol)):
            asker = await arena.client(subprotocol)
            reply = await asker.request(ts.ListGames)
            assert isinstance(reply, tc.Games) and reply.games[0].owner.name == "Zoë 🂡"
            frame = asker.raw[-1]
            sent = frame.encode() if isinstance(frame, str) else frame
            assert sent == codec.encode(tc.Games(id=reply.id, games=reply.games))


async def test_a_listing_the_store_could_not_give_is_refused_and_read_again_at_the_next_request() -> None:
    clock = FakeClock()
    store = CountingStore(clock)
    async with arena_on(store, clock) as arena:
        game_id, askers = await one_game_and_askers(arena, 2)
        store.failures = 1
        refused = await askers[0].request(ts.ListGames)
        assert isinstance(refused, tc.Error) and refused.code == ErrorCode.STORAGE_UNAVAILABLE, refused
        assert await listed(askers[1]) == [game_id], "a failed read is not kept for the window"
