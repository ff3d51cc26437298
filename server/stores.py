"""Opening the store the settings ask for.

The Redis back end is imported only when asked for, so the default
in-memory server does not need redis-py at import time, and a missing or
unfinished back end fails with a sentence instead of a traceback.
"""

from __future__ import annotations

import importlib

from server.settings import Settings
from server.storage.base import Store
from server.storage.memory import MemoryStore

REDIS_MODULE = "server.storage.redis"


class StoreConfigError(RuntimeError):
    """The configured store cannot be created."""


def open_store(settings: Settings) -> Store:
    """A memory store, or the Redis store when ``redis_url`` is set."""
    if settings.redis_url is None:
        return MemoryStore()
    try:
        module = importlib.import_module(REDIS_MODULE)
        store_class = module.RedisStore
    except (ImportError, AttributeError) as error:
        raise StoreConfigError(
            f"the Redis back end ({REDIS_MODULE}.RedisStore) is not available: {error}; "
            "run without --redis / ARENA_REDIS_URL to use the in-memory store"
        ) from error
    store: Store = store_class(settings.redis_url)
    return store
