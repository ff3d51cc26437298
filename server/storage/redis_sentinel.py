"""Redis Sentinel addresses: ``redis+sentinel://`` URLs and a blocking pool.

The URL names every sentinel and the service they watch, so one setting
(``ARENA_REDIS_URL``) reaches a highly available Redis::

    redis+sentinel://[:PASSWORD@]HOST[:PORT][,HOST[:PORT]...]/SERVICE[/DB]

``PORT`` defaults to 26379, Sentinel's own; ``PASSWORD`` is the Redis
master's (sentinels here take none); ``DB`` defaults to 0 (the URL's
form: ``server.storage.redis_urls``).
"""

from __future__ import annotations

from typing import NamedTuple

from redis.asyncio import BlockingConnectionPool
from redis.asyncio.sentinel import SentinelConnectionPool

from .redis_urls import hosts_url, without_password

SENTINEL_SCHEME = "redis+sentinel://"
SENTINEL_PORT = 26379


class SentinelAddress(NamedTuple):
    sentinels: list[tuple[str, int]]
    service: str
    db: int
    password: str | None


def sentinel_url(url: str) -> SentinelAddress:
    """Read a ``redis+sentinel://`` URL; ``ValueError`` names what is wrong."""
    form = f"a Sentinel URL is {SENTINEL_SCHEME}HOST[:PORT][,HOST[:PORT]...]/SERVICE[/DB]"
    sentinels, password, parts = hosts_url(url, SENTINEL_SCHEME, SENTINEL_PORT, form)
    if not parts or len(parts) > 2:
        raise ValueError(f"{form}: {without_password(url)!r}")
    if len(parts) == 2 and not parts[1].isdigit():
        raise ValueError(f"the database in {without_password(url)!r} must be a number")
    return SentinelAddress(sentinels, parts[0], int(parts[1]) if len(parts) == 2 else 0, password)


class BlockingSentinelPool(SentinelConnectionPool, BlockingConnectionPool):
    """Sentinel's master discovery with the blocking pool's waiting: a
    caller beyond ``max_connections`` waits for a connection (up to
    ``timeout``) instead of failing, as with a plain Redis URL."""
