"""Finished games lost to ``kill -9``: target 0.

Each trial: three players on one ``arena serve`` process (real Redis, real
WebSocket clients) start a game, make a move and resign at once; the
process is killed with SIGKILL the moment the first resignation is
acknowledged, then started again on the same store.  A game counts as
lost if its log ends with the resignation but its owner's record (or its
final header) does not show it.  Every tenth trial is instead a ranked
daily win, killed the moment the winning move is acknowledged, lost if it
is not on the day's leaderboard after the restart.

To see that the trials hit the window at all, run the same script
against an older checkout (``--root``), whose server wrote the end after
the acknowledgement in several round trips.  ``--store redis`` (the
default) runs Redis with ``appendfsync always``; ``--store sqlite`` runs
the server on a SQLite database in a fresh data directory (``--data``),
restarted on it.  All clients come from 127.0.0.1, so the limit of new
identities per address is lifted.

    python bench/finish_crash.py               # 100 trials
    python bench/finish_crash.py --store sqlite
    python bench/finish_crash.py --root /tmp/old-checkout
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from tests.integration import arena_processes  # noqa: E402
from tests.integration.arena_processes import ServerProcess  # noqa: E402
from tests.integration.finish_trials import TrialCount, daily_win_trial, resign_trial  # noqa: E402
from tests.integration.trial_stores import STORES, run_trials  # noqa: E402

DAILY_EVERY = 10


async def main(trials: int, root: Path | None, store: str) -> TrialCount:
    if root is not None:
        arena_processes.ROOT = root
    os.environ["ARENA_IDENTITIES_PER_HOUR"] = "1000000"
    total = TrialCount()

    async def trial(server: ServerProcess, store_url: str, number: int) -> str:
        play = daily_win_trial if number % DAILY_EVERY == 0 else resign_trial
        total.add(await play(server, store_url))
        return f"trials, {total.lost} lost so far"

    await run_trials(store, trials, trial)
    return total


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--root", type=Path, help="run the server of another checkout (a baseline)")
    parser.add_argument("--store", choices=STORES, default="redis")
    options = parser.parse_args()
    began = time.monotonic()
    result = asyncio.run(main(options.trials, options.root, options.store))
    print(f"store: {options.store}, trials: {options.trials} (kill -9 each), {time.monotonic() - began:.0f} s")
    print(f"ended games (log ends): {result.ended}, acknowledged: {result.acknowledged}")
    print(f"lost: {result.lost} (acknowledged: {result.lost_acknowledged}) {result.lost_games[:10]}")
