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
the running server prepares its dailies by itself.
"""

from __future__ import annotations

import argparse
from datetime import date, timedelta
from typing import Any

import engine
from server.commands import run_with_settings
from server.commands.store_options import add_store_options, store_settings
from server.runtime.exits import EXIT_FAILURE, EXIT_OK
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
from server.storage import open_store
from server.storage.sqlite_lock import StoreLocked


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "prepare-dailies", help="prove and fix a day's secret daily deals now",
        description="Prove and fix a day's secret daily deals in the store arena serve uses with the same options. "
        "A SQLite database held by a running server is refused: that server prepares its dailies by itself "
        "(or stop it first).",
    )
    parser.add_argument("--date", type=date.fromisoformat, help="UTC day, YYYY-MM-DD (default: tomorrow)")
    add_store_options(parser)
    parser.set_defaults(handler=_prepare)


def _prepare(args: argparse.Namespace) -> int:
    return run_with_settings("prepare-dailies", store_settings(args), lambda settings: _main(settings, args.date))


async def _main(settings: Settings, day: date | None) -> int:
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
    finally:
        await workers.close()
        await store.close()
    return EXIT_FAILURE if failed else EXIT_OK
