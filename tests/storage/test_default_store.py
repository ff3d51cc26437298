"""``arena serve`` with no store option keeps everything in ``arena.db``
in its data directory, says so as it starts, and refuses a second server
on the same directory; ``--memory`` keeps nothing; ``arena backup``
copies the database while the server runs (``server.commands.serve``,
docs/storage.md, "Which store")."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WireClient
from tests.storage_backends import SERVE_ENVIRONMENT

from protocol import ErrorCode
from protocol import to_server as ts
from server.commands.store_options import with_default_store
from server.runtime.data_dir import DATABASE_FILE
from server.runtime.settings import Settings
from server.storage import MEMORY_URL
from server.transport.app import ArenaServer

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 120.0
"""Bounds a hang only: a server process's start on a loaded machine."""


class Served:
    """``arena serve --port 0 FLAGS`` in a subprocess, stopped with SIGTERM."""

    def __init__(self, process: asyncio.subprocess.Process, url: str) -> None:
        self.process = process
        self.url = url

    @classmethod
    async def start(cls, *flags: str) -> Served:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server.cli", "serve", "--port", "0", *flags, cwd=ROOT,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env={**os.environ, **SERVE_ENVIRONMENT},
        )
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), START_SECONDS)).decode()
        assert line.startswith("arena: listening on ws://"), line + (await process.stderr.read()).decode()  # type: ignore[union-attr]
        return cls(process, line.removeprefix("arena: listening on ").strip())

    async def stop(self) -> str:
        """Stop the server; its log."""
        self.process.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(self.process.communicate(), START_SECONDS)
        assert self.process.returncode == 0, err.decode()
        return err.decode()


async def _resign_one_game(url: str) -> tuple[str, str]:
    """A new player who starts a game and resigns it: its token and the game."""
    player = await WireClient.open(url)
    try:
        token = (await player.hello(name="ann")).token
        game_id = (await player.new_game(deal=7))[0].game_id
        assert (await player.request(ts.Resign, game_id=game_id)).type == "diff"
    finally:
        await player.close()
    return token, game_id


async def test_serve_without_a_store_option_keeps_players_and_records_in_the_data_directory(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = await Served.start("--data", str(data))
    try:
        token, game_id = await _resign_one_game(first.url)
        second = subprocess.run(
            [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--data", str(data)], cwd=ROOT,
            env={**os.environ, **SERVE_ENVIRONMENT}, capture_output=True, text=True, timeout=START_SECONDS,
        )
    finally:
        log = await first.stop()
    assert f"store sqlite://{data / DATABASE_FILE}" in log, "the start-up line names the store and its file"
    assert second.returncode == 1 and second.stdout == "", second.stdout
    assert f"in use by another arena process (pid {first.process.pid} on host" in second.stderr, second.stderr
    assert "redis" in second.stderr.lower() and "Traceback" not in second.stderr, second.stderr

    restarted = await Served.start("--data", str(data))
    try:
        player = await WireClient.open(restarted.url)
        again = await player.hello(token=token)
        assert again.name == "ann", "the token still names the player"
        records = await player.request(ts.Records)
        assert records.type == "records" and [(r.games, r.wins) for r in records.records] == [(1, 0)]
        replay = await player.request(ts.Replay, game_id=game_id)
        assert replay.type == "replay" and replay.last_seq == 1, "the finished game replays"
        await player.close()
    finally:
        await restarted.stop()


async def test_serve_memory_keeps_nothing_across_a_restart(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = await Served.start("--memory", "--data", str(data))
    try:
        token, _ = await _resign_one_game(first.url)
    finally:
        log = await first.stop()
    assert "store in memory" in log and "WARNING" not in log, log
    assert not (data / DATABASE_FILE).exists()

    restarted = await Served.start("--memory", "--data", str(data))
    try:
        player = await WireClient.open(restarted.url)
        refused = await player.request(ts.Hello, token=token)
        assert refused.type == "error" and refused.code == ErrorCode.BAD_TOKEN, refused
        await player.close()
    finally:
        await restarted.stop()


def test_the_default_store_is_the_data_directorys_database_unless_a_store_is_chosen(tmp_path: Path) -> None:
    assert with_default_store(Settings(data_dir=tmp_path), {}).redis_url == f"sqlite://{tmp_path / DATABASE_FILE}"
    assert with_default_store(Settings(data_dir=tmp_path, redis_url="redis://r:6379/0"), {}).redis_url == "redis://r:6379/0"
    assert with_default_store(Settings(data_dir=tmp_path), {"ARENA_REDIS_URL": "none"}).redis_url == MEMORY_URL
    assert with_default_store(Settings(), {}).redis_url is None, "no data directory: memory, with a warning"
    assert Settings().redis_url is None, "a server made in process stays in memory"


async def test_arena_backup_copies_the_database_while_the_server_runs(tmp_path: Path) -> None:
    data = tmp_path / "data"
    serving = await Served.start("--data", str(data))
    try:
        token, game_id = await _resign_one_game(serving.url)
        copy = tmp_path / "backups" / "arena.db"
        copy.parent.mkdir()
        done = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-m", "server.cli", "backup", "--data", str(data), str(copy)], cwd=ROOT,
            env={**os.environ, **SERVE_ENVIRONMENT}, capture_output=True, text=True, timeout=START_SECONDS,
        )
        assert done.returncode == 0 and done.stdout.startswith(f"arena backup: copied {data / DATABASE_FILE} to"), done
        assert stat.S_IMODE(copy.stat().st_mode) == 0o600 and sorted(copy.parent.iterdir()) == [copy]
    finally:
        await serving.stop()

    async with ArenaServer(make_settings(redis_url=f"sqlite://{copy}")) as restored:
        player = await WireClient.open(restored.url)
        assert (await player.hello(token=token)).name == "ann", "the copy knows the player"
        replay = await player.request(ts.Replay, game_id=game_id)
        assert replay.type == "replay" and replay.last_seq == 1, "and the finished game"
        await player.close()


def test_arena_backup_of_a_store_that_is_not_sqlite_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "backup", "--store", "redis://localhost:6379/0", str(tmp_path / "copy")],
        cwd=ROOT, capture_output=True, text=True, timeout=START_SECONDS,
    )
    assert done.returncode == 2 and "not a SQLite database" in done.stderr and not (tmp_path / "copy").exists()
