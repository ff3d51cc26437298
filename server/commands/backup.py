"""``arena backup PATH``: a consistent copy of the SQLite store, taken
while the server runs.

It copies with SQLite's online backup API, which reads the database as
one transaction: in WAL mode a reader neither waits for the server's
writer nor stops it, and sees every commit up to its start, including
those still in ``arena.db-wal`` (which a ``cp`` of ``arena.db`` would
miss).  The server's lock (``server.storage.sqlite_lock``) keeps out a
second server, not a reader, so the backup needs no pause.

The database is the one ``arena serve`` would open with the same options
(``--data``, ``--store``, their ``ARENA_*`` variables).  The copy is
written beside ``PATH`` and renamed onto it once complete, so ``PATH``
is never half a database, and made with mode 0600: it holds every
player's token.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

from server.commands import run_with_settings
from server.commands.store_options import add_store_options, store_settings
from server.runtime.data_dir import with_default_data_dir
from server.runtime.exits import EXIT_OK, EXIT_USAGE
from server.runtime.settings import Settings
from server.storage import SQLITE_SCHEME, StorageUnavailable
from server.storage.sqlite import sqlite_path
from server.storage.sqlite_schema import APPLICATION_ID


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "backup",
        help="copy the SQLite store to PATH, while the server runs",
        description="Copy the SQLite database arena serve uses with the same options to PATH, with SQLite's "
        "online backup: consistent, and without stopping the server.",
    )
    parser.add_argument("path", type=Path, metavar="PATH", help="the copy to write (replaced if it exists)")
    add_store_options(parser)
    parser.set_defaults(handler=_backup)


def _backup(args: argparse.Namespace) -> int:
    async def main(settings: Settings) -> int:
        url = settings.redis_url or ""
        if not url.startswith(SQLITE_SCHEME):
            print(
                "arena backup: bad setting: the store is not a SQLite database; a Redis store is backed up by "
                "Redis (its RDB or append-only file), and the memory store has nothing to keep", file=sys.stderr,
            )
            return EXIT_USAGE
        source = sqlite_path(url)
        pages = await asyncio.to_thread(backup_database, source, args.path)
        print(f"arena backup: copied {source} to {args.path} ({pages} pages)", flush=True)
        return EXIT_OK

    return run_with_settings(
        "backup",
        store_settings(args),
        main,
    )


def backup_database(source: Path, target: Path) -> int:
    """Copy the arena database ``source`` to ``target`` whole; the pages
    copied.  ``StorageUnavailable`` when ``source`` is missing, not an
    arena database, or unreadable."""
    try:
        database = sqlite3.connect(f"file:{source}?mode=rw", uri=True)
    except sqlite3.Error as error:
        raise StorageUnavailable(f"cannot open the database {source}: {error}") from None
    partial = target.with_name(f".{target.name}.partial")
    try:
        application_id = database.execute("PRAGMA application_id").fetchone()[0]
        if application_id != APPLICATION_ID:
            raise StorageUnavailable(f"{source} is not an arena database (application_id {application_id:#x})")
        os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
        copy = sqlite3.connect(partial)
        try:
            database.backup(copy)
            pages: int = copy.execute("PRAGMA page_count").fetchone()[0]
        finally:
            copy.close()
        os.replace(partial, target)
        return pages
    except sqlite3.Error as error:
        raise StorageUnavailable(f"cannot back up {source} to {target}: {error}") from None
    finally:
        database.close()
        partial.unlink(missing_ok=True)
