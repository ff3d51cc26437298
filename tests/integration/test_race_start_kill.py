"""``kill -9`` at each Redis write of a daily race's start: afterwards the
race has started or can be started, and no ranked claim names a game that
is not stored.

The server (``arena serve``, a real child process) reaches a real
redis-server through a ``WriteGate``, which counts the start's writes and
holds the n-th back; the test then kills the server, so Redis keeps
exactly the writes before it, starts it again, and checks.  A first,
unheld start counts the writes a start makes (one per trial after it).
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from typing import AsyncIterator

import pytest
from redis.asyncio import Redis
from tests.integration.arena_processes import ClientOpener, ServerProcess, ServerStarter, WireClient
from tests.integration.redis_gate import WriteGate
from tests.races.arena_races import pin_daily_deal
from tests.redis_server import RedisServer

from protocol import to_server as ts
from server.races.start import race_game_id
from server.storage.redis import RedisStore

pytestmark = pytest.mark.redis

HELD_SECONDS = 60.0
"""A hang bound only: a passing run waits for the held write, not for this."""
DRAW_1 = {"draw": 1}


@pytest.fixture
async def gate(own_redis_server: RedisServer) -> AsyncIterator[WriteGate]:
    opened = WriteGate(own_redis_server.port)
    await opened.start()
    yield opened
    await opened.close()


async def _lobby(server: ServerProcess, clients: ClientOpener, trial: int) -> tuple[WireClient, WireClient, str]:
    """A daily race with its host and one friend, in its lobby."""
    host = await clients(server.url)
    await host.hello(name=f"host{trial}")
    friend = await clients(server.url, "arena.v1.json")
    await friend.hello(name=f"friend{trial}")
    created = await host.request(ts.CreateRace, game="klondike", options=DRAW_1, deal="daily")
    assert created.type == "race", created
    joined = await friend.request(ts.JoinRace, code=created.race.code)
    assert joined.type == "race", joined
    return host, friend, created.race.race_id


async def _claims_name_stored_games(store: RedisStore, redis_url: str) -> dict[str, str]:
    """Every ranked claim in Redis, by key: each must name a stored game."""
    reader = Redis.from_url(redis_url, decode_responses=True)
    try:
        claims = {key: str(await reader.get(key)) async for key in reader.scan_iter(match="arena:setting:ranked/*")}
    finally:
        await reader.aclose()
    for key, game_id in claims.items():
        assert await store.load_session(game_id) is not None, f"{key} names {game_id}, which is not stored"
    return claims


async def test_a_start_killed_at_any_write_leaves_the_race_startable_and_no_claim_on_a_missing_game(
    gate: WriteGate, own_redis_server: RedisServer, arena_processes: ServerStarter, clients: ClientOpener,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_IDENTITIES_PER_HOUR", "1000")
    # The epoch check writes (an epoch, the health probe) on its own timer:
    # none may fall among a start's counted writes.
    monkeypatch.setenv("ARENA_STORE_EPOCH_CHECK_SECONDS", "3600")
    store = RedisStore(own_redis_server.url)
    await pin_daily_deal(store, datetime.now(timezone.utc).date())
    server = await arena_processes(gate.url)

    host, friend, race_id = await _lobby(server, clients, 0)
    gate.count_from_now()
    assert (await host.request(ts.StartRace, race_id=race_id)).type == "race"
    writes = gate.writes
    assert writes >= 5, "each racer's game and claim, then the ledger's start"

    held: list[bytes] = []
    unheld: list[int] = []
    try:
        for trial in range(1, writes + 1):
            host, friend, race_id = await _lobby(server, clients, trial)
            gate.count_from_now(hold_at=trial)
            request_id = host.next_id()
            await host.send(ts.StartRace(id=request_id, race_id=race_id))
            holding = asyncio.create_task(gate.held.wait())
            answer = asyncio.create_task(host.wait_for(lambda m, n=request_id: getattr(m, "id", None) == n, HELD_SECONDS))
            await asyncio.wait({holding, answer}, return_when=asyncio.FIRST_COMPLETED)
            if not gate.held.is_set():
                # The first start made writes later ones do not (the day's
                # record kept, the address's public place first taken, a
                # sweep): this one made fewer writes and ended unheld.
                unheld.append(trial)
                holding.cancel()
                gate.count_from_now()
                assert answer.result().type == "race", answer.result()
                continue
            answer.cancel()
            held.append(gate.held_command[0])
            server.kill()
            await gate.cut()
            await server.start()

            await _claims_name_stored_games(store, own_redis_server.url)
            back = await clients(server.url)
            assert (await back.hello(token=host.token)).type == "welcome"
            started = await back.request(ts.StartRace, race_id=race_id)
            assert started.type == "race" and started.event == "started", (trial, gate.held_command, started)
            entries = {racer.player_id: racer for racer in started.race.racers}
            for racer in (host, friend):
                assert entries[racer.player_id].game_id == race_game_id(race_id, racer.player_id)
                assert (entries[racer.player_id].ranked, entries[racer.player_id].apart) == (True, None), trial
            claims = await _claims_name_stored_games(store, own_redis_server.url)
            for racer in (host, friend):
                assert race_game_id(race_id, racer.player_id) in claims.values(), "the race game is the ranked attempt"
    finally:
        await store.close()
    assert len(held) >= 5 and held[-1] == b"EVALSHA", "the last held write is the ledger's start (its append script)"
    assert len(held) == writes or unheld, "every write of a start was held in one trial (a start made fewer writes than the last)"
