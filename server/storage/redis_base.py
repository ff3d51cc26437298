"""The Redis store's foundation: its client, scripts and key names, and
the helpers its methods share (writes that span slots, reads of an index,
pub/sub, the store's size).  ``server.storage.redis`` has the methods and
the decisions behind them.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from redis.asyncio.cluster import RedisCluster

from server.runtime.scheduler import Scheduler

from .base import DEFAULT_RETENTION, OnResume, Retention, Skip, Store, StoreSize, Subscription
from .redis_batch import PublishBatcher, ScriptBatcher
from .redis_errors import guarded
from .redis_keys import RedisKeys, text
from .redis_pool import connection_options, redis_client
from .redis_pubsub import PubSubHub
from .redis_scripts import (
    ADD_RESULT_SCRIPT,
    ADD_DAY_SCRIPT,
    ADD_VEGAS_SCRIPT,
    APPEND_SCRIPT,
    CLAIM_SCRIPT,
    CLOSE_OUTBOX_SCRIPT,
    INDEX_SCRIPT,
    LOAD_SCRIPT,
    REPLACE_SETTING_SCRIPT,
    SETTLE_RESULT_SCRIPT,
    SUBMIT_SCRIPT,
)
from .redis_shards import ShardedPubSub

APPEND_DEADLINE_SHARE = 0.8
"""An append must run within this share of ``socket_timeout`` of its call,
so it never runs after its caller timed out (and answered storage_unavailable)."""
INDEX_PAGE = 100
HEALTH_KEY_MS = 60_000
"""How long the key ``check_writable`` writes is kept."""
Command = tuple[str | int | float, ...]
"""One Redis command and its arguments, as ``execute_command`` takes them."""


class RedisBase(Store):
    """The connection to Redis (one server, Sentinel's master or a cluster)
    and what every method of ``RedisStore`` builds on.

    ``namespace`` prefixes every key and channel, so several deployments
    (or test runs) can share one Redis.  ``socket_timeout`` bounds how long
    a command may take before the caller gets ``StorageUnavailable``;
    ``max_connections`` bounds the pool, and callers beyond it wait.
    ``retention`` says how long an unused identity is kept.  ``scheduler``
    times the pub/sub reconnections (``redis_pubsub``; the running loop's
    by default).
    """

    def __init__(
        self,
        url: str,
        *,
        namespace: str = "arena",
        socket_timeout: float = 5.0,
        connect_timeout: float = 2.0,
        max_connections: int = 64,
        retention: Retention = DEFAULT_RETENTION,
        scheduler: Scheduler | None = None,
    ) -> None:
        self.namespace = namespace
        self._keys = RedisKeys(namespace)
        self._identity_seconds = retention.identity_seconds
        self._redis, self._sentinel = redis_client(url, socket_timeout, connect_timeout, max_connections)
        self._cluster = isinstance(self._redis, RedisCluster)
        self._append = ScriptBatcher(self._redis, self._redis.register_script(APPEND_SCRIPT))
        self._append_budget_ms = round(socket_timeout * APPEND_DEADLINE_SHARE * 1000)
        self._redis_offset_ms: int | None = None
        self._add_result = self._redis.register_script(ADD_RESULT_SCRIPT)
        self._add_vegas = self._redis.register_script(ADD_VEGAS_SCRIPT)
        self._add_day = self._redis.register_script(ADD_DAY_SCRIPT)
        self._index = self._redis.register_script(INDEX_SCRIPT)
        self._load = self._redis.register_script(LOAD_SCRIPT)
        self._claim = self._redis.register_script(CLAIM_SCRIPT)
        self._settle_result = self._redis.register_script(SETTLE_RESULT_SCRIPT)
        self._close_outbox = self._redis.register_script(CLOSE_OUTBOX_SCRIPT)
        self._submit = self._redis.register_script(SUBMIT_SCRIPT)
        self._replace_setting = self._redis.register_script(REPLACE_SETTING_SCRIPT)
        self._hub: PubSubHub | ShardedPubSub
        self._publish_command = "SPUBLISH" if self._cluster else "PUBLISH"
        """How an append's announcement is published (``redis_scripts``)."""
        if isinstance(self._redis, RedisCluster):
            self._publish = PublishBatcher(self._redis, "SPUBLISH")
            options = connection_options(socket_timeout, connect_timeout)
            self._hub = ShardedPubSub(
                self._redis, confirm_timeout=socket_timeout, connection_options=options, scheduler=scheduler
            )
        else:
            self._publish = PublishBatcher(self._redis, "PUBLISH")
            self._hub = PubSubHub(self._redis, confirm_timeout=socket_timeout, scheduler=scheduler)

    def _renewal(self, player_id: str) -> list[str | int]:
        """The arguments of a player script's ``renew``: the identity's
        lifetime ('' for none) and the prefix of its record hashes."""
        seconds = self._identity_seconds
        return ["" if seconds is None else seconds, self._keys.record_prefix(player_id)]

    # ------------------------------------------------------------ life

    async def close(self) -> None:
        await self._hub.close()
        await self._redis.aclose()
        if self._sentinel is not None:
            for client in self._sentinel.sentinels:
                await client.aclose()

    @guarded
    async def ping(self) -> None:
        await self._redis.ping()

    @guarded
    async def check_writable(self) -> None:
        await self._redis.set(self._keys.health, b"1", px=HEALTH_KEY_MS)

    @guarded
    async def size(self) -> StoreSize:
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.zcard(self._keys.live)
            pipe.zcard(self._keys.outbox)
            live, outboxes = await pipe.execute()
        if isinstance(self._redis, RedisCluster):
            masters = RedisCluster.PRIMARIES
            keys = await self._redis.dbsize(target_nodes=masters)
            memory = sum(int(info["used_memory"]) for info in (await self._redis.info("memory", target_nodes=masters)).values())
        else:
            keys = await self._redis.dbsize()
            memory = int((await self._redis.info("memory"))["used_memory"])
        return StoreSize(keys=int(keys), live_games=int(live), open_finishes=int(outboxes), memory_bytes=memory)

    async def expire_due(self) -> int:
        return 0

    async def _each(self, command: str, keys: list[str]) -> list[Any]:
        """``command`` on each of ``keys``, in one pipeline without a
        transaction (on a cluster, one per node): one round trip for a
        board's hundred reads instead of a hundred."""
        if not keys:
            return []
        async with self._redis.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.execute_command(command, key)
            return list(await pipe.execute())

    def _lasting(self, key: str) -> list[Command]:
        """The command giving ``key`` an identity's lifetime, if identities expire."""
        return [] if self._identity_seconds is None else [("EXPIRE", key, self._identity_seconds)]

    async def _write(self, *groups: list[Command]) -> None:
        """Run groups of writes, each group's in one slot: on one Redis all
        in one MULTI; on a cluster each group in its own MULTI, in order, so
        a failure between two leaves the earlier ones written (callers put
        first what may stand alone)."""
        if not self._cluster:
            groups = ([command for group in groups for command in group],)
        for group in groups:
            if group:
                async with self._redis.pipeline(transaction=True) as pipe:
                    for command in group:
                        pipe.execute_command(*command)
                    await pipe.execute()

    async def _newest(
        self,
        index_key: str,
        value_key: Callable[[str], str],
        limit: int,
        accept: Callable[[dict[str, Any]], bool] = lambda value: True,
    ) -> list[dict[str, Any]]:
        """The JSON values named by ``index_key``'s members, highest score
        first, skipping (and removing from the index) members whose value
        has expired."""
        found: list[dict[str, Any]] = []
        start = 0
        while len(found) < limit:
            members = await self._redis.zrevrange(index_key, start, start + INDEX_PAGE - 1)
            if not members:
                break
            names = [text(member) for member in members]
            values = await self._each("GET", [value_key(name) for name in names])
            gone = [name for name, value in zip(names, values) if value is None]
            if gone:
                await self._redis.zrem(index_key, *gone)
            start += len(members) - len(gone)
            found += [document for document in (json.loads(value) for value in values if value) if accept(document)]
        return found[:limit]

    # ------------------------------------------------------------ pub/sub

    @guarded
    async def publish(self, channel: str, payload: bytes) -> None:
        await self._publish(self._keys.channel(channel), payload)

    @guarded
    async def subscribe(self, channel: str, on_resume: OnResume | None = None, skip: Skip | None = None) -> Subscription:
        return await self._hub.subscribe(self._keys.channel(channel), on_resume, skip)

