"""Preparing ranked deals ahead (``server.deals.keeper``): a server proves
tomorrow's dailies by itself, so ``daily`` shows their commitments before
the day; ``arena prepare-dailies`` does a day by hand.  The keeper is
the hub's, so a server here is its hub in memory; the command runs as
the process a user starts."""

from __future__ import annotations

import asyncio
import re
from datetime import datetime, timedelta, timezone

from tests.client.arena_cli import run
from tests.races.arena_races import MemoryArena, race_settings

from protocol import to_server as ts
from server.deals.daily import daily_variants

WAIT_SECONDS = 600.0
"""Bounds a hang only: proving every variant's deal for tomorrow took over
120 s beside two CPU burners on a loaded 2-core machine
(``bench/stress_suite.py``); the loop ends as soon as they are in."""


async def test_a_server_commits_to_tomorrows_dailies_by_itself() -> None:
    settings = race_settings(prepare_dailies=True)
    async with MemoryArena(settings) as server:
        client = await server.client()
        tomorrow = (datetime.now(timezone.utc).date() + timedelta(days=1)).isoformat()
        async with asyncio.timeout(WAIT_SECONDS):
            while True:
                info = await client.request(ts.Daily, date=tomorrow)
                assert info.type == "daily_info", info
                if len(info.deals) >= len(daily_variants()):
                    break
                await asyncio.sleep(0.2)
        assert all(deal.seed is None and len(deal.commitment) == 64 for deal in info.deals), "committed, not revealed"
        await client.close()


async def test_arena_prepare_dailies_prints_a_commitment_per_variant() -> None:
    code, out, err = await run("-m", "server.cli", "prepare-dailies", "--date", "2026-03-20")
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == len(daily_variants()) and all(re.fullmatch(r"\S+/2026-03-20  commitment [0-9a-f]{64}", line) for line in lines)
    assert f"{len(daily_variants())}/{len(daily_variants())}" in err and "ETA" in err, "progress with an ETA on standard error"
