"""A published commitment is the day's deal for good: a restart of the
memory store and a wiped Redis leave it as it was (``server.runtime.data_dir``,
``server.deals.book.DailyBook.fixed``; docs/storage.md, "A day's deal outlives
the store").

The restart is of a real ``arena serve`` process started as the README's
quick start does (no flag but a free port), its data directory the
default one under the test's own ``XDG_DATA_HOME``.  The wipe is a real
``FLUSHALL`` under two server processes sharing one Redis."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import sys
from pathlib import Path
from typing import Any, AsyncIterator

import pytest
import redis.asyncio as redis
from tests.client.arena_cli import run
from tests.client.arena_restart import REPO_ROOT
from tests.server.arena_servers import make_settings

from client import ArenaClient
from server.transport.app import ArenaServer
from server.runtime.data_dir import SECRET_FILE, default_data_dir
from server.deals.book import DAILY_SECRET_SETTING, DailyBook
from server.deals.proofs import DealProver
from server.runtime.workers import WorkerPool
from server.runtime.entropy import SystemEntropy
from server.runtime.settings import Settings
from server.storage.redis import RedisStore

START_SECONDS = 120.0
"""Bounds a hang only: a start, and the first proofs of two WordLink deals."""


class Serving:
    """``arena serve --port 0`` in a subprocess, stopped with SIGTERM."""

    def __init__(self, process: asyncio.subprocess.Process, url: str) -> None:
        self.process = process
        self.url = url

    @classmethod
    async def start(cls, **environment: str) -> Serving:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server.cli", "serve", "--memory", "--port", "0", cwd=REPO_ROOT,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "ARENA_PREPARE_DAILIES": "false", "ARENA_PING_INTERVAL": "none", **environment},
        )
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), START_SECONDS)).decode()
        assert "listening on ws://" in line, line + (await process.stderr.read()).decode()  # type: ignore[union-attr]
        return cls(process, line.removeprefix("arena: listening on ").strip())

    async def commitments(self) -> list[tuple[str, str, int]]:
        async with ArenaClient(self.url, identify=False, timeout=START_SECONDS) as client:
            info = await client.daily(None, "klondike", ready=True)
        return [(deal.variant, deal.commitment, deal.committed_ms) for deal in info.deals]

    async def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(self.process.wait(), START_SECONDS) == 0


async def _served_twice(**environment: str) -> tuple[list[tuple[str, str, int]], list[tuple[str, str, int]]]:
    first = await Serving.start(**environment)
    try:
        before = await first.commitments()
    finally:
        await first.stop()
    second = await Serving.start(**environment)
    try:
        return before, await second.commitments()
    finally:
        await second.stop()


async def test_a_restarted_memory_store_server_keeps_todays_commitments(own_data_home: Path) -> None:
    before, after = await _served_twice()
    assert len(before) == 2 and after == before, "the same commitments, fixed at the same time"

    data = default_data_dir({"XDG_DATA_HOME": str(own_data_home)})
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert stat.S_IMODE((data / SECRET_FILE).stat().st_mode) == 0o600
    kept = sorted(data.glob("daily/*/klondike/*.json"))
    assert len(kept) == 2 and all(stat.S_IMODE(path.stat().st_mode) == 0o600 for path in kept)


async def test_without_a_data_directory_a_restart_commits_anew() -> None:
    """What the data directory is for: ``ARENA_DATA_DIR=none`` keeps
    nothing, and the nonce of a record proven again is new."""
    before, after = await _served_twice(ARENA_DATA_DIR="none")
    assert [commitment for _, commitment, _ in before] != [commitment for _, commitment, _ in after]


@pytest.fixture
async def redis_url(own_redis_server: Any) -> str:
    return str(own_redis_server.url)


async def _flushall(url: str) -> None:
    client = redis.Redis.from_url(url)
    try:
        await client.flushall()
    finally:
        await client.aclose()


async def _commitments(server: ArenaServer) -> list[str]:
    async with ArenaClient(server.url, identify=False, timeout=START_SECONDS) as client:
        return [deal.commitment for deal in (await client.daily(None, "klondike", ready=True)).deals]


async def _noticed(*servers: ArenaServer) -> None:
    async with asyncio.timeout(START_SECONDS):
        while not all(server.hub.epoch.changes == 1 for server in servers):
            await asyncio.sleep(0.02)


@pytest.fixture
async def stores() -> AsyncIterator[list[RedisStore]]:
    """The Redis stores a test opens, closed at its end."""
    opened: list[RedisStore] = []
    yield opened
    for store in opened:
        await store.close()


async def test_a_flushed_redis_keeps_the_published_commitments_on_every_process(
    redis_url: str, stores: list[RedisStore]
) -> None:
    """No data directory: the processes that published the records store
    them again after the wipe, first writer wins."""
    settings = make_settings(store_epoch_check_seconds=0.05)
    stores += [RedisStore(redis_url), RedisStore(redis_url)]
    async with ArenaServer(settings, store=stores[0]) as a, ArenaServer(settings, store=stores[1]) as b:
        published = await _commitments(a)
        assert await _commitments(b) == published
        await _flushall(redis_url)
        await _noticed(a, b)
        assert await _commitments(b) == published
        assert await _commitments(a) == published


async def test_a_server_started_after_the_wipe_finds_the_commitments_in_its_data_directory(
    redis_url: str, stores: list[RedisStore], tmp_path: Path
) -> None:
    settings = make_settings(data_dir=tmp_path / "data")
    stores += [RedisStore(redis_url), RedisStore(redis_url)]
    async with ArenaServer(settings, store=stores[0]) as before_the_wipe:
        published = await _commitments(before_the_wipe)
    await _flushall(redis_url)
    async with ArenaServer(settings, store=stores[1]) as after_the_wipe:
        assert await _commitments(after_the_wipe) == published


async def test_the_secret_read_from_the_store_is_stored_again_after_a_wipe(
    redis_url: str, stores: list[RedisStore]
) -> None:
    """With neither ``daily_secret`` nor a data directory the store keeps
    the secret; a process offers back the one it read, so the days not yet
    proven keep their seeds."""
    settings = Settings(daily_secret=None, data_dir=None)
    stores.append(RedisStore(redis_url))
    book = DailyBook(stores[0], settings, DealProver(WorkerPool.sized(settings), settings.deal_proof_nodes, 1), SystemEntropy())
    secret = await book.secret()
    await _flushall(redis_url)
    assert await stores[0].get_setting(DAILY_SECRET_SETTING) is None
    assert await book.secret() == secret
    assert await stores[0].get_setting(DAILY_SECRET_SETTING) == secret


async def test_a_data_directory_that_cannot_be_made_stops_arena_serve_with_its_reason(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, out, err = await run("-m", "server.cli", "serve", "--port", "0", "--data", str(blocker / "data"))
    assert code == 1 and out == "", out
    assert err.startswith("arena serve: [Errno 20] Not a directory") and "Traceback" not in err, err
