"""What a test reads of the store of an ``arena serve`` process: a Redis
through a store of the test's own, a SQLite database through a read-only
connection beside the server that holds it (the database's lock leaves it
open to readers: ``server/storage/sqlite_lock.py``).
"""

from __future__ import annotations

import sqlite3
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import AsyncIterator, Protocol

from server.model.records import Action, DayResult, LeaderEntry, Record, SessionHeader
from server.storage.redis import RedisStore
from server.storage.sqlite import SQLITE_SCHEME, sqlite_path
from server.storage.sqlite_tables import Tables

class StoredState(Protocol):
    """The reads a trial makes of the store after the restart."""

    async def load_session(self, game_id: str) -> tuple[SessionHeader, list[Action]] | None: ...
    async def records(self, player_id: str) -> dict[str, Record]: ...
    async def days(self, player_id: str) -> list[DayResult]: ...
    async def rank(self, board: str, player_id: str) -> LeaderEntry | None: ...
    async def get_setting(self, name: str) -> str | None: ...
    async def close(self) -> None: ...


class SqliteReads:
    """A SQLite database as the trial reads it, while its server runs."""

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)

    def _tables(self) -> Tables:
        return Tables(self._db, time.time(), None)

    async def load_session(self, game_id: str) -> tuple[SessionHeader, list[Action]] | None:
        return self._tables().load_session(game_id)

    async def records(self, player_id: str) -> dict[str, Record]:
        return self._tables().records(player_id)

    async def days(self, player_id: str) -> list[DayResult]:
        return self._tables().days(player_id)

    async def rank(self, board: str, player_id: str) -> LeaderEntry | None:
        return self._tables().rank(board, player_id)

    async def get_setting(self, name: str) -> str | None:
        return self._tables().get_setting(name)

    async def close(self) -> None:
        self._db.close()


@asynccontextmanager
async def reading(store_url: str) -> AsyncIterator[StoredState]:
    """The store at ``store_url`` (Redis or SQLite), for reads."""
    store: StoredState = (
        SqliteReads(sqlite_path(store_url)) if store_url.startswith(SQLITE_SCHEME) else RedisStore(store_url)
    )
    try:
        yield store
    finally:
        await store.close()
