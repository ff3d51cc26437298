"""The Redis store's client: one place for how every connection to Redis
is made (timeouts, keepalive, no retries), whether the URL names the
master, the sentinels that watch it, or the nodes of a cluster."""

from __future__ import annotations

import socket
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import NoBackoff
from redis.maint_notifications import MaintNotificationsConfig

from .redis_cluster import CLUSTER_SCHEME, cluster_client
from .redis_sentinel import SENTINEL_SCHEME, BlockingSentinelPool, sentinel_url

RedisClient = Redis | RedisCluster
"""Either client: they share the command API the store uses."""

# A silently dead peer (no FIN, e.g. a lost network) is noticed by the
# kernel within about 20 s instead of the default two hours, which matters
# most to the pub/sub connection, idle while it waits for messages.
KEEPALIVE_OPTIONS = {
    option: value
    for name, value in (("TCP_KEEPIDLE", 10), ("TCP_KEEPINTVL", 5), ("TCP_KEEPCNT", 2))
    if (option := getattr(socket, name, None)) is not None
}


def connection_options(socket_timeout: float, connect_timeout: float) -> dict[str, Any]:
    """How every connection to Redis is made."""
    return {
        "socket_timeout": socket_timeout,
        "socket_connect_timeout": connect_timeout,
        "socket_keepalive": True,
        "socket_keepalive_options": KEEPALIVE_OPTIONS,
        "retry": Retry(NoBackoff(), 0),
        # With maintenance notifications on ("auto" by default) redis-py
        # hands out pooled connections without checking them, and the
        # first command after a Redis restart would fail.
        "maint_notifications_config": MaintNotificationsConfig(enabled=False),
        "decode_responses": False,
    }


def redis_client(
    url: str, socket_timeout: float, connect_timeout: float, max_connections: int
) -> tuple[RedisClient, Sentinel | None]:
    """The client for ``url``, and the sentinels it asks (a
    ``redis+sentinel://`` URL), which the store closes with it."""
    options = connection_options(socket_timeout, connect_timeout)
    if url.startswith(CLUSTER_SCHEME):
        return cluster_client(url, options), None
    if not url.startswith(SENTINEL_SCHEME):
        pool = BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=socket_timeout, **options)
        return Redis.from_pool(pool), None
    address = sentinel_url(url)
    sentinels = Sentinel(
        address.sentinels,
        sentinel_kwargs={"socket_timeout": socket_timeout, "socket_connect_timeout": connect_timeout},
    )
    sentinel_pool = BlockingSentinelPool(
        address.service,
        sentinels,
        max_connections=max_connections,
        timeout=socket_timeout,
        db=address.db,
        password=address.password,
        **options,
    )
    return Redis.from_pool(sentinel_pool), sentinels
