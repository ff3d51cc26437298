"""A wiped store is noticed: two server processes on one real Redis, the
data deleted under them, and both drop what they cached (``server.storage.epoch``).

The daily deal stays the same for everyone, and a room held in memory no
longer answers with a game the store does not have."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator

import pytest
from tests.races.arena_races import WireClient, player, race_settings, ready_daily
from tests.storage_backends import wipe_namespace

from protocol import ErrorCode
from protocol import to_server as ts
from server.transport.app import ArenaServer
from server.storage.redis import RedisStore

WAIT_SECONDS = 20.0


@pytest.fixture
async def arenas(redis_server: Any, redis_namespace: str) -> AsyncIterator[tuple[ArenaServer, ArenaServer]]:
    stores = [RedisStore(redis_server.url, namespace=redis_namespace) for _ in range(2)]
    settings = race_settings(store_epoch_check_seconds=0.05)
    try:
        async with ArenaServer(settings, store=stores[0]) as first, ArenaServer(settings, store=stores[1]) as second:
            yield first, second
    finally:
        for store in stores:
            await store.close()


async def _noticed(*servers: ArenaServer) -> None:
    async with asyncio.timeout(WAIT_SECONDS):
        while not all(server.hub.epoch.changes == 1 for server in servers):
            await asyncio.sleep(0.02)


async def _daily_board(client: WireClient) -> Any:
    started, snapshot = await client.new_game(deal="daily", options={"draw": 1})
    return started, snapshot.view.model_dump()


async def test_both_processes_notice_a_wiped_store_and_serve_one_daily(
    arenas: tuple[ArenaServer, ArenaServer], redis_server: Any, redis_namespace: str
) -> None:
    a, b = arenas
    async with asyncio.timeout(WAIT_SECONDS):
        while a.hub.epoch.seen is None or b.hub.epoch.seen is None:
            await asyncio.sleep(0.02)
    ann = await player(a.url, "ann")
    started, before = await _daily_board(ann)
    spectator = await WireClient.open(b.url)
    await spectator.request(ts.Daily, game="klondike")

    await wipe_namespace(redis_server.url, redis_namespace)
    await _noticed(a, b)
    assert a.hub.epoch.seen == b.hub.epoch.seen, "every process agrees on the new epoch"

    lost = await ann.wait_for(lambda m: m.type == "error" and m.game_id == started.game_id)
    assert lost.code == ErrorCode.GAME_NOT_FOUND
    refused = await ann.request(ts.Watch, game_id=started.game_id)
    assert refused.type == "error" and refused.code == ErrorCode.GAME_NOT_FOUND, "the room held in memory is gone with the store"

    again_a, again_b = await player(a.url, "cat"), await player(b.url, "dan")
    boards = [(await _daily_board(client))[1] for client in (again_a, again_b)]
    assert boards[0] == boards[1] == before, "one daily deal on every process, the same secret giving the same seed"
    commitments = []
    for client in (again_a, again_b):
        info = await ready_daily(client, game="klondike")
        commitments.append([deal.commitment for deal in info.deals])
    assert commitments[0] == commitments[1]
    for client in (ann, spectator, again_a, again_b):
        await client.close()
