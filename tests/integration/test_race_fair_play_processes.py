"""The attacks on what races and ranked attempts rank, over the wire:
real ``arena serve`` processes on a real Redis, each codec, one process
and two sharing the Redis (the attacker on one, everyone else on the
other).  The scripts are ``tests/races/race_fair_play``'s, which the
memory harness runs for the rule.

- A racer who played and resigned today's daily, then hosts a daily race
  and replays the winning line, takes no place, below the fresh racer.
- A racer with a live ranked attempt cannot block a daily race's start.
- ``auto_collect`` is refused in a ranked attempt and in races.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from tests.integration.arena_processes import ClientOpener, ServerStarter, WireClient
from tests.races.arena_races import pin_daily_deal
from tests.races.race_fair_play import automatic_moves_refused, blocked_start, known_deal_race
from tests.redis_server import RedisServer

from protocol import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL
from server.storage.redis import RedisStore

pytestmark = pytest.mark.redis


@pytest.mark.parametrize("codec", [JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL])
@pytest.mark.parametrize("processes", [1, 2])
async def test_known_deals_live_attempts_and_automatic_moves_never_decide_a_race_or_a_rank(
    own_redis_server: RedisServer, arena_processes: ServerStarter, clients: ClientOpener,
    monkeypatch: pytest.MonkeyPatch, codec: str, processes: int,
) -> None:
    monkeypatch.setenv("ARENA_RACE_COUNTDOWN_SECONDS", "0.5")
    store = RedisStore(own_redis_server.url)
    try:
        await pin_daily_deal(store, datetime.now(timezone.utc).date())
    finally:
        await store.close()
    servers = [await arena_processes(own_redis_server.url) for _ in range(processes)]

    async def player(name: str, on: int) -> WireClient:
        client = await clients(servers[on % processes].url, codec)
        await client.hello(name=name)
        return client

    await known_deal_race(await player("x", 0), await player("y", 1))
    await blocked_start(await player("ann", 0), await player("bob", 1))
    await automatic_moves_refused(await player("cat", 1))
