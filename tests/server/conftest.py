"""Fixtures: a real server on a free loopback port, real clients."""

from __future__ import annotations

from typing import AsyncIterator, Awaitable, Callable

import pytest

from arena_wire import WireClient
from protocol import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL
from server.app import ArenaServer
from server.settings import Settings
from server.storage.memory import MemoryStore

SUBPROTOCOL_CHOICES = (JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL)


def make_settings(**changes: object) -> Settings:
    """Loopback, any free port, practice positions allowed, no keepalive
    noise, and rate limits out of the way (the limits tests set their own)."""
    base: dict[str, object] = {
        "port": 0,
        "allow_positions": True,
        "ping_interval": None,
        "shutdown_grace_seconds": 2,
        "rate_per_second": 100_000,
        "rate_burst": 100_000,
    }
    return Settings(**{**base, **changes})


@pytest.fixture
async def server() -> AsyncIterator[ArenaServer]:
    async with ArenaServer(make_settings(), store=MemoryStore()) as running:
        yield running


@pytest.fixture(params=SUBPROTOCOL_CHOICES)
def subprotocol(request: pytest.FixtureRequest) -> str:
    return str(request.param)


ClientFactory = Callable[..., Awaitable[WireClient]]


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
