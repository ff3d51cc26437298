"""A full Redis, through the server: ``storage_unavailable``, never
``internal_error``; ``/healthz`` says the store cannot write; one WARNING
for the episode instead of a traceback per request; a metric; nothing
half-written; and everything back once memory is freed.

Redis is made full for real: ``maxmemory`` below what it uses, under
``noeviction``, so it refuses every write with ``OOM`` while still
answering ``PING`` and reads.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from redis.asyncio import Redis
from tests.redis_server import RedisServer
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WireClient, http_exchange

from protocol import ErrorCode
from protocol import to_server as ts
from server.transport.app import ArenaServer
from server.storage.redis import RedisStore

pytestmark = pytest.mark.redis

REFUSED_MOVES = 30


async def http_get(port: int, path: str) -> tuple[int, bytes]:
    status, _, body = await http_exchange(port, f"GET {path} HTTP/1.1")
    return status, body


async def metric(port: int, name: str, **labels: str) -> float:
    _, body = await http_get(port, "/metrics")
    for family in text_string_to_metric_families(body.decode()):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(key) == value for key, value in labels.items()):
                return float(sample.value)
    raise AssertionError(f"no sample {name} {labels}")


def store_lines(caplog: pytest.LogCaptureFixture, level: int) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.levelno == level and record.name == "arena.store"]


async def test_a_full_redis_is_storage_unavailable_flips_healthz_once_and_recovers(
    own_redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    store = RedisStore(own_redis_server.url)
    raw = Redis.from_url(own_redis_server.url)
    try:
        async with ArenaServer(make_settings(redis_url=own_redis_server.url), store=store) as server:
            player = await WireClient.open(server.url)
            await player.hello()
            started, _ = await player.new_game(deal=7, options={"draw": 3})
            game_id = started.game_id
            first = await player.request(ts.Move, game_id=game_id, move="draw")
            assert first.type == "diff" and first.seq == 1
            assert await http_get(server.port, "/healthz") == (200, b"ok\n")

            await raw.config_set("maxmemory-policy", "noeviction")
            await raw.config_set("maxmemory", 1)
            replies: list[Any] = [await player.request(ts.Move, game_id=game_id, move="draw") for _ in range(REFUSED_MOVES)]
            replies.append(await player.request(ts.NewGame, game="klondike", deal=3))
            replies.append(await player.request(ts.Resign, game_id=game_id))
            newcomer = await WireClient.open(server.url)
            replies.append(await newcomer.request(ts.Hello))
            assert {(reply.type, reply.code) for reply in replies} == {("error", ErrorCode.STORAGE_UNAVAILABLE)}
            watched = await player.request(ts.Resync, game_id=game_id)
            assert watched.type == "snapshot" and watched.seq == 1, "a full store still shows its games"

            assert await http_get(server.port, "/healthz") == (503, b"storage cannot write: OOM\n")
            assert await metric(server.port, "arena_storage_writable") == 0
            assert await metric(server.port, "arena_storage_failures_total", kind="refused") >= len(replies)
            assert await metric(server.port, "arena_errors_total", code="internal_error") == 0
            warned = store_lines(caplog, logging.WARNING)
            assert len(warned) == 1 and "OOM" in warned[0].getMessage(), [r.getMessage() for r in warned]
            assert not [record for record in caplog.records if record.levelno >= logging.ERROR or record.exc_info]

            loaded = await store.load_session(game_id)
            assert loaded is not None and len(loaded[1]) == 1 and loaded[0].status == "playing", "nothing half-written"
            assert [header.game_id for header in await store.sessions_of(player.player_id)] == [game_id]
            assert await store.open_finishes() == []

            await raw.config_set("maxmemory", 0)
            assert await http_get(server.port, "/healthz") == (200, b"ok\n")
            assert await metric(server.port, "arena_storage_writable") == 1
            assert await metric(server.port, "arena_storage_episodes_total") == 1
            assert len(store_lines(caplog, logging.INFO)) == 1, "the recovery, logged once"
            onward = await player.request(ts.Move, game_id=game_id, move="draw")
            assert onward.type == "diff" and onward.seq == 2
            await player.close()
            await newcomer.close()
    finally:
        await raw.aclose()
        await store.close()
