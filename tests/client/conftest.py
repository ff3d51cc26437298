"""Fixtures for the client tests: a real server on a loopback port that
can go down and come back on the same port with the same store
(``arena_restart.RestartableServer``).

The server tests' helpers are reused, not copied: ``make_settings``
(``arena_servers``), the ``subprotocol`` fixture (``arena_fixtures``) and
``WireClient`` (``arena_wire``), which gives a raw, independent view of
what the server says; the race tests' helpers (``arena_races``: a pinned
daily deal and the winning line of WordLink deal 1) too.
"""

from __future__ import annotations

from typing import AsyncIterator

import pytest
from tests.server.arena_fixtures import subprotocol
from tests.client.arena_restart import RestartableServer, ServerFactory
from tests.server.arena_servers import make_settings

__all__ = ["subprotocol"]


@pytest.fixture
async def arena_factory() -> AsyncIterator[ServerFactory]:
    """Start servers with some settings changed; all stopped at the end."""
    started: list[RestartableServer] = []

    async def start(**settings: object) -> RestartableServer:
        server = RestartableServer(make_settings, **settings)
        started.append(server)
        await server.start()
        return server

    yield start
    for server in started:
        await server.stop()


@pytest.fixture
async def arena(arena_factory: ServerFactory) -> RestartableServer:
    return await arena_factory()


__all__ = ["arena", "arena_factory", "subprotocol"]
