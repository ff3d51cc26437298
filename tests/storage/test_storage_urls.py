"""Storage URLs: which back end each names, and a clear error for a bad
one (``arena serve`` prints it as a usage error instead of a traceback).
No Redis is needed: nothing connects until first use."""

from __future__ import annotations

import pytest

from server.storage import MemoryStore, UnknownStorageURL, open_store
from server.storage.redis import RedisStore
from server.storage.redis_cluster import ClusterAddress, cluster_url
from server.storage.redis_sentinel import SentinelAddress, sentinel_url

BAD_SENTINEL_URLS = (
    "redis+sentinel://host:port/arena",
    "redis+sentinel://host/",
    "redis+sentinel:///arena",
    "redis+sentinel://host/arena/zero",
    "redis+sentinel://host/arena/0/extra",
    "redis+sentinel://[::1/arena",
    "redis+sentinel://[::1]x/arena",
    "redis+sentinel://[::1]:/arena",
    "redis+sentinel://[]:26379/arena",
    "redis+sentinel://[::1]:65536/arena",
)


def test_a_sentinel_url_names_the_sentinels_the_service_and_the_database() -> None:
    assert sentinel_url("redis+sentinel://10.0.0.1,10.0.0.2:26380/arena") == SentinelAddress(
        [("10.0.0.1", 26379), ("10.0.0.2", 26380)], "arena", 0, None
    )
    assert sentinel_url("redis+sentinel://:pa%40ss@sentinel:5000/games/2") == SentinelAddress(
        [("sentinel", 5000)], "games", 2, "pa@ss"
    )
    for wrong in (
        "redis+sentinel://host:port/arena",
        "redis+sentinel://host/",
        "redis+sentinel:///arena",
        "redis+sentinel://host/arena/zero",
        "redis+sentinel://host/arena/0/extra",
    ):
        with pytest.raises(ValueError):
            sentinel_url(wrong)


def test_an_ipv6_host_keeps_its_port_in_brackets() -> None:
    assert sentinel_url("redis+sentinel://[::1]:26380,[fe80::2],10.0.0.3:26381/arena") == SentinelAddress(
        [("::1", 26380), ("fe80::2", 26379), ("10.0.0.3", 26381)], "arena", 0, None
    )
    assert cluster_url("redis+cluster://:pw@[::1]:7001,[::1]:7002/") == ClusterAddress(
        [("::1", 7001), ("::1", 7002)], "pw"
    )
    assert cluster_url("redis+cluster://::1/") == ClusterAddress([("::1", 6379)], None), "unbracketed: all host"


async def test_open_store_picks_the_back_end_by_scheme() -> None:
    assert isinstance(open_store(None), MemoryStore) and isinstance(open_store("memory://"), MemoryStore)
    for url in ("redis://127.0.0.1:1/0", "redis+sentinel://127.0.0.1:1/arena"):
        store = open_store(url)
        assert isinstance(store, RedisStore)
        await store.close()


@pytest.mark.parametrize("url", ["postgres://db/arena", "redis://host:port/0", *BAD_SENTINEL_URLS])
def test_a_bad_storage_url_is_a_usage_error(url: str) -> None:
    with pytest.raises(UnknownStorageURL):
        open_store(url)


@pytest.mark.parametrize("url", [
    "redis+sentinel://:s3cret@host:port/arena",
    "redis+cluster://user:s3cret@host:port/",
    "redis+sentinel://:s3cret@host:1/a/b/c",
    "redis+sentinel://:s3cret@host:1/arena/zero",
    "redis+cluster://:s3cret@host:1/5",
])
def test_a_bad_url_s_error_does_not_print_its_password(url: str) -> None:
    with pytest.raises(UnknownStorageURL) as refused:
        open_store(url)
    assert "s3cret" not in str(refused.value) and "***@host:" in str(refused.value)
