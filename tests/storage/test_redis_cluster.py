"""Redis Cluster: ``redis+cluster://`` URLs and a store on a real cluster
of three masters (``tests/redis_server.py``), whose keys spread over every
master while one store reaches them all."""

from __future__ import annotations

import asyncio

import pytest
from redis_server import RedisClusterServers

from server.storage import UnknownStorageURL, open_store
from server.storage.redis import RedisStore
from server.storage.redis_cluster import ClusterAddress, cluster_url


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
