"""``arena export FILE`` and ``arena import FILE``: move a server's data
to another store (SQLite to Redis, usually), through one NDJSON file
(``server.storage.transfer``; the format is in docs/storage.md).

Both open the store ``arena serve`` would open with the same options
(``--data``, ``--store``, ``--memory``, their ``ARENA_*`` variables).  A
SQLite database is opened as a server opens it, so while a server holds
it the command is refused, naming the holder: an export taken while
players play would miss whatever they do after it, so stop the server
first (or export a copy ``arena backup`` made).  A Redis store may be
exported while servers run, but the same holds: stop them for a move.

The import refuses a target that holds anything, and reads the whole
file once before it writes, so a file that is not an export, of an
unknown version or cut short, changes nothing.  The export is written
beside ``FILE`` and renamed onto it once complete, with mode 0600: it
holds every player's token hash.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any, Callable, Coroutine

from server.commands import run_with_settings
from server.commands.store_options import add_store_options, store_settings
from server.games.retention import retention_of
from server.runtime.clock import wall_clock_ms
from server.runtime.exits import EXIT_OK, EXIT_USAGE
from server.runtime.progress import ProgressLine
from server.runtime.settings import Settings
from server.storage import Store, open_store
from server.storage.sqlite_lock import StoreLocked
from server.storage.transfer import TransferError, check_empty, export_store, import_store, read_export

PLAIN_EVERY = 5.0
"""Seconds between two progress lines when standard error is no terminal."""
LOCK_ADVICE = "stop the server first (to export a running SQLite server, export a copy made by arena backup)"


COMMANDS = (
    ("export", "write the whole store to FILE (NDJSON), to move it to another store",
     "Write every player, token hash, record, leaderboard, setting, document and game of the store arena serve "
     "uses with the same options to FILE, for arena import. Stop the server first: a SQLite database held by a "
     "running server is refused.", "the export to write (replaced if it exists)"),
    ("import", "write an export FILE into an empty store",
     "Write what arena export wrote to FILE into the store arena serve uses with the same options, which must be "
     "empty (e.g. --store redis://HOST:6379/0 of a fresh Redis).", "the export to read"),
)
"""Each command's name, help, description and help of its FILE."""


def register(subparsers: Any) -> None:
    handlers = {"export": _export, "import": _import}
    for name, summary, description, file_help in COMMANDS:
        parser = subparsers.add_parser(name, help=summary, description=description)
        parser.add_argument("file", type=Path, metavar="FILE", help=file_help)
        add_store_options(parser)
        parser.set_defaults(handler=handlers[name])


def _with_store(
    command: str, args: argparse.Namespace, work: Callable[[Store, ProgressLine], Coroutine[Any, Any, str]]
) -> int:
    async def main(settings: Settings) -> int:
        try:
            store = open_store(settings.redis_url, retention=retention_of(settings))
        except StoreLocked as error:
            raise StoreLocked(f"{error}; to {command}, {LOCK_ADVICE}") from None
        progress = ProgressLine(every=PLAIN_EVERY)
        try:
            print(f"arena {command}: {await work(store, progress)}", flush=True)
        except TransferError as error:
            print(f"arena {command}: {error}", file=sys.stderr)
            return EXIT_USAGE
        finally:
            progress.finish()
            await store.close()
        return EXIT_OK

    return run_with_settings(command, store_settings(args), main)


def _export(args: argparse.Namespace) -> int:
    async def work(store: Store, progress: ProgressLine) -> str:
        target: Path = args.file
        partial = target.with_name(f".{target.name}.partial")
        try:
            with os.fdopen(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w",
                           encoding="utf-8") as out:
                counts = await export_store(store, out, wall_clock_ms(), progress)
                out.flush()
                os.fsync(out.fileno())
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
        return f"wrote {target}: {_counted(counts)}"

    return _with_store("export", args, work)


def _import(args: argparse.Namespace) -> int:
    async def work(store: Store, progress: ProgressLine) -> str:
        source: Path = args.file
        await asyncio.to_thread(_check_file, source)
        await check_empty(store)
        with source.open(encoding="utf-8") as lines:
            counts = await import_store(store, read_export(lines), wall_clock_ms(), progress)
        return f"imported {source}: {_counted(counts)}"

    return _with_store("import", args, work)


def _check_file(source: Path) -> None:
    """Read the whole export once (``TransferError`` if it is not one, or
    cut short), before anything is written."""
    with source.open(encoding="utf-8") as lines:
        for _ in read_export(lines):
            pass


def _counted(counts: dict[str, int]) -> str:
    return ", ".join(f"{count} {kind if count == 1 else kind.removesuffix('x') + ('es' if kind.endswith('x') else 's')}"
                     for kind, count in counts.items())
