"""Redis Sentinel addresses: ``redis+sentinel://`` URLs and a blocking pool.

The URL names every sentinel and the service they watch, so one setting
(``ARENA_REDIS_URL``) reaches a highly available Redis::

    redis+sentinel://[:PASSWORD@]HOST[:PORT][,HOST[:PORT]...]/SERVICE[/DB]

``PORT`` defaults to 26379, Sentinel's own; ``PASSWORD`` is the Redis
master's (sentinels here take none); ``DB`` defaults to 0.  redis-py has
no URL form for Sentinel, hence this one, in the spirit of its
``redis://`` URLs.
"""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import unquote

from redis.asyncio import BlockingConnectionPool
from redis.asyncio.sentinel import SentinelConnectionPool

SENTINEL_SCHEME = "redis+sentinel://"
SENTINEL_PORT = 26379


class SentinelAddress(NamedTuple):
    sentinels: list[tuple[str, int]]
    service: str
    db: int
    password: str | None


def sentinel_url(url: str) -> SentinelAddress:
    """Read a ``redis+sentinel://`` URL; ``ValueError`` names what is wrong."""
    if not url.startswith(SENTINEL_SCHEME):
        raise ValueError(f"not a Sentinel URL (expected {SENTINEL_SCHEME}…): {url!r}")
    rest = url[len(SENTINEL_SCHEME) :]
    hosts, _, path = rest.partition("/")
    password = None
    if "@" in hosts:
        credentials, _, hosts = hosts.rpartition("@")
        password = unquote(credentials.partition(":")[2] or credentials) or None
    sentinels = [_host_port(part) for part in hosts.split(",") if part]
    parts = [part for part in path.split("/") if part]
    if not sentinels or not parts or len(parts) > 2:
        raise ValueError(f"a Sentinel URL is {SENTINEL_SCHEME}HOST[:PORT][,HOST[:PORT]...]/SERVICE[/DB]: {url!r}")
    if len(parts) == 2 and not parts[1].isdigit():
        raise ValueError(f"the database in {url!r} must be a number")
    return SentinelAddress(sentinels, unquote(parts[0]), int(parts[1]) if len(parts) == 2 else 0, password)


def _host_port(text: str) -> tuple[str, int]:
    host, colon, port = text.rpartition(":") if text.count(":") == 1 else (text, "", "")
    if colon and not port.isdigit():
        raise ValueError(f"bad sentinel port in {text!r}")
    return (host if colon else text), (int(port) if colon else SENTINEL_PORT)


class BlockingSentinelPool(SentinelConnectionPool, BlockingConnectionPool):
    """Sentinel's master discovery with the blocking pool's waiting: a
    caller beyond ``max_connections`` waits for a connection (up to
    ``timeout``) instead of failing, as with a plain Redis URL."""
