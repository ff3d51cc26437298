"""Fixtures: a real server on a free loopback port, real clients.

A plain module, imported by the conftest files that want these fixtures
(pytest registers every ``conftest.py`` under the one name ``conftest``,
so a conftest cannot be imported from another directory reliably)."""

from __future__ import annotations

from typing import AsyncIterator

import pytest
from tests.server.arena_servers import ClientFactory, make_settings
from tests.server.arena_wire import WireClient

from protocol import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL
from server.transport.app import ArenaServer
from server.storage.memory import MemoryStore

SUBPROTOCOL_CHOICES = (JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL)


@pytest.fixture
async def server() -> AsyncIterator[ArenaServer]:
    async with ArenaServer(make_settings(), store=MemoryStore()) as running:
        yield running


@pytest.fixture(params=SUBPROTOCOL_CHOICES)
def subprotocol(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def connect(server: ArenaServer) -> AsyncIterator[ClientFactory]:
    """Open clients to ``server`` (closed after the test)."""
    opened: list[WireClient] = []

    async def open_client(subprotocol: str | None = MSGPACK_SUBPROTOCOL, **options: object) -> WireClient:
        client = await WireClient.open(server.url, subprotocol, **options)
        opened.append(client)
        return client

    yield open_client
    for client in opened:
        await client.close()
