"""Fixtures for the client tests: a real server on a loopback port that
can go down and come back on the same port with the same store
(``arena_restart.RestartableServer``).

The server tests' helpers are reused, not copied: ``make_settings`` and
the ``subprotocol`` fixture come from ``tests/server/conftest.py`` (loaded
under its own module name, since pytest registers every conftest as
``conftest``), and ``WireClient`` from ``tests/server/arena_wire.py`` gives
a raw, independent view of what the server says.  The race tests'
helpers (``tests/races/arena_races.py``: a pinned daily deal and the
winning line of WordLink deal 1) are imported the same way, by path.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import AsyncIterator

import pytest

SERVER_TESTS = Path(__file__).resolve().parent.parent / "server"
RACE_TESTS = SERVER_TESTS.parent / "races"


def _server_test_helpers() -> ModuleType:
    name = "server_test_conftest"
    if name not in sys.modules:
        sys.path.insert(0, str(SERVER_TESTS))
        spec = importlib.util.spec_from_file_location(name, SERVER_TESTS / "conftest.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


_helpers = _server_test_helpers()
if str(RACE_TESTS) not in sys.path:
    sys.path.insert(0, str(RACE_TESTS))
make_settings = _helpers.make_settings
subprotocol = _helpers.subprotocol

from arena_restart import RestartableServer, ServerFactory  # noqa: E402  (pytest put this directory on the path)


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
