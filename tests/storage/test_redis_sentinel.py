"""The Redis store behind Sentinel: real ``redis-server`` processes (a
master, a replica and a sentinel), a real failover, and the store going
on against the promoted replica."""

from __future__ import annotations

import asyncio
import time
from typing import AsyncIterator, Iterator

import pytest
from redis.asyncio import Redis
from tests.redis_server import RedisSentinel, RedisServer

from server.model.records import Action, SessionHeader
from server.storage import StorageUnavailable, open_store
from server.storage.redis import RedisStore

pytestmark = pytest.mark.redis

FAILOVER_SECONDS = 120
"""Bounds a hang only: the failover is the sentinel's own timers
(``down-after-milliseconds``, elections), which a test cannot drive, and
beside two CPU burners at load 8 on 2 cores it took over 30 s."""


class Replicated:
    """A master (``own_redis_server``, which skips without a redis-server
    binary, or fails under CI), its replica and one sentinel watching them."""

    def __init__(self, master: RedisServer) -> None:
        self.master = master
        self.replica = RedisServer(replica_of=self.master.port)
        self.replica.start()
        self.sentinel = RedisSentinel(self.master.port)

    def remove(self) -> None:
        self.sentinel.remove()
        self.replica.remove()


@pytest.fixture
def replicated(own_redis_server: RedisServer) -> Iterator[Replicated]:
    servers = Replicated(own_redis_server)
    yield servers
    servers.remove()


@pytest.fixture
async def store(replicated: Replicated) -> AsyncIterator[RedisStore]:
    chosen = open_store(replicated.sentinel.url, namespace="sentinel-test")
    assert isinstance(chosen, RedisStore)
    yield chosen
    await chosen.close()


def header(game_id: str) -> SessionHeader:
    return SessionHeader(game_id=game_id, game="klondike", deal=3, options={}, owner="p1", created_ms=1_000)


async def wait_for_replica(master_port: int) -> None:
    """Until the replica has every write so far (``WAIT``)."""
    client = Redis(port=master_port)
    try:
        assert await client.execute_command("WAIT", 1, 5_000) == 1
    finally:
        await client.aclose()


async def test_the_store_finds_the_master_through_sentinel_and_follows_a_failover(
    replicated: Replicated, store: RedisStore
) -> None:
    await store.ping()
    await store.create_session(header("g1"))
    assert await store.append("g1", 0, Action("move", "draw", 1)) == 1
    subscription = await store.subscribe("channel")
    await wait_for_replica(replicated.master.port)

    replicated.master.stop(kill=True)
    deadline = time.monotonic() + FAILOVER_SECONDS
    while replicated.sentinel.master_port() != replicated.replica.port:
        assert time.monotonic() < deadline, "sentinel did not promote the replica"
        await asyncio.sleep(0.2)

    while True:
        try:
            length = await store.append("g1", 1, Action("move", "t1-t2", 2))
            break
        except StorageUnavailable:
            assert time.monotonic() < deadline, "the store never reached the promoted replica"
            await asyncio.sleep(0.2)
    assert length == 2
    loaded = await store.load_session("g1")
    assert loaded is not None and [action.text for action in loaded[1]] == ["draw", "t1-t2"]

    # The sentinels may answer "no master" for a moment more while they
    # settle on the promoted replica: a publish then is refused, as any
    # write during a failover, and tried again like the append above.
    received = asyncio.ensure_future(anext(aiter(subscription)))
    while not received.done():
        try:
            await store.publish("channel", b"after the failover")
        except StorageUnavailable:
            pass
        await asyncio.sleep(0.2)
        assert time.monotonic() < deadline, "the subscription never came back"
    assert received.result() == b"after the failover"
    await subscription.close()
