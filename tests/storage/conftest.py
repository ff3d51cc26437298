"""The contract suite's back ends: every test taking ``backend`` runs once
on the memory store and once on Redis (marked ``redis``)."""

from __future__ import annotations

from typing import AsyncIterator

import pytest

from redis_server import RedisServer
from server.storage import MemoryStore, Store
from server.storage.redis import RedisStore
from storage_backends import Backend, ManualClock


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def backend(request: pytest.FixtureRequest, redis_namespace: str) -> AsyncIterator[Backend]:
    if request.param == "memory":
        clock = ManualClock()
        chosen = Backend("memory", MemoryStore(clock=clock), clock=clock)
    else:
        server: RedisServer = request.getfixturevalue("redis_server")
        store = RedisStore(server.url, namespace=redis_namespace)
        chosen = Backend("redis", store, redis_url=server.url, namespace=redis_namespace)
    yield chosen
    await chosen.close()


@pytest.fixture
def store(backend: Backend) -> Store:
    return backend.store
