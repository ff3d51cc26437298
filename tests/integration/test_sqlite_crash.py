"""``kill -9`` an ``arena serve`` on its default store, the SQLite
database of its data directory, and start it again on the same
directory: every action acknowledged during play is in the stored logs,
and every acknowledged end of a game is in its owner's record or on the
day's board.  The store commits before it answers (``synchronous=FULL``,
docs/storage.md); ``bench/play_crash.py`` and ``bench/finish_crash.py
--store sqlite`` run 100 trials each.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import AsyncIterator

import pytest
from tests.integration.arena_processes import ServerProcess
from tests.integration.convergence_trials import MANY_CLIENTS
from tests.integration.finish_trials import TrialCount, daily_win_trial, resign_trial
from tests.integration.play_trials import PlayCount, play_kill_trial
from tests.integration.trial_stores import trial_store

TRIALS = 3


@pytest.fixture
async def sqlite_server(tmp_path: Path) -> AsyncIterator[tuple[ServerProcess, str]]:
    """A server on the SQLite database of a fresh data directory, and the
    database's URL."""
    with trial_store("sqlite") as (store_url, data_dir):
        server = ServerProcess(store_url, tmp_path, "arena", MANY_CLIENTS, data_dir)
        await server.start()
        try:
            yield server, store_url
        finally:
            server.kill()


async def test_every_action_acknowledged_before_kill_9_is_in_the_sqlite_logs_after_the_restart(
    sqlite_server: tuple[ServerProcess, str],
) -> None:
    server, store_url = sqlite_server
    chance = random.Random(TRIALS)
    total = PlayCount()
    for _ in range(TRIALS):
        total.add(await play_kill_trial(server, store_url, chance))
    assert 0 < total.acknowledged < total.sent, "the kills came while moves were in flight"
    assert total.lost == [], f"{len(total.lost)} of {total.acknowledged} acknowledged actions lost"


async def test_every_end_acknowledged_before_kill_9_is_in_the_sqlite_records_after_the_restart(
    sqlite_server: tuple[ServerProcess, str],
) -> None:
    server, store_url = sqlite_server
    total = TrialCount()
    for _ in range(TRIALS):
        total.add(await resign_trial(server, store_url))
    total.add(await daily_win_trial(server, store_url))
    assert total.acknowledged >= TRIALS + 1
    assert total.lost == 0, f"{total.lost} of {total.ended} ended games not recorded: {total.lost_games}"
