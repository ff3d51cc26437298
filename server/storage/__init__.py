"""Storage back ends behind one interface (``base.Store``).

``open_store`` picks the back end from a URL; it is the one store
factory (the server calls it with ``Settings.redis_url``).  The Redis
module is imported only when a Redis URL is given, so the default
in-memory server never loads redis-py.

It may import ``server.model`` and ``server.runtime`` (docs/architecture.md,
"The server's folders").
"""

from __future__ import annotations

from .base import (
    DEFAULT_RETENTION,
    AppendRefused,
    LogConflict,
    OnResume,
    Retention,
    StorageError,
    StorageRefused,
    StorageUnavailable,
    Store,
    StoreSize,
    Subscription,
    board_score,
)
from .memory import MemoryStore
from server.runtime.clock import Clock, wall_clock_ms
from server.runtime.scheduler import Scheduler
from .redis_urls import without_password
from .sqlite import SQLITE_SCHEME, SqliteStore, sqlite_path

REDIS_SCHEMES = ("redis://", "rediss://", "unix://", "redis+sentinel://", "redis+cluster://")
MEMORY_URL = "memory://"


class UnknownStorageURL(ValueError):
    """The storage URL names no back end we have (a usage error)."""


def open_store(
    url: str | None = None, *, namespace: str = "arena", retention: Retention = DEFAULT_RETENTION,
    clock: Clock = wall_clock_ms, scheduler: Scheduler | None = None,
) -> Store:
    """The store for ``url``: ``None`` or ``memory://`` for the in-memory
    store, ``sqlite:///PATH`` for a SQLite database on this machine
    (``server.storage.sqlite``), ``redis://``, ``rediss://`` (TLS) or ``unix://`` for Redis,
    ``redis+sentinel://`` for a Redis that Sentinel watches
    (``server.storage.redis_sentinel``), ``redis+cluster://`` for a Redis
    Cluster (``server.storage.redis_cluster``).

    Raises ``UnknownStorageURL`` (a ``ValueError``) for any other URL, or
    one of these schemes that does not parse.  Connecting is lazy: a Redis
    store that cannot reach its server fails on first use, with
    ``StorageUnavailable`` (call ``ping`` to check at start-up).
    ``retention``: how long the store keeps an unused identity;
    ``clock``: the memory and SQLite stores' time (Redis keeps its own);
    ``scheduler``: what times a Redis store's reconnect pauses.
    """
    if url is None or url == MEMORY_URL:
        return MemoryStore(clock, retention)
    if url.startswith(SQLITE_SCHEME):
        try:
            path = sqlite_path(url)
        except ValueError as error:
            raise UnknownStorageURL(f"bad storage URL {url!r}: {error}") from None
        return SqliteStore(path, clock=clock, retention=retention)
    if url.startswith(REDIS_SCHEMES):
        from .redis import RedisStore

        try:
            return RedisStore(url, namespace=namespace, retention=retention, scheduler=scheduler)
        except ValueError as error:
            raise UnknownStorageURL(f"bad storage URL {without_password(url)!r}: {error}") from None
    schemes = ", ".join((MEMORY_URL, SQLITE_SCHEME, *REDIS_SCHEMES))
    raise UnknownStorageURL(f"unknown storage URL {without_password(url)!r}: expected one of {schemes}")


__all__ = [
    "MEMORY_URL",
    "SQLITE_SCHEME",
    "AppendRefused",
    "LogConflict",
    "MemoryStore",
    "OnResume",
    "Retention",
    "SqliteStore",
    "StorageError",
    "StorageRefused",
    "StorageUnavailable",
    "Store",
    "StoreSize",
    "Subscription",
    "UnknownStorageURL",
    "board_score",
    "open_store",
]
