"""A game's end survives ``kill -9`` right after it was acknowledged.

Before the outbox, the final header, the record, the Vegas earnings and
the leaderboard entry were separate writes after the acknowledgement, and
a kill between them lost the rest (5 of 30 finished games in
``bench/finish_crash.py``).
Now the append of the last action opens the game's outbox and the restart
settles it before it listens.  ``bench/finish_crash.py`` runs 100 trials.
"""

from __future__ import annotations

import pytest
from tests.integration.arena_processes import ServerStarter
from tests.integration.finish_trials import TrialCount, daily_win_trial, resign_trial
from tests.redis_server import RedisServer

pytestmark = pytest.mark.redis

TRIALS = 4


async def test_every_end_acknowledged_before_kill_9_is_in_the_records_after_the_restart(
    own_redis_server: RedisServer, arena_processes: ServerStarter
) -> None:
    server = await arena_processes(own_redis_server.url)
    total = TrialCount()
    for _ in range(TRIALS):
        total.add(await resign_trial(server, own_redis_server.url))
    assert total.acknowledged >= TRIALS
    assert total.lost == 0, f"{total.lost} of {total.ended} ended games not recorded: {total.lost_games}"


async def test_a_ranked_daily_win_acknowledged_before_kill_9_is_on_the_leaderboard_after_the_restart(
    own_redis_server: RedisServer, arena_processes: ServerStarter
) -> None:
    server = await arena_processes(own_redis_server.url)
    count = await daily_win_trial(server, own_redis_server.url)
    assert count.lost == 0, f"the win of {count.lost_games} is not on the leaderboard"
