"""What only the SQLite store has (the contract suite covers the rest):
one process per database, refusal of a file that is not ours, forward
migrations, SQLite's refusals as ``StorageRefused`` with nothing
half-written, and acknowledged writes that outlive ``kill -9``."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any, AsyncIterator

import pytest
from tests.storage_backends import SERVE_ENVIRONMENT, on_connection, serve_on_sqlite

from server.model.records import Action, BoardEntry, Finish, GameResult, PlayerRecord, ResultEntry, SessionHeader
from server.storage import SqliteStore, StorageRefused, StorageUnavailable, UnknownStorageURL, open_store
from server.storage.sqlite_lock import StoreLocked
from server.storage.sqlite_schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, StoreUnusable, open_database

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 120.0
"""Bounds a hang only: a server process's start on a loaded machine."""
BOARD = "klondike/draw-1/2024-05-01"


def header(game_id: str, **changes: Any) -> SessionHeader:
    base = SessionHeader(game_id=game_id, game="klondike", deal=3, options={"draw": 1}, owner="p1", created_ms=1_000)
    for name, value in changes.items():
        setattr(base, name, value)
    return base


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "arena.db"


@pytest.fixture
async def store(database: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(database)
    yield opened
    await opened.close()


# ---------------------------------------------------------------- one process per database


def test_a_second_server_on_the_database_is_refused_naming_the_holder_and_a_crashed_one_holds_nothing(
    tmp_path: Path, database: Path
) -> None:
    environment = {**os.environ, **SERVE_ENVIRONMENT}
    first = subprocess.Popen(serve_on_sqlite(database, tmp_path / "data"), cwd=ROOT, env=environment, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    try:
        assert first.stdout is not None
        assert first.stdout.readline().startswith("arena: listening on "), "the first server starts"
        second = subprocess.run(serve_on_sqlite(database, tmp_path / "data"), cwd=ROOT, env=environment, capture_output=True,
                                text=True, timeout=START_SECONDS)
        assert second.returncode == 1, second.stderr
        assert f"pid {first.pid} on host {socket.gethostname()}" in second.stderr
        assert "share a Redis" in second.stderr and "Traceback" not in second.stderr
        with pytest.raises(StoreLocked):
            SqliteStore(database)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(START_SECONDS)
        if first.stdout is not None:
            first.stdout.close()
    asyncio.run(SqliteStore(database).close())


# ---------------------------------------------------------------- files that are not ours


def test_a_file_that_is_not_sqlite_is_refused_and_left_alone(database: Path) -> None:
    database.write_bytes(b"my notes, not a database\n" * 100)
    with pytest.raises(StoreUnusable, match="is not a SQLite database"):
        SqliteStore(database)
    assert database.read_bytes() == b"my notes, not a database\n" * 100


def test_a_database_of_another_program_is_refused_and_left_alone(database: Path) -> None:
    foreign = sqlite3.connect(database)
    foreign.execute("CREATE TABLE invoices (number INTEGER)")
    foreign.commit()
    foreign.close()
    before = database.read_bytes()
    with pytest.raises(StoreUnusable, match="another program"):
        SqliteStore(database)
    assert database.read_bytes() == before


async def test_a_damaged_database_is_refused_not_reset(database: Path) -> None:
    store = SqliteStore(database)
    for number in range(200):
        await store.create_player(PlayerRecord(f"p{number}", "Ada" * 20, f"hash-{number}", 0))
    await store.close()
    with database.open("r+b") as file:
        file.seek(4096 * 3)
        file.write(b"\xff" * 4096)
    before = database.read_bytes()
    with pytest.raises(StoreUnusable, match=str(database)):
        SqliteStore(database)
    assert database.read_bytes() == before


def test_a_database_of_a_newer_arena_is_refused(database: Path) -> None:
    open_database(database, (*MIGRATIONS, "CREATE TABLE later (x INTEGER);")).close()
    with pytest.raises(StoreUnusable, match=f"schema version {SCHEMA_VERSION + 1}, newer"):
        SqliteStore(database)


async def test_an_empty_file_becomes_a_new_database(database: Path) -> None:
    database.touch()
    store = SqliteStore(database)
    await store.close()
    check = sqlite3.connect(database)
    assert check.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    check.close()


async def test_a_new_database_and_its_wal_are_readable_by_their_owner_alone(database: Path) -> None:
    """They hold addresses and token hashes, as private as the data
    directory's secret."""
    store = SqliteStore(database)
    try:
        await store.create_player(PlayerRecord(player_id="p_1", token_hash="h", display_name="Ann", created_ms=0))
        for path in (database, database.with_name(database.name + "-wal")):
            assert path.stat().st_mode & 0o777 == 0o600, path
    finally:
        await store.close()


# ---------------------------------------------------------------- migrations


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION + 1))
async def test_a_database_of_each_earlier_version_opens_at_the_current_one_with_its_data(
    database: Path, version: int
) -> None:
    made = open_database(database, MIGRATIONS[:version])
    made.execute("INSERT INTO players VALUES ('p1', 'Ada', 'hash-1', 0, 0, NULL)")
    made.execute("INSERT INTO tokens VALUES ('hash-1', 'p1')")
    made.close()
    store = SqliteStore(database)
    assert await store.player_by_token_hash("hash-1") == PlayerRecord("p1", "Ada", "hash-1", 0)
    await store.close()
    assert sqlite3.connect(database).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


