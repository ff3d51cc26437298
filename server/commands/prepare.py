"""``arena prepare-dailies``: prove and fix a day's secret daily deals now.

A server does this by itself the day before (``server.deals.keeper``); an
operator runs it to fill a store ahead of a launch, or to measure what a
day's preparation costs.  It prints progress with an ETA on standard
error and one line per commitment on standard output.  The store and the
secret are the server's (``--redis``, ``--data``, ``ARENA_*`` variables):
with the in-memory store the records live on in the data directory
(``server.runtime.data_dir``), where a server on the same directory finds them.
"""

from __future__ import annotations

import argparse
import time
from datetime import date, timedelta
from typing import Any

import engine
from server.commands import run_with_settings
from server.runtime.exits import EXIT_FAILURE, EXIT_OK
from server.runtime.data_dir import open_data_dir, with_default_data_dir
from server.deals.daily import daily_variants, fixed_record, utc_day
from server.deals.keeper import prepare_day
from server.runtime.progress import ProgressLine
from server.deals.proofs import DealProver
from server.runtime.workers import WorkerPool
from server.runtime.settings import Settings
from server.storage import open_store


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("prepare-dailies", help="prove and fix a day's secret daily deals now")
    parser.add_argument("--date", type=date.fromisoformat, help="UTC day, YYYY-MM-DD (default: tomorrow)")
    parser.add_argument("--redis", dest="redis_url", metavar="URL", help="Redis URL (default: in-memory store)")
    parser.add_argument("--data", dest="data_dir", metavar="DIR", help="the server's data directory (as arena serve's)")
    parser.set_defaults(handler=_prepare)


def _prepare(args: argparse.Namespace) -> int:
    return run_with_settings(
        "prepare-dailies",
        lambda: with_default_data_dir(Settings.from_env(redis_url=args.redis_url, data_dir=args.data_dir)),
        lambda settings: _main(settings, args.date),
    )


async def _main(settings: Settings, day: date | None) -> int:
    now = time.time_ns() // 1_000_000
    open_data_dir(settings)
    day = day if day is not None else utc_day(now) + timedelta(days=1)
    store = open_store(settings.redis_url)
    workers = WorkerPool.sized(settings)
    prover = DealProver(workers, settings.deal_proof_nodes, settings.deal_proof_attempts)
    try:
        failed = await prepare_day(store, settings, prover, day, now, ProgressLine())
        for game_id, options in daily_variants():
            record = await fixed_record(store, settings, prover, engine.game_class(game_id), options, day, now)
            print(f"{record.key}  commitment {record.commitment}")
    finally:
        await workers.close()
        await store.close()
    return EXIT_FAILURE if failed else EXIT_OK
