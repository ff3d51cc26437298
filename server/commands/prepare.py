"""``arena prepare-dailies``: prove and fix a day's secret daily deals now.

A server does this by itself the day before (``server.deals.keeper``); an
operator runs it to fill a store ahead of a launch, or to measure what a
day's preparation costs.  It prints progress with an ETA on standard
error and one line per commitment on standard output.  The store and the
secret are the server's, with its options and default
(``server.commands.store_options``: the SQLite database of the data
directory unless ``--store`` or ``--memory`` says otherwise), so a server
on the same directory finds the records.  That database opens in one
process at a time: while a server holds it, the command is refused, and
the running server prepares its dailies by itself.  The records are
also kept in the data directory, where a server with that directory finds
them whatever its store; a store in memory without a data directory
keeps nothing past the command, so it is refused before any work (exit
2): its commitments would be ones no server ever uses.  A throwaway data
directory measures a day's preparation just as well.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date, timedelta
from typing import Any

import engine
from server.commands import run_with_settings
from server.commands.serve import store_text
from server.commands.store_options import add_store_options, store_settings
from server.runtime.exits import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from server.runtime.data_dir import open_data_dir
from server.deals.book import DailyBook
from server.deals.daily import daily_variants, utc_day
from server.deals.keeper import prepare_day
from server.runtime.clock import wall_clock_ms
from server.runtime.entropy import SystemEntropy
from server.runtime.progress import ProgressLine
from server.deals.proofs import DealProver
from server.runtime.workers import WorkerPool
from server.runtime.settings import Settings
from server.storage import MEMORY_URL, open_store
from server.storage.sqlite_lock import StoreLocked


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "prepare-dailies", help="prove and fix a day's secret daily deals now",
        description="Prove and fix a day's secret daily deals in the store arena serve uses with the same options. "
        "A SQLite database held by a running server is refused: that server prepares its dailies by itself "
        "(or stop it first). A store in memory with no data directory is refused too: nothing would keep its deals.",
    )
    parser.add_argument("--date", type=date.fromisoformat, help="UTC day, YYYY-MM-DD (default: tomorrow)")
    add_store_options(parser)
    parser.set_defaults(handler=_prepare)


def _prepare(args: argparse.Namespace) -> int:
    return run_with_settings("prepare-dailies", store_settings(args), lambda settings: _main(settings, args.date))


KEPT_NOWHERE = (
    "arena prepare-dailies: nothing would keep the deals it proves (a store in memory and no data directory), "
    "so no server would ever use them; give the server's store (--store URL) or data directory (--data DIR), "
    "as for arena serve, or to measure a day's preparation a throwaway one: --data \"$(mktemp -d)\""
)


def kept_text(settings: Settings) -> str:
    """Where the day's records now are, for a server to find them."""
    places = [] if settings.redis_url in (None, MEMORY_URL) else [f"the store {store_text(settings.redis_url)}"]
    if settings.data_dir is not None:
        places.append(f"the data directory {settings.data_dir}")
    return (
        f"arena prepare-dailies: kept in {' and '.join(places)}; "
        "arena serve with the same store or data directory serves these commitments"
    )


async def _main(settings: Settings, day: date | None) -> int:
    if settings.redis_url in (None, MEMORY_URL) and settings.data_dir is None:
        print(KEPT_NOWHERE, file=sys.stderr)
        return EXIT_USAGE
    now = wall_clock_ms()
    entropy = SystemEntropy()
    open_data_dir(settings, entropy)
    day = day if day is not None else utc_day(now) + timedelta(days=1)
    try:
        store = open_store(settings.redis_url)
    except StoreLocked as error:
        raise StoreLocked(f"{error}; the running server prepares its dailies by itself (or stop it first)") from None
    workers = WorkerPool.sized(settings)
    prover = DealProver(workers, settings.deal_proof_nodes, settings.deal_proof_attempts)
    book = DailyBook(store, settings, prover, entropy)
    try:
        failed = await prepare_day(book, day, now, ProgressLine())
        for game_id, options in daily_variants():
            record = await book.fixed(engine.game_class(game_id), options, day, now)
            print(f"{record.key}  commitment {record.commitment}")
        print(kept_text(settings), file=sys.stderr)
    finally:
        await workers.close()
        await store.close()
    return EXIT_FAILURE if failed else EXIT_OK
