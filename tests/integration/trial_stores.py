"""The store a bench's ``kill -9`` trials run ``arena serve`` on
(``--store``), and the loop that runs them with progress on it.

``redis``: a Redis with ``appendfsync always``.  ``sqlite``: the default
store of ``arena serve``, a SQLite database in a fresh data directory
(``--data``), on which every restart of the trials opens again.
"""

from __future__ import annotations

import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Awaitable, Callable, Iterator

from tests.integration.arena_processes import ServerProcess
from tests.redis_server import RedisServer

from server.runtime.data_dir import DATABASE_FILE
from server.runtime.progress import ProgressLine
from server.storage.sqlite import SQLITE_SCHEME

STORES = ("redis", "sqlite")

Trial = Callable[[ServerProcess, str, int], Awaitable[str]]
"""One trial on the running server, its store's URL and its number (it
kills the server and starts it again); returns the progress line's text."""


@contextmanager
def trial_store(kind: str) -> Iterator[tuple[str, Path | None]]:
    """A store of the kind ``kind`` for one bench run: its URL and the data
    directory ``arena serve`` gets with it (``None`` for Redis)."""
    if kind == "redis":
        with RedisServer(persistent=True) as redis:
            yield redis.url, None
        return
    with tempfile.TemporaryDirectory() as data:
        yield f"{SQLITE_SCHEME}{Path(data) / DATABASE_FILE}", Path(data)


async def run_trials(kind: str, trials: int, trial: Trial, environment: dict[str, str] | None = None) -> None:
    """``trials`` runs of ``trial`` on one server process (restarted by each)
    on a store of the kind ``kind``, with progress and an ETA."""
    with trial_store(kind) as (store_url, data_dir), tempfile.TemporaryDirectory() as directory:
        server = ServerProcess(store_url, Path(directory), "arena", environment, data_dir)
        await server.start()
        progress = ProgressLine(every=5.0)
        try:
            for number in range(1, trials + 1):
                progress(number, trials, await trial(server, store_url, number))
        finally:
            progress.finish()
            server.kill()
