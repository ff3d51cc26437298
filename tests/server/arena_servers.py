"""Server settings and types shared by the server tests (a plain module:
test modules must not import ``conftest`` by name, several exist)."""

from __future__ import annotations

import secrets
import time
from typing import Any, Awaitable, Callable

from tests.server.arena_wire import WireClient

from server.deals.daily import DAY_MS
from server.games.lobby import hash_token
from server.runtime.entropy import SystemEntropy
from server.runtime.settings import Settings
from server.model.records import PlayerRecord
from server.storage.base import Store

ClientFactory = Callable[..., Awaitable[WireClient]]

SUITE_WORKER_NICENESS = 0
"""The suite's servers run their workers at its own priority: beside a
server's workers in a test run are the other tests (browsers, servers,
CPU burners), not players' moves, and a niced proof behind them took
minutes where it takes a second (``tests/conftest.py`` says so to every
``arena serve`` the suite starts, too)."""


def make_settings(**changes: Any) -> Settings:
    """Loopback, any free port, practice positions allowed, no keepalive
    noise, and rate limits (messages, new connections, API requests) out of the way (the
    limits tests set their own).
    Dailies are proven when first asked for, not ahead, under one secret,
    so a memory hub's prover proves each day's deal once per test process
    (``tests.server.arena_memory.PROVEN``) instead of every server start
    proving fourteen; race deals
    likewise, with no stock kept (the stock's own tests keep one);
    workers as nice as the suite (``SUITE_WORKER_NICENESS``)."""
    base: dict[str, Any] = {
        "port": 0,
        "allow_positions": True,
        "ping_interval": None,
        "shutdown_grace_seconds": 2,
        "rate_per_second": 100_000,
        "rate_burst": 100_000,
        "connection_burst": 100_000,
        "tcp_connection_burst": 100_000,
        "api_burst": 100_000,
        "reads_burst": 100_000,
        "new_games_burst": 100_000,
        "prepare_dailies": False,
        "race_deal_stock": 0,
        "daily_secret": "the tests' secret",
        "worker_niceness": SUITE_WORKER_NICENESS,
    }
    return Settings(**{**base, **changes})


async def aged_token(store: Store, name: str, days: int = 2) -> str:
    """The token of an identity created ``days`` days ago by the wall
    clock, written to the store as ``hello`` would have written it then, so
    its ranked attempts today may count publicly (``server.model.fair_play``)."""
    token = secrets.token_urlsafe(32)
    created = time.time_ns() // 1_000_000 - days * DAY_MS
    await store.create_player(PlayerRecord(SystemEntropy().new_id("p_"), name, hash_token(token), created))
    return token
