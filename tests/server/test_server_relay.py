"""Two server processes on one store: a spectator on one sees a game
played on the other, the player may move through either, and a race
between them is settled by the log (``state_conflict`` for the loser).

Both servers run in this test process and share one memory store, whose
pub/sub reaches subscribers of the same process: the same code paths as
two processes on one Redis, minus Redis (its own tests run the real
thing).
"""

from __future__ import annotations

import asyncio
from typing import AsyncIterator

import pytest
from tests.server.arena_stores import FaultyStore
from tests.server.arena_wire import WAIT_SECONDS, Mirror, WireClient
from tests.server.arena_servers import make_settings

from protocol import ErrorCode
from protocol import to_server as ts
from server.transport.app import ArenaServer


@pytest.fixture
async def pair() -> AsyncIterator[tuple[ArenaServer, ArenaServer, FaultyStore]]:
    store = FaultyStore()
    async with ArenaServer(make_settings(), store=store) as first, ArenaServer(make_settings(), store=store) as second:
        yield first, second, store


async def test_a_spectator_on_another_process_sees_every_move(
    pair: tuple[ArenaServer, ArenaServer, FaultyStore],
) -> None:
    here, there, _ = pair
    player = await WireClient.open(here.url)
    await player.hello()
    started, snapshot = await player.new_game(deal=12)
    spectator = await WireClient.open(there.url, "arena.v1.json")
    mirror = Mirror(await spectator.request(ts.Watch, game_id=started.game_id))
    played = [reply.action.text for reply in await player.play_first_legal(started.game_id, snapshot.legal, 10)]
    for number in range(1, 11):
        mirror.apply(await spectator.wait_for(lambda m, n=number: m.type == "diff" and m.seq == n))
    assert [m.action.text for m in spectator.received if m.type == "diff"] == played
    assert mirror.view == here.hub.rooms[started.game_id].session.view
    await player.request(ts.Resign, game_id=started.game_id)
    assert (await spectator.next_of("game_over")).result == "resigned"
    await player.close()
    await spectator.close()


async def test_the_player_can_continue_through_another_process(
    pair: tuple[ArenaServer, ArenaServer, FaultyStore],
) -> None:
    here, there, _ = pair
    player = await WireClient.open(here.url)
    await player.hello()
    started, snapshot = await player.new_game(deal=12)
    assert snapshot.legal, "the owner's snapshot lists the legal moves"
    moved = await player.request(ts.Move, game_id=started.game_id, move=snapshot.legal[0])
    assert moved.type == "diff", moved
    await player.close()
    elsewhere = await WireClient.open(there.url)
    await elsewhere.hello(token=player.token)
    resumed = await elsewhere.wait_for(lambda m: m.type == "snapshot")
    assert resumed.seq == 1 and resumed.counters == moved.counters
    onward = await elsewhere.request(ts.Move, game_id=started.game_id, move=resumed.legal[0])
    assert onward.type == "diff" and onward.seq == 2
    await elsewhere.close()


async def test_two_processes_acting_at_once_cannot_fork_a_game(
    pair: tuple[ArenaServer, ArenaServer, FaultyStore],
) -> None:
    here, there, store = pair
    left = await WireClient.open(here.url)
    await left.hello()
    started, snapshot = await left.new_game(deal=12, options={"draw": 3})
    right = await WireClient.open(there.url)
    await right.hello(token=left.token)
    await right.wait_for(lambda m: m.type == "snapshot")
    store.delay = 0.05
    replies = await asyncio.gather(
        left.request(ts.Move, game_id=started.game_id, move="draw"),
        right.request(ts.Move, game_id=started.game_id, move="draw"),
    )
    store.delay = 0.0
    kinds = sorted(reply.type for reply in replies)
    assert kinds == ["diff", "error"], replies
    loser = left if replies[0].type == "error" else right
    error = replies[0] if replies[0].type == "error" else replies[1]
    assert error.type == "error" and error.code == ErrorCode.STATE_CONFLICT
    fresh = next(m for m in loser.received if m.type == "snapshot" and m.seq == 1)
    assert loser.received.index(fresh) < loser.received.index(error), "the true state comes before the error"
    stored = await store.load_session(started.game_id)
    assert stored is not None
    header, log = stored
    assert len(log) == 1
    # The winner's move reaches the other process through the relay: wait
    # for it (a fixed 50 ms was too short on a loaded machine).
    async with asyncio.timeout(WAIT_SECONDS):
        while here.hub.rooms[started.game_id].session.view != there.hub.rooms[started.game_id].session.view:
            await asyncio.sleep(0.01)
    await left.close()
    await right.close()
