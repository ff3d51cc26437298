"""A store under test plus what the contract suite needs around it:
a second "process" on the same data and a way to let time pass."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis.asyncio as redis
from tests.redis_server import RedisClusterServers, RedisServer

from server.storage import MemoryStore, Retention, SqliteStore, Store
from server.storage.base import DEFAULT_RETENTION
from server.storage.redis import RedisStore

REDIS_FIXTURES = {"redis": "redis_server", "cluster": "redis_cluster"}
BACKENDS = ["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis), pytest.param("cluster", marks=pytest.mark.redis)]
"""Every back end a contract runs on, as fixture parameters."""


class ResumeSignal:
    """An ``on_resume`` a test can wait for (``await signal.event.wait()``)."""

    def __init__(self) -> None:
        self.event = asyncio.Event()

    async def __call__(self) -> None:
        self.event.set()


async def heard_after_resume(
    messages: AsyncIterator[bytes], resumed: ResumeSignal, publisher: Store, channel: str, payload: bytes, seconds: float
) -> bytes:
    """Iterate a subscription (its ``on_resume`` runs inside the iteration)
    until it resumed, then publish ``payload`` and return what it hears next."""
    delivery = asyncio.ensure_future(anext(messages))
    await asyncio.wait_for(resumed.event.wait(), seconds)
    await publisher.publish(channel, payload)
    return await asyncio.wait_for(delivery, seconds)


class ManualClock:
    """A clock moved by the test instead of waiting: ``now`` in seconds
    (a monotonic clock), ``ms`` the memory store's clock."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now

    def ms(self) -> int:
        return round(self.now * 1000)


CONNECT_TIMEOUT_SECONDS = 10.0
"""How long the contract's Redis stores wait for a connection: a bound
against a hang, not the server's 2 s, which a test opening thirty
connections to a Cluster at once overran on a loaded machine."""


@dataclass
class Backend:
    """A store under test and the means to act like a second process.

    ``peer()`` is another handle on the same data: for Redis a second
    ``RedisStore`` with its own connections, as another server process
    would have; the memory and SQLite stores have no other process (one
    process per database), so it is itself.  ``advance(seconds)`` lets
    time pass for expiry: the memory and SQLite stores' clock jumps,
    Redis really waits (keep expiry tests at 1 s).
    """

    name: str
    store: Store
    redis_url: str | None = None
    namespace: str = "arena"
    clock: ManualClock | None = None
    retention: Retention = DEFAULT_RETENTION
    _peers: list[Store] = field(default_factory=list)

    def peer(self) -> Store:
        if self.redis_url is None:
            return self.store
        peer = RedisStore(
            self.redis_url, namespace=self.namespace, retention=self.retention, connect_timeout=CONNECT_TIMEOUT_SECONDS
        )
        self._peers.append(peer)
        return peer

    async def advance(self, seconds: float) -> None:
        if self.clock is not None:
            self.clock.now += seconds
        else:
            await asyncio.sleep(seconds)

    async def close(self) -> None:
        for store in [*self._peers, self.store]:
            await store.close()


def open_backend(
    name: str, request: pytest.FixtureRequest, namespace: str, retention: Retention = DEFAULT_RETENTION
) -> Backend:
    """The back end ``name`` ("memory", "sqlite": a database in the test's
    temporary directory, "redis": the shared Redis of the run, or
    "cluster": its shared Redis Cluster, each under its own ``namespace``)
    keeping identities as ``retention`` says."""
    if name in ("memory", "sqlite"):
        clock = ManualClock()
        store: Store
        if name == "memory":
            store = MemoryStore(clock=clock.ms, retention=retention)
        else:
            folder: Path = request.getfixturevalue("tmp_path")
            store = SqliteStore(folder / f"{namespace}.db", clock=clock.ms, retention=retention)
        return Backend(name, store, clock=clock, retention=retention)
    server: RedisServer | RedisClusterServers = request.getfixturevalue(REDIS_FIXTURES[name])
    store = RedisStore(server.url, namespace=namespace, retention=retention, connect_timeout=CONNECT_TIMEOUT_SECONDS)
    return Backend(name, store, redis_url=server.url, namespace=namespace, retention=retention)


async def wipe_namespace(url: str, namespace: str) -> None:
    """What a FLUSHALL does to one deployment's keys, leaving other tests' alone."""
    client = redis.Redis.from_url(url)
    try:
        keys = [key async for key in client.scan_iter(match=f"{namespace}:*")]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


async def on_connection(store: SqliteStore, statement: str) -> None:
    """Run ``statement`` on the SQLite store's own connection, in its thread:
    a pragma that makes SQLite refuse writes as a read-only file
    (``query_only``) or a full disk (``max_page_count``) would, where the
    file's mode cannot (a test run as root writes whatever the mode)."""
    await store._writer.run(lambda db, now: db.execute(statement))


SERVE_ENVIRONMENT = {"ARENA_PREPARE_DAILIES": "false", "ARENA_PING_INTERVAL": "none", "ARENA_RACE_DEAL_STOCK": "0"}
"""``arena serve`` for a test: no proofs ahead, no keepalive noise."""


def serve_on_sqlite(database: Path, data: Path) -> list[str]:
    """The command of ``arena serve`` on the SQLite database ``database``,
    any free port, keeping its daily files in ``data``."""
    return [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--store", f"sqlite://{database}",
            "--data", str(data)]
