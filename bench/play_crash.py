"""Acknowledged actions lost to ``kill -9`` during play: target 0.

Each trial (``tests/integration/play_trials.py``): four players on one
``arena serve`` process send 200 draws each without waiting; the process
is killed with SIGKILL once a random player has a random number of them
acknowledged, started again on the same store, and every acknowledged
action is looked for in the stored logs.  The restarted process serves
the next trial.

``--store sqlite`` (the default store of ``arena serve``) runs the server
on a SQLite database in a fresh data directory (``--data``);
``--store redis`` on a Redis with ``appendfsync always``.  All clients
come from 127.0.0.1, so the per-address limits are lifted.

    python bench/play_crash.py --store sqlite            # 100 trials
    python bench/play_crash.py --store redis --trials 10
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from tests.integration.arena_processes import ServerProcess  # noqa: E402
from tests.integration.convergence_trials import MANY_CLIENTS  # noqa: E402
from tests.integration.play_trials import PlayCount, play_kill_trial  # noqa: E402
from tests.integration.trial_stores import STORES, run_trials  # noqa: E402


async def main(trials: int, store: str, seed: int) -> PlayCount:
    chance = random.Random(seed)
    total = PlayCount()

    async def trial(server: ServerProcess, store_url: str, _: int) -> str:
        total.add(await play_kill_trial(server, store_url, chance))
        return f"trials, {total.acknowledged} acknowledged, {len(total.lost)} lost"

    await run_trials(store, trials, trial, MANY_CLIENTS)
    return total


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--store", choices=STORES, default="sqlite")
    parser.add_argument("--seed", type=int, default=1, help="chooses who and when is killed")
    options = parser.parse_args()
    began = time.monotonic()
    result = asyncio.run(main(options.trials, options.store, options.seed))
    print(f"store: {options.store}, trials: {result.trials} (kill -9 each), "
          f"{time.monotonic() - began:.0f} s")
    print(f"actions sent: {result.sent}, acknowledged: {result.acknowledged}, "
          f"lost: {len(result.lost)} {result.lost[:10]}")
