"""Redis Cluster: ``redis+cluster://`` URLs and a store on a real cluster
of three masters (``tests/redis_server.py``), whose keys spread over every
master while one store reaches them all."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio import Redis
from tests.redis_server import RedisClusterServers
from tests.storage_backends import ResumeSignal, heard_after_resume

from server.storage import UnknownStorageURL, open_store
from server.storage.redis import RedisStore
from server.storage.redis_cluster import ClusterAddress, cluster_url
from server.storage.redis_keys import RedisKeys


def test_a_cluster_url_names_its_seed_nodes_and_their_password() -> None:
    assert cluster_url("redis+cluster://10.0.0.1,10.0.0.2:7001/") == ClusterAddress(
        [("10.0.0.1", 6379), ("10.0.0.2", 7001)], None
    )
    assert cluster_url("redis+cluster://:pa%40ss@node:7000") == ClusterAddress([("node", 7000)], "pa@ss")
    assert cluster_url("redis+cluster://node:7000/0") == ClusterAddress([("node", 7000)], None)


@pytest.mark.parametrize(
    "url", ["redis+cluster:///", "redis+cluster://node:port/", "redis+cluster://node:7000/1", "redis+cluster://a/b/c"]
)
def test_a_bad_cluster_url_is_a_usage_error(url: str) -> None:
    with pytest.raises(UnknownStorageURL):
        open_store(url)


@pytest.mark.redis
async def test_one_store_reaches_every_master_of_the_cluster(
    redis_cluster: RedisClusterServers, redis_namespace: str
) -> None:
    store = open_store(redis_cluster.url, namespace=redis_namespace)
    other = open_store(redis_cluster.url, namespace=redis_namespace)
    assert isinstance(store, RedisStore)
    try:
        await store.ping()
        for number in range(30):
            await store.put_document("race", f"r{number}", {"number": number}, keep_seconds=600)
        assert [await other.get_document("race", f"r{number}") for number in range(30)] == [
            {"number": number} for number in range(30)
        ]
        masters = {redis_cluster.master_of(f"{redis_namespace}:doc:race:r{number}").port for number in range(30)}
        assert len(masters) == 3, "the keys spread over every master"
        subscription = await other.subscribe("game:g1")
        await store.publish("game:g1", b"across the cluster")
        assert await asyncio.wait_for(anext(aiter(subscription)), 5) == b"across the cluster"
        await subscription.close()
    finally:
        await store.close()
        await other.close()


@pytest.mark.redis
async def test_the_keys_one_script_touches_share_a_slot_and_a_game_shares_it_with_its_channel(
    redis_cluster: RedisClusterServers,
) -> None:
    keys = RedisKeys("arena")
    groups: dict[str, list[str | bytes]] = {
        "game": [keys.session("g_1"), keys.session("g_1", "log"), keys.session("g_1", "outbox"), keys.channel("game:g_1")],
        "race": [keys.session("r_1"), keys.session("r_1", "log"), keys.channel("race:r_1")],
        "player": [*keys.devices("p_1"), keys.record_prefix("p_1") + "klondike/draw=1"],
        "board": [keys.board("klondike/draw=1/2024-05-01"), keys.board("klondike/draw=1/2024-05-01", "entries")],
    }
    node = Redis(port=redis_cluster.nodes[0].port)
    try:
        slots: dict[str, set[int]] = {
            name: {await node.cluster("KEYSLOT", key) for key in group} for name, group in groups.items()
        }
    finally:
        await node.aclose()
    assert all(len(found) == 1 for found in slots.values()), slots
    assert len({next(iter(found)) for found in slots.values()}) == 4, "different games, players and boards spread"


async def shard_channels(cluster: RedisClusterServers, command: str) -> dict[int, list[bytes]]:
    """``PUBSUB <command>`` on every node, by port."""
    found = {}
    for node in cluster.nodes:
        client = Redis(port=node.port)
        try:
            found[node.port] = await client.execute_command("PUBSUB", command)
        finally:
            await client.aclose()
    return found


@pytest.mark.redis
async def test_a_games_channel_is_a_shard_channel_on_the_master_of_its_slot(
    redis_cluster: RedisClusterServers, redis_namespace: str
) -> None:
    store = open_store(redis_cluster.url, namespace=redis_namespace)
    try:
        subscription = await store.subscribe("game:g_7")
        channel = f"{redis_namespace}:channel:game:{{g_7}}"
        owner = redis_cluster.master_of(channel).port
        shard = await shard_channels(redis_cluster, "SHARDCHANNELS")
        plain = await shard_channels(redis_cluster, "CHANNELS")
        await subscription.close()
    finally:
        await store.close()
    assert [port for port, channels in shard.items() if channel.encode() in channels] == [owner]
    assert not any(channel.encode() in channels for channels in plain.values()), "no plain SUBSCRIBE"


@pytest.mark.redis
async def test_a_subscription_follows_its_slot_to_another_master(own_redis_cluster: RedisClusterServers) -> None:
    cluster = own_redis_cluster
    listener = open_store(cluster.url, namespace="moving")
    speaker = open_store(cluster.url, namespace="moving")
    resumed = ResumeSignal()
    try:
        subscription = await listener.subscribe("game:g_1", resumed)
        messages = aiter(subscription)
        await speaker.publish("game:g_1", b"before")
        assert await asyncio.wait_for(anext(messages), 5) == b"before"
        channel = "moving:channel:game:{g_1}"
        target = next(node for node in cluster.nodes if node is not cluster.master_of(channel))
        cluster.move_slot(channel, target)
        heard = await heard_after_resume(messages, resumed, speaker, "game:g_1", b"after", 10)
        assert heard == b"after", "heard from the new master"
        await subscription.close()
    finally:
        await listener.close()
        await speaker.close()