async def test_a_later_step_migrates_a_version_1_database_forward_keeping_its_data(database: Path) -> None:
    store = SqliteStore(database)
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 0))
    await store.close()
    later = (*MIGRATIONS, "ALTER TABLE players ADD COLUMN country TEXT;\nCREATE TABLE friends (a TEXT, b TEXT);")
    migrated = open_database(database, later)
    assert migrated.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    assert migrated.execute("SELECT display_name, country FROM players").fetchall() == [("Ada", None)]
    assert migrated.execute("SELECT count(*) FROM friends").fetchone()[0] == 0
    migrated.close()


def test_a_failing_step_leaves_the_database_at_its_version(database: Path) -> None:
    open_database(database).close()
    broken = (*MIGRATIONS, "CREATE TABLE friends (a TEXT);", "THIS IS NOT SQL;")
    with pytest.raises(StoreUnusable):
        open_database(database, broken)
    check = sqlite3.connect(database)
    assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert check.execute("SELECT count(*) FROM sqlite_master WHERE name = 'friends'").fetchone()[0] == 0
    check.close()


# ---------------------------------------------------------------- SQLite's refusals


async def test_a_full_disk_refuses_a_games_end_and_writes_none_of_it(store: SqliteStore) -> None:
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 0))
    await store.create_session(header("g1"))
    await store.append("g1", 0, Action("move", "draw", 2_000), ends=True)
    await on_connection(store, "PRAGMA max_page_count = 1")  # SQLite keeps it at the file's size: now full
    final = header("g1", status="won", finished_ms=9_000, position="x" * 200_000)
    end = Finish(final, 600, ResultEntry("p1", "klondike/draw-1", GameResult(True, 40, 90_000), vegas=52),
                 BoardEntry(BOARD, "p1", 90_000, 40, 1_714_521_609_000, 3_600))
    with pytest.raises(StorageRefused) as refused:
        await store.settle_finish(end)
    assert refused.value.reason == "FULL"
    assert await store.records("p1") == {} and await store.vegas("p1") == 0, "nothing of the end is written"
    assert await store.leaderboard(BOARD) == [] and await store.open_finishes() == ["g1"]
    loaded = await store.load_session("g1")
    assert loaded is not None and loaded[0] == header("g1")
    await on_connection(store, "PRAGMA max_page_count = 1073741823")
    await store.settle_finish(end)
    assert (await store.records("p1"))["klondike/draw-1"].games == 1 and await store.open_finishes() == []


