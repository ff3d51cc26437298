"""Finished games lost to ``kill -9``: target 0.

Each trial: three players on one ``arena serve`` process (real Redis, real
WebSocket clients) start a game, make a move and resign at once; the
process is killed with SIGKILL the moment the first resignation is
acknowledged, then started again on the same Redis.  A game counts as
lost if its log ends with the resignation but its owner's record (or its
final header) does not show it.  Every tenth trial is instead a ranked
daily win, killed the moment the winning move is acknowledged, lost if it
is not on the day's leaderboard after the restart.

To see that the trials hit the window at all, run the same script
against an older checkout (``--root``), whose server wrote the end after
the acknowledgement in several round trips.  Redis runs with
``appendfsync always``; all clients come from 127.0.0.1, so the limit of
new identities per address is lifted.

    python bench/finish_crash.py               # 100 trials
    python bench/finish_crash.py --root /tmp/old-checkout
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "server"), str(ROOT / "tests" / "integration")]

import arena_processes  # noqa: E402
from finish_trials import TrialCount, daily_win_trial, resign_trial  # noqa: E402
from redis_server import RedisServer  # noqa: E402

from server.runtime.progress import ProgressLine  # noqa: E402

DAILY_EVERY = 10


async def main(trials: int, root: Path | None) -> TrialCount:
    if root is not None:
        arena_processes.ROOT = root
    os.environ["ARENA_IDENTITIES_PER_HOUR"] = "1000000"
    total = TrialCount()
    with RedisServer(persistent=True) as redis, tempfile.TemporaryDirectory() as directory:
        server = arena_processes.ServerProcess(redis.url, Path(directory), "arena")
        await server.start()
        progress = ProgressLine(every=5.0)
        try:
            for trial in range(1, trials + 1):
                if trial % DAILY_EVERY == 0:
                    total.add(await daily_win_trial(server, redis.url))
                else:
                    total.add(await resign_trial(server, redis.url))
                progress(trial, trials, f"trials, {total.lost} lost so far")
        finally:
            server.kill()
    return total


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--root", type=Path, help="run the server of another checkout (a baseline)")
    options = parser.parse_args()
    result = asyncio.run(main(options.trials, options.root))
    print(f"trials: {options.trials} (kill -9 each)")
    print(f"ended games (log ends): {result.ended}, acknowledged: {result.acknowledged}")
    print(f"lost: {result.lost} (acknowledged: {result.lost_acknowledged}) {result.lost_games[:10]}")
