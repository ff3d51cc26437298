"""Redis stops while players act, then comes back.

While it is down, every action gets ``storage_unavailable`` (the
connection stays open and nothing changes); when it returns, service
resumes by itself: moves succeed again, and a spectator on another
process gets the moves made since, even the first one, whose pub/sub
message that process may have missed while its subscriber was still
reconnecting (the relay catches up from the log when its subscription
is back).  Redis runs with an append-only file, so its own restart loses
nothing it acknowledged.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

import pytest
from tests.integration.arena_processes import (
    ClientOpener,
    Mirror,
    ServerStarter,
    WireClient,
    stored_log,
    view_of,
)
from tests.redis_server import RedisServer

from protocol import ErrorCode
from protocol import to_server as ts
from server.storage.redis import RedisStore

pytestmark = pytest.mark.redis

# Long enough for the subscribers' reconnection backoff to reach its
# ceiling (2 s), so that the first move after Redis returns is published
# before the spectator's process has subscribed again.
OUTAGE_SECONDS = 2.5
RESUME_SECONDS = 15.0


async def first_success(player: WireClient, game_id: str, move: str) -> tuple[Any, int]:
    """Retry ``move`` until it is accepted; the reply and how many
    ``storage_unavailable`` refusals came first."""
    refusals = 0
    async with asyncio.timeout(RESUME_SECONDS):
        while True:
            reply = await player.request(ts.Move, game_id=game_id, move=move)
            if reply.type == "diff":
                return reply, refusals
            assert reply.type == "error" and reply.code == ErrorCode.STORAGE_UNAVAILABLE, reply
            refusals += 1
            await asyncio.sleep(0.05)


async def caught_up(spectator: WireClient, mirror: Mirror, game_id: str, seq: int) -> Mirror:
    """The spectator's mirror once it reaches ``seq``: by the diff relayed
    to its process, or, when that process's subscription came back after
    the entry was published, by the snapshot its reload sends instead."""
    reached = await spectator.wait_for(
        lambda m: m.type in ("diff", "snapshot") and m.game_id == game_id and m.seq == seq, RESUME_SECONDS
    )
    if reached.type == "snapshot":
        return Mirror(reached)
    mirror.apply(reached)
    return mirror


async def test_actions_during_an_outage_are_refused_and_service_resumes_when_redis_returns(
    redis_server_factory: Callable[..., RedisServer], arena_processes: ServerStarter, clients: ClientOpener
) -> None:
    redis = redis_server_factory(persistent=True)
    a = await arena_processes(redis.url)
    b = await arena_processes(redis.url)
    player = await clients(a.url)
    await player.hello()
    started, snapshot = await player.new_game(deal=7, options={"draw": 3})
    game_id = started.game_id
    spectator = await clients(b.url, "arena.v1.json")
    mirror = Mirror(await spectator.request(ts.Watch, game_id=game_id))
    acknowledged = [await player.request(ts.Move, game_id=game_id, move="draw") for _ in range(3)]
    for number in (1, 2, 3):
        mirror.apply(await spectator.wait_for(lambda m, n=number: m.type == "diff" and m.seq == n))

    redis.stop()
    refused = [await player.request(ts.Move, game_id=game_id, move="draw") for _ in range(3)]
    refused.append(await player.request(ts.Undo, game_id=game_id))
    assert [reply.type for reply in refused] == ["error"] * 4
    assert {reply.code for reply in refused if reply.type == "error"} == {ErrorCode.STORAGE_UNAVAILABLE}
    newcomer = await clients(a.url)
    greeting = await newcomer.request(ts.Hello, name="late")
    assert greeting.type == "error" and greeting.code == ErrorCode.STORAGE_UNAVAILABLE
    assert await a.health() == 503
    pong = await player.request(ts.Ping)
    assert pong.type == "pong", "the connection stays open and answers"
    unchanged = await player.request(ts.Resync, game_id=game_id)
    assert unchanged.type == "snapshot" and unchanged.seq == 3 and view_of(unchanged) == mirror.view
    await asyncio.sleep(OUTAGE_SECONDS)

    redis.start()
    moved, refusals = await first_success(player, game_id, "draw")
    assert moved.seq == 4
    mirror = await caught_up(spectator, mirror, game_id, 4)
    after = await player.request(ts.Move, game_id=game_id, move="draw")
    mirror = await caught_up(spectator, mirror, game_id, 5)
    assert mirror.view == view_of(await player.request(ts.Resync, game_id=game_id))
    assert await a.health() == 200 and await b.health() == 200
    welcome = await newcomer.request(ts.Hello, name="late")
    assert welcome.type == "welcome"

    log = await stored_log(redis.url, game_id)
    assert [entry.text for entry in log] == [reply.action.text for reply in [*acknowledged, moved, after]]
    assert refusals == 0, f"{refusals} refusals after Redis was back: it did not resume by itself"


async def test_a_subscription_back_after_an_outage_calls_on_resume_between_the_messages(
    own_redis_server: RedisServer,
) -> None:
    """Store level: ``on_resume`` runs inside the iteration, after what came
    before the outage and before what comes after it."""
    listener, speaker = RedisStore(own_redis_server.url), RedisStore(own_redis_server.url)
    events: list[object] = []
    resumed = asyncio.Event()

    async def on_resume() -> None:
        events.append("resumed")
        resumed.set()

    try:
        subscription = await listener.subscribe("g", on_resume)

        async def read() -> None:
            async for payload in subscription:
                events.append(payload)

        reader = asyncio.create_task(read())
        await speaker.publish("g", b"before")
        own_redis_server.stop()
        await asyncio.sleep(0.3)
        own_redis_server.start()
        async with asyncio.timeout(RESUME_SECONDS):
            await resumed.wait()
        await speaker.publish("g", b"after")
        async with asyncio.timeout(RESUME_SECONDS):
            while len(events) < 3:
                await asyncio.sleep(0.01)
        assert events == [b"before", "resumed", b"after"]
        await subscription.close()
        await reader
    finally:
        await listener.close()
        await speaker.close()