async def test_a_database_that_takes_no_writes_refuses_them_and_still_reads(store: SqliteStore) -> None:
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 0))
    await on_connection(store, "PRAGMA query_only = 1")
    with pytest.raises(StorageRefused) as refused:
        await store.create_session(header("g1"))
    assert refused.value.reason == "READONLY"
    with pytest.raises(StorageRefused):
        await store.check_writable()
    assert await store.get_player("p1") == PlayerRecord("p1", "Ada", "hash-1", 0)
    assert await store.load_session("g1") is None


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes a file whatever its mode")
async def test_a_read_only_file_refuses_writes_and_still_reads(database: Path) -> None:
    store = SqliteStore(database)
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 0))
    await store.close()
    database.chmod(0o444)
    store = SqliteStore(database)
    try:
        assert await store.get_player("p1") == PlayerRecord("p1", "Ada", "hash-1", 0)
        with pytest.raises(StorageRefused):
            await store.create_session(header("g1"))
        with pytest.raises(StorageRefused):
            await store.check_writable()
    finally:
        await store.close()


async def test_a_writes_refusal_leaves_the_other_calls_committed_with_it_alone(store: SqliteStore) -> None:
    """Calls waiting together share a transaction; one refused keeps the
    others' writes."""
    await store.create_session(header("g1"))
    outcomes = await asyncio.gather(
        store.append("g1", 0, Action("move", "a", 1)),
        store.append("g1", 0, Action("move", "b", 2)),
        store.append("g1", 1, Action("move", "c", 3)),
        store.append("missing", 0, Action("move", "d", 4)),
        return_exceptions=True,
    )
    assert outcomes[0] == 1 and outcomes[2] == 2 and isinstance(outcomes[3], KeyError)
    loaded = await store.load_session("g1")
    assert loaded is not None and [action.text for action in loaded[1]] == ["a", "c"]


async def test_a_call_that_breaks_its_transaction_is_refused_and_the_store_goes_on(store: SqliteStore) -> None:
    with pytest.raises(StorageUnavailable):
        await on_connection(store, "COMMIT")
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 0))
    assert await store.get_player("p1") == PlayerRecord("p1", "Ada", "hash-1", 0)


# ---------------------------------------------------------------- durability

APPENDER = """
import asyncio, sys
from server.model.records import Action, SessionHeader
from server.storage import SqliteStore

async def main():
    store = SqliteStore(sys.argv[1])
    await store.create_session(SessionHeader("g1", "klondike", 3, {}, "p1", 0))
    length = 0
    while True:
        length = await store.append("g1", length, Action("move", "draw", length))
        print(length, flush=True)

asyncio.run(main())
"""


def test_every_acknowledged_append_outlives_kill_9(database: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", APPENDER, str(database)], cwd=ROOT, stdout=subprocess.PIPE,
                             text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.stdout is not None
    acknowledged = 0
    while acknowledged < 300:
        acknowledged = int(child.stdout.readline())
    child.send_signal(signal.SIGKILL)
    child.wait(START_SECONDS)
    child.stdout.close()

    async def stored() -> int:
        store = SqliteStore(database)
        try:
            loaded = await store.load_session("g1")
        finally:
            await store.close()
        assert loaded is not None
        return len(loaded[1])

    assert asyncio.run(stored()) >= acknowledged


# ---------------------------------------------------------------- the URL


async def test_a_sqlite_url_names_the_database_file(tmp_path: Path) -> None:
    store = open_store(f"sqlite://{tmp_path}/kept/arena.db")
    assert isinstance(store, SqliteStore) and store.path == tmp_path / "kept" / "arena.db"
    await store.close()


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///var/lib/arena/", "sqlite:///arena.db?mode=ro"])
def test_a_sqlite_url_without_a_file_is_a_usage_error(url: str) -> None:
    with pytest.raises(UnknownStorageURL):
        open_store(url)
