"""Which redis-py failures mean "Redis is unreachable", and their translation.

The server must answer ``storage_unavailable`` (and acknowledge nothing)
whenever Redis cannot be reached, whatever the cause: refused connection,
a connection closed mid-command, a timeout, or a server still loading its
data (redis-py's ``BusyLoadingError`` is a ``ConnectionError``), or, on a
cluster, a slot without a master (during a failover).  Other
Redis errors are programming errors and propagate unchanged.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Coroutine, ParamSpec, TypeVar

from redis.exceptions import ClusterDownError, SlotNotCoveredError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .base import StorageUnavailable

REDIS_DOWN: tuple[type[BaseException], ...] = (
    RedisConnectionError, RedisTimeoutError, OSError, ClusterDownError, SlotNotCoveredError
)

P = ParamSpec("P")
R = TypeVar("R")


def unavailable(error: BaseException) -> StorageUnavailable:
    if isinstance(error, StorageUnavailable):
        return error
    return StorageUnavailable(f"Redis is unavailable: {error}")


def guarded(method: Callable[P, Coroutine[Any, Any, R]]) -> Callable[P, Coroutine[Any, Any, R]]:
    """Turn the failures in ``REDIS_DOWN`` into ``StorageUnavailable``."""

    @functools.wraps(method)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await method(*args, **kwargs)
        except REDIS_DOWN as exc:
            raise unavailable(exc) from exc

    return wrapper
