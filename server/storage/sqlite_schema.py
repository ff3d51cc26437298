"""The SQLite store's file: what makes a file ours, its tables, and how an
older file is brought forward.

A file is ours when SQLite's header says ``application_id`` is
``APPLICATION_ID``; ``user_version`` is the version of its tables.  At
open, anything else is refused with a clear error, never reset: a file
that is not SQLite at all, a SQLite database of another program, one
that fails SQLite's ``quick_check``, or one written by a newer arena.
An empty or missing file becomes a new database.

``MIGRATIONS[n]`` takes a database from version ``n`` to ``n + 1``
(``MIGRATIONS[0]`` makes the tables of a new file); all the steps an open
needs run in one transaction with the new version, so a failed step
leaves the file as it was.  A change of the tables appends a step and
never edits one already released.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Sequence

from .errors import StorageUnavailable

APPLICATION_ID = 0x41524E41
"""``ARNA``: SQLite's ``PRAGMA application_id`` of an arena database."""
SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 5_000
"""How long a write waits for a reader of another process (``sqlite3``'s
shell, a backup) before it is refused."""

VERSION_1 = """
CREATE TABLE identities (player_id TEXT PRIMARY KEY, renewed_at REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE players (
    player_id TEXT PRIMARY KEY, display_name TEXT NOT NULL, token_hash TEXT NOT NULL,
    created_ms INTEGER NOT NULL, bot INTEGER NOT NULL, address TEXT
) WITHOUT ROWID;
CREATE TABLE tokens (token_hash TEXT PRIMARY KEY, player_id TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX tokens_of_player ON tokens (player_id);
CREATE TABLE sessions (
    game_id TEXT PRIMARY KEY, owner TEXT NOT NULL, created_ms INTEGER NOT NULL, playing INTEGER NOT NULL,
    header TEXT NOT NULL, length INTEGER NOT NULL, outbox INTEGER NOT NULL DEFAULT 0, expires_at REAL
);
CREATE INDEX sessions_of_owner ON sessions (owner, created_ms);
CREATE INDEX sessions_live ON sessions (playing, created_ms);
CREATE INDEX sessions_expiring ON sessions (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX sessions_outbox ON sessions (game_id) WHERE outbox = 1;
CREATE TABLE actions (
    game_id TEXT NOT NULL, seq INTEGER NOT NULL, entry TEXT NOT NULL, PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE TABLE settled (
    player_id TEXT NOT NULL, game_id TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (player_id, game_id)
) WITHOUT ROWID;
CREATE TABLE records (
    player_id TEXT NOT NULL, record_key TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (player_id, record_key)
) WITHOUT ROWID;
CREATE TABLE vegas (player_id TEXT PRIMARY KEY, total INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE boards (board TEXT PRIMARY KEY, expires_at REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE board_entries (
    board TEXT NOT NULL, player_id TEXT NOT NULL, score INTEGER NOT NULL, time_ms INTEGER NOT NULL,
    moves INTEGER NOT NULL, finished_ms INTEGER NOT NULL, PRIMARY KEY (board, player_id)
) WITHOUT ROWID;
CREATE INDEX board_order ON board_entries (board, score, player_id);
CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at REAL) WITHOUT ROWID;
CREATE TABLE stocks (position INTEGER PRIMARY KEY AUTOINCREMENT, stock TEXT NOT NULL, item TEXT NOT NULL);
CREATE INDEX stock_order ON stocks (stock, position);
CREATE TABLE documents (
    kind TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, expires_at REAL, PRIMARY KEY (kind, key)
) WITHOUT ROWID;
CREATE TABLE document_indexes (
    kind TEXT NOT NULL, name TEXT NOT NULL, expires_at REAL, PRIMARY KEY (kind, name)
) WITHOUT ROWID;
CREATE TABLE indexed (
    kind TEXT NOT NULL, name TEXT NOT NULL, key TEXT NOT NULL, score REAL NOT NULL, PRIMARY KEY (kind, name, key)
) WITHOUT ROWID;
CREATE TABLE health (id INTEGER PRIMARY KEY CHECK (id = 1), written_at REAL NOT NULL);
"""

DEVICES = """
CREATE TABLE device_sets (player_id TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE devices (
    player_id TEXT NOT NULL, device_id TEXT NOT NULL, name TEXT NOT NULL, created_ms INTEGER NOT NULL,
    last_seen_ms INTEGER, token_hash TEXT NOT NULL, PRIMARY KEY (player_id, device_id)
) WITHOUT ROWID;
CREATE TABLE link_codes (code_hash TEXT PRIMARY KEY, player_id TEXT NOT NULL, expires_at REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE attempts (counter TEXT PRIMARY KEY, count INTEGER NOT NULL, expires_at REAL NOT NULL) WITHOUT ROWID;
"""
"""A player's devices (``device_sets`` lists the players whose devices are
written; until then a player's own token is its one device), link codes
and attempt counters.  Only tables are added: every player of a file
written before keeps its token."""

