"""Redis Cluster addresses: ``redis+cluster://`` URLs and the cluster client.

The URL names some of the cluster's nodes (any will do: the client learns
the others and the slot map from them)::

    redis+cluster://[:PASSWORD@]HOST[:PORT][,HOST[:PORT]...]/

``PORT`` defaults to 6379.  A cluster has only database 0, so the path is
empty.  The client is redis-py's ``redis.asyncio.cluster.RedisCluster``: it
sends each command to the master of its key's slot and follows ``MOVED``
and ``ASK`` redirections (a command Redis answered with a redirection did
not run, so following it is no retry).  A command whose connection failed
is not retried (``Retry(NoBackoff(), 0)``, as for a single Redis: it may
have run); the client reloads the slot map before its next command, which
is how it finds a replica promoted after a failover.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from redis.asyncio.cluster import ClusterNode, ClusterPipeline, RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisClusterException
from redis.exceptions import TimeoutError as RedisTimeoutError

from .redis_urls import hosts_url, without_password

NODE_LOST = (RedisConnectionError, RedisTimeoutError)
CLUSTER_SCHEME = "redis+cluster://"
CLUSTER_PORT = 6379
CONNECTIONS_PER_NODE = 256
"""The cluster client's pool per node is not blocking: beyond it a command
fails at once (``MaxConnectionsError``) instead of waiting, so it is set
well above what one process's batched appends and publishes use."""


class ClusterAddress(NamedTuple):
    nodes: list[tuple[str, int]]
    password: str | None


def cluster_url(url: str) -> ClusterAddress:
    """Read a ``redis+cluster://`` URL; ``ValueError`` names what is wrong."""
    form = f"a Cluster URL is {CLUSTER_SCHEME}HOST[:PORT][,HOST[:PORT]...]/"
    nodes, password, path = hosts_url(url, CLUSTER_SCHEME, CLUSTER_PORT, form)
    if path not in ([], ["0"]):
        raise ValueError(f"{form}: {without_password(url)!r} (a cluster has database 0 only)")
    return ClusterAddress(nodes, password)


class MappedFirstCluster(RedisCluster):
    """``RedisCluster`` that learns the cluster's map before each command
    needs it, and again after a pipeline lost a node.  With redis-py 8.1's
    own, commands that arrive while a fresh client (or one that lost a
    node) maps the cluster may fail with "Connection closed by server"
    (redis-py retries them by default; with no retries they would reach
    players as ``storage_unavailable``), and a pipeline whose node died
    leaves the old map in place, so every later append would go to the
    dead master even after its replica took over."""

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        if self._initialize:
            await self.initialize()
        return await super().execute_command(*args, **kwargs)

    def pipeline(self, transaction: Any | None = None, shard_hint: Any | None = None) -> ClusterPipeline:
        if shard_hint:
            raise RedisClusterException("shard_hint is not supported by a cluster pipeline")
        # redis-py declares ClusterPipeline's _event_dispatcher abstract and sets it in __init__.
        return RemappingPipeline(self, transaction)  # type: ignore[abstract]


class RemappingPipeline(ClusterPipeline):
    """A cluster pipeline after which a lost node makes the client map the
    cluster again (the failures come raised, or as results with
    ``raise_on_error=False``)."""

    async def execute(self, raise_on_error: bool = True, allow_redirections: bool = True) -> list[Any]:
        try:
            results: list[Any] = await super().execute(raise_on_error, allow_redirections)
        except NODE_LOST:
            self.cluster_client._initialize = True
            raise
        if any(isinstance(result, NODE_LOST) for result in results):
            self.cluster_client._initialize = True
        return results


def cluster_client(url: str, connection_options: dict[str, Any]) -> RedisCluster:
    """The cluster client for ``url``, with the options every connection of
    the store gets (``redis_pool``)."""
    address = cluster_url(url)
    return MappedFirstCluster(
        startup_nodes=[ClusterNode(host, port) for host, port in address.nodes],
        password=address.password,
        max_connections=CONNECTIONS_PER_NODE,
        **connection_options,
    )
