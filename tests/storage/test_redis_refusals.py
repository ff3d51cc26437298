"""A Redis that answers but will not write: ``StorageRefused``, never a
raw redis-py error, and nothing half-written.

Each case is made on a real ``redis-server``: out of memory under
``noeviction`` (``maxmemory`` below what it uses), a read-only replica,
and ``MISCONF`` (a snapshot that cannot be written: its directory is
gone).  Every write the server makes, the append script, a ``MULTI`` and
a single command, is refused with the error's first word as the reason,
and the store is as it was; once Redis takes writes again, so does the
store.
"""

from __future__ import annotations

import asyncio
import shutil
from typing import AsyncIterator

import pytest
from redis.asyncio import Redis
from tests.redis_server import RedisServer

from server.model.records import Action, PlayerRecord, SessionHeader
from server.storage import StorageRefused
from server.storage.redis import RedisStore

pytestmark = pytest.mark.redis

HANG_SECONDS = 60.0


def header(game_id: str) -> SessionHeader:
    return SessionHeader(game_id=game_id, game="klondike", deal=7, options={}, owner="p1", created_ms=1_000)


@pytest.fixture
async def raw(own_redis_server: RedisServer) -> AsyncIterator[Redis]:
    client = Redis.from_url(own_redis_server.url)
    yield client
    await client.aclose()


async def refused_everywhere(store: RedisStore, reason: str) -> None:
    """Every kind of write is refused with ``reason``, and nothing changed."""
    writes = [
        store.append("g1", 1, Action("move", "draw", 2_000)),
        store.append("g1", 1, Action("resign", "", 2_000), ends=True),
        store.create_session(header("g2")),
        store.create_player(PlayerRecord("p2", "Bo", "hash-2", 0)),
        store.setting("claim", "mine"),
        store.check_writable(),
    ]
    for write in writes:
        with pytest.raises(StorageRefused) as refusal:
            await write
        assert refusal.value.reason == reason, refusal.value
    loaded = await store.load_session("g1")
    assert loaded is not None and [action.text for action in loaded[1]] == ["draw"]
    assert await store.load_session("g2") is None
    assert await store.get_player("p2") is None
    assert await store.get_setting("claim") is None
    assert await store.open_finishes() == []


async def written_before(store: RedisStore) -> None:
    await store.create_session(header("g1"))
    await store.append("g1", 0, Action("move", "draw", 1_000))


async def test_out_of_memory_under_noeviction_is_refused_with_oom_and_recovers(
    own_redis_server: RedisServer, raw: Redis
) -> None:
    store = RedisStore(own_redis_server.url)
    try:
        await written_before(store)
        await raw.config_set("maxmemory-policy", "noeviction")
        await raw.config_set("maxmemory", 1)
        await refused_everywhere(store, "OOM")
        await raw.config_set("maxmemory", 0)
        await store.check_writable()
        assert await store.append("g1", 1, Action("move", "draw", 3_000)) == 2
    finally:
        await store.close()


async def test_a_read_only_replica_is_refused_with_readonly(own_redis_server: RedisServer) -> None:
    primary = RedisStore(own_redis_server.url)
    try:
        await written_before(primary)
        with RedisServer(replica_of=own_redis_server.port) as replica:
            store = RedisStore(replica.url)
            try:
                async with asyncio.timeout(HANG_SECONDS):
                    while await store.load_session("g1") is None:
                        await asyncio.sleep(0.02)
                await refused_everywhere(store, "READONLY")
            finally:
                await store.close()
    finally:
        await primary.close()


async def test_a_failing_snapshot_is_refused_with_misconf_and_recovers(
    own_redis_server: RedisServer, raw: Redis
) -> None:
    store = RedisStore(own_redis_server.url)
    try:
        await written_before(store)
        shutil.rmtree(own_redis_server.directory)
        await raw.config_set("save", "3600 1")
        await raw.bgsave()
        async with asyncio.timeout(HANG_SECONDS):
            while (await raw.info("persistence"))["rdb_last_bgsave_status"] != "err":
                await asyncio.sleep(0.02)
        await refused_everywhere(store, "MISCONF")
        await raw.config_set("stop-writes-on-bgsave-error", "no")
        await store.check_writable()
    finally:
        await raw.config_set("save", "")
        await store.close()
