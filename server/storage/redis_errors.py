"""Which redis-py failures mean "Redis cannot do this now", and their translation.

The server must answer ``storage_unavailable`` (and acknowledge nothing)
whenever Redis cannot be reached, whatever the cause: refused connection,
a connection closed mid-command, a timeout, or a server still loading its
data (redis-py's ``BusyLoadingError`` is a ``ConnectionError``), or, on a
cluster, a slot without a master (during a failover).

It must too when Redis answers with an error instead of doing what was
asked (``StorageRefused``): out of memory under ``noeviction`` (``OOM``),
a replica that takes no writes (``READONLY``), a failing disk
(``MISCONF``), a transaction aborted by one of these (``EXECABORT``), a
script Redis refused to run, or any other error reply.  None of these
writes anything: Redis refuses a command (in a ``MULTI``, the whole
transaction) before running it, and a script that was allowed to start
is allowed to finish.  A client can do nothing about any of them but try
later, so an error reply is never an ``internal_error``: the operator
sees it in ``/healthz``, one log line per episode and a metric
(``server.storage.health``).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Coroutine, ParamSpec, TypeVar

from redis.exceptions import (
    ClusterDownError,
    ExecAbortError,
    NoPermissionError,
    OutOfMemoryError,
    ReadOnlyError,
    ResponseError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .base import StorageRefused, StorageUnavailable

REDIS_DOWN: tuple[type[BaseException], ...] = (
    RedisConnectionError, RedisTimeoutError, OSError, ClusterDownError, SlotNotCoveredError
)

P = ParamSpec("P")
R = TypeVar("R")


def unavailable(error: BaseException) -> StorageUnavailable:
    if isinstance(error, StorageUnavailable):
        return error
    return StorageUnavailable(f"Redis is unavailable: {error}")


PIPELINE_NOTE = "of pipeline caused error: "
REPLY_CODES: tuple[tuple[type[ResponseError], str], ...] = (
    (OutOfMemoryError, "OOM"),
    (ReadOnlyError, "READONLY"),
    (ExecAbortError, "EXECABORT"),
    (NoPermissionError, "NOPERM"),
    (TryAgainError, "TRYAGAIN"),
)
"""The error codes redis-py strips from a reply's message and names by
its exception class instead; the others stay the message's first word."""


def refused(error: ResponseError) -> StorageRefused:
    """An error reply as ``StorageRefused``, its code (``OOM``,
    ``READONLY``, ``MISCONF`` ...; ``ERR`` for a plain error) as the reason."""
    message = str(error)
    reason = next((code for kind, code in REPLY_CODES if isinstance(error, kind)), None)
    if reason is None:
        # redis-py prefixes the reply of a pipeline's command with where it was.
        reply = message.rpartition(PIPELINE_NOTE)[2].lstrip("(\"' ")
        first = reply.split(" ", 1)[0]
        reason = first if first.isupper() and first.isalpha() else "ERR"
    return StorageRefused(reason, f"Redis refused ({reason}): {message}")


def guarded(method: Callable[P, Coroutine[Any, Any, R]]) -> Callable[P, Coroutine[Any, Any, R]]:
    """Turn the failures in ``REDIS_DOWN`` into ``StorageUnavailable``, and
    every error reply into ``StorageRefused``."""

    @functools.wraps(method)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await method(*args, **kwargs)
        except REDIS_DOWN as exc:
            raise unavailable(exc) from exc
        except ResponseError as exc:
            raise refused(exc) from exc

    return wrapper