PRESENCE = """
CREATE TABLE presence_leases (origin TEXT PRIMARY KEY, deadline_ms INTEGER NOT NULL, renewed_ms INTEGER NOT NULL)
    WITHOUT ROWID;
CREATE TABLE presence_live (
    player_id TEXT NOT NULL, origin TEXT NOT NULL, entry TEXT NOT NULL, PRIMARY KEY (player_id, origin)
) WITHOUT ROWID;
CREATE INDEX presence_live_of_origin ON presence_live (origin);
CREATE TABLE presence_kept (
    player_id TEXT PRIMARY KEY, last_seen_ms INTEGER, hidden_seen_ms INTEGER, expires_at REAL
) WITHOUT ROWID;
"""
"""Presence (``server.storage.sqlite_presence``): leases of server processes,
the players each holds, and each player's last seen and appear-offline."""
MIGRATIONS: tuple[str, ...] = (VERSION_1, DEVICES, PRESENCE)
PRIVATE_FILE_MODE = 0o600
"""A new database is its owner's alone, as the data directory's secret is:
it holds addresses and token hashes.  SQLite gives its WAL and shared
memory files the database's mode."""
SCHEMA_VERSION = len(MIGRATIONS)


class StoreUnusable(StorageUnavailable):
    """The database cannot be used at all (foreign, corrupt, newer, or
    its place not writable): refused at open, with what to do."""


def open_database(path: Path, migrations: Sequence[str] = MIGRATIONS) -> sqlite3.Connection:
    """The connection to the arena database at ``path``, created or brought
    to ``len(migrations)``, in WAL mode with ``synchronous=FULL``
    (docs/storage.md, "The SQLite store"); ``StoreUnusable`` says why not."""
    _check_header(path)
    try:
        _create_private(path)
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except (OSError, sqlite3.Error) as error:
        raise StoreUnusable(f"cannot open the SQLite database {path}: {error}") from error
    try:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        version = _check_ours(db, path, len(migrations))
        _check_intact(db, path)
        if db.execute("PRAGMA journal_mode = WAL").fetchone()[0] != "wal":
            raise StoreUnusable(f"the SQLite database {path} cannot use WAL mode (a network file system?)")
        db.execute("PRAGMA synchronous = FULL")
        if version < len(migrations):
            _migrate(db, path, version, migrations)
    except sqlite3.Error as error:
        db.close()
        raise StoreUnusable(f"the SQLite database {path} cannot be used: {error}") from error
    except StoreUnusable:
        db.close()
        raise
    return db


def _create_private(path: Path) -> None:
    """Create the database file, if missing, with ``PRIVATE_FILE_MODE``
    (an existing one keeps its mode: a read-only file stays readable)."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE_FILE_MODE))
    except FileExistsError:
        return


def _check_header(path: Path) -> None:
    """Refuse a file that is not SQLite before SQLite opens it: SQLite
    would call it "not a database" only at the first read."""
    try:
        with path.open("rb") as file:
            start = file.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return
    except OSError as error:
        raise StoreUnusable(f"cannot read the database file {path}: {error}") from error
    if start and start != SQLITE_HEADER:
        raise StoreUnusable(
            f"{path} is not a SQLite database (it starts {start[:8]!r}); arena will not overwrite it: "
            "move it away or choose another database file"
        )


def _check_ours(db: sqlite3.Connection, path: Path, known: int) -> int:
    """The file's schema version, refusing a database of another program or
    of a newer arena; 0 for a new one."""
    application_id = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    if application_id != APPLICATION_ID and (application_id != 0 or version != 0 or tables != 0):
        raise StoreUnusable(
            f"{path} is a SQLite database of another program (application_id {application_id:#x}, "
            f"{tables} schema entries); arena will not change it: choose another database file"
        )
    if version > known:
        raise StoreUnusable(
            f"{path} has schema version {version}, newer than this arena knows ({known}): run a newer arena"
        )
    return int(version)


def _check_intact(db: sqlite3.Connection, path: Path) -> None:
    problems = [row[0] for row in db.execute("PRAGMA quick_check(5)")]
    if problems != ["ok"]:
        raise StoreUnusable(
            f"the SQLite database {path} is damaged ({'; '.join(problems)}); restore a backup "
            "(docs/storage.md, \"The SQLite store\")"
        )


def _migrate(db: sqlite3.Connection, path: Path, version: int, migrations: Sequence[str]) -> None:
    """Every step from ``version`` on, and the new version, in one transaction."""
    db.execute("BEGIN IMMEDIATE")
    try:
        for step in migrations[version:]:
            for statement in _statements(step):
                db.execute(statement)
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {len(migrations)}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _statements(script: str) -> list[str]:
    """A migration's statements one by one: ``executescript`` would commit
    the transaction the steps share."""
    statements, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if pending.strip():
        raise ValueError(f"an incomplete statement in a migration: {pending.strip()!r}")
    return statements
