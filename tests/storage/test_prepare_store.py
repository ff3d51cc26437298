"""``arena prepare-dailies`` opens the store ``arena serve`` opens with the
same options: by default the SQLite database of the data directory, where
a server on that directory finds the day's records; and it is refused,
saying why, while a server holds that database."""

from __future__ import annotations

from pathlib import Path

from tests.storage.test_transfer import arena

from server.runtime.data_dir import DATABASE_FILE
from server.runtime.exits import EXIT_FAILURE, EXIT_OK
from server.storage import SqliteStore
from server.storage.base import HELD_SPACES


async def test_prepare_dailies_keeps_the_days_records_in_the_data_directorys_database(tmp_path: Path) -> None:
    code, error = await arena("prepare-dailies", "--date", "2026-03-20", "--data", str(tmp_path))
    assert code == EXIT_OK, error
    assert f"kept in the store sqlite://{tmp_path / DATABASE_FILE} and the data directory {tmp_path};" in error, error
    store = SqliteStore(tmp_path / DATABASE_FILE)
    try:
        assert any([await store.held(space) for space in HELD_SPACES]), "the records are in the server's database"
    finally:
        await store.close()


async def test_prepare_dailies_is_refused_while_a_server_holds_the_database(tmp_path: Path) -> None:
    server = SqliteStore(tmp_path / DATABASE_FILE)
    try:
        code, error = await arena("prepare-dailies", "--date", "2026-03-20", "--data", str(tmp_path))
    finally:
        await server.close()
    assert code == EXIT_FAILURE and "in use by another arena process" in error
    assert "prepares its dailies by itself" in error
