"""Sharded pub/sub on a Redis Cluster: a game's messages cross only its shard.

Plain ``PUBLISH`` on a cluster is forwarded to every node, so every
message of every game would cross the whole cluster bus.  A shard channel
(``SPUBLISH``/``SSUBSCRIBE``, Redis 7) lives on the master of its slot
only, and a game's channel carries the game's hash tag, so it lives with
the game's keys (``redis_keys``).

A subscriber must then listen on the master of each channel's slot: one
``PubSubHub`` per master, each on its own connection to that master, and
this router in front of them, which knows which hub carries each
channel.  When a hub's master stops serving a channel (the slot moved:
Redis drops the subscription; the master died: the connection fails;
MOVED), the router asks the cluster for its map again and moves each of
that hub's channels whose slot another master serves now to that master's
hub, whose confirmation delivers ``RESUMED`` to the subscriptions (their
``on_resume`` reloads what was missed).  Until the cluster has promoted a
replica, the map still names the dead master and its hub keeps
reconnecting, asking again after each failure.
"""

from __future__ import annotations

import asyncio
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.exceptions import RedisClusterException

from server.runtime.scheduler import Scheduler

from .base import OnResume, Skip, StorageUnavailable
from .redis_errors import REDIS_DOWN, unavailable
from .redis_pubsub import ListenerQueue, PubSubHub, RedisSubscription

NODE_OPTIONS = (
    "host", "port", "username", "password", "socket_timeout", "socket_connect_timeout", "socket_keepalive",
    "socket_keepalive_options",
)
"""What a master's own connection takes from the cluster client's for it."""
MAP_FAILED: tuple[type[BaseException], ...] = (RedisClusterException, *REDIS_DOWN)


class ShardedPubSub:
    """The subscriber side of a store on a cluster; see the module docstring."""

    def __init__(
        self,
        cluster: RedisCluster,
        *,
        confirm_timeout: float,
        connection_options: dict[str, Any],
        scheduler: Scheduler | None = None,
    ) -> None:
        self._cluster = cluster
        self._scheduler = scheduler
        self._confirm_timeout = confirm_timeout
        self._options = connection_options
        self._hubs: dict[str, PubSubHub] = {}
        self._clients: list[Redis] = []
        self._carrier: dict[bytes, PubSubHub] = {}
        self._moving = asyncio.Lock()
        self._closed = False

    async def subscribe(self, channel: bytes, on_resume: OnResume | None = None, skip: Skip | None = None) -> RedisSubscription:
        async with self._moving:
            if self._closed:
                raise StorageUnavailable("the store is closed")
            try:
                await self._cluster.initialize()
            except MAP_FAILED as error:
                raise unavailable(error) from error
            hub = self._carrier.get(channel) or self._master_hub(channel)
            self._carrier[channel] = hub
        return await hub.subscribe(channel, on_resume, skip)

    async def remove(self, channel: bytes, queue: ListenerQueue) -> None:
        hub = self._carrier.get(channel)
        if hub is not None:
            await hub.remove(channel, queue)
            if channel not in hub.channels():
                self._carrier.pop(channel, None)

    async def close(self) -> None:
        async with self._moving:
            self._closed = True
            for hub in self._hubs.values():
                await hub.close()
            for client in self._clients:
                await client.aclose()

    def _master_hub(self, channel: bytes) -> PubSubHub:
        """The hub on the master that serves ``channel``'s slot, by the map known now."""
        node = self._cluster.get_node_from_key(channel.decode())
        if node is None:
            raise StorageUnavailable(f"no master serves the slot of {channel!r}")
        return self._hub(node)

    def _hub(self, node: ClusterNode) -> PubSubHub:
        hub = self._hubs.get(node.name)
        if hub is None:
            options = {name: node.connection_kwargs[name] for name in NODE_OPTIONS if name in node.connection_kwargs}
            client = Redis(**{**self._options, **options})
            self._clients.append(client)
            hub = self._hubs[node.name] = PubSubHub(
                client,
                confirm_timeout=self._confirm_timeout,
                sharded=True,
                on_lost=self._lost,
                remove=self.remove,
                scheduler=self._scheduler,
            )
        return hub

    async def _lost(self, hub: PubSubHub) -> None:
        """Move ``hub``'s channels to the masters that serve their slots now."""
        async with self._moving:
            if self._closed:
                return
            try:
                await self._cluster.nodes_manager.initialize()
            except MAP_FAILED:
                return  # no map now: the hub asks again after its next failure
            for channel in hub.channels():
                try:
                    owner = self._master_hub(channel)
                except StorageUnavailable:
                    continue  # the slot has no master yet: ask again after the next failure
                if owner is not hub:
                    self._carrier[channel] = owner
                    await owner.adopt(channel, await hub.detach(channel))
