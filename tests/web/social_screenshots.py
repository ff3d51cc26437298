"""Regenerate the daily-among-friends screenshots in docs/screenshots/
(run: python -m tests.web.social_screenshots).

They are the browser tests' own scenarios (tests/web/test_web_daily_social.py)
on a real server, written here instead of to a temporary directory: the
friends' board, a ghost race and the stats screen at a phone's 390×844 and
a laptop's 1366×768, and a league on both.
"""

from __future__ import annotations

import asyncio

from server.deals.daily import utc_day
from tests.races.arena_races import PUBLIC_BOARD_RULES_OFF, pin_daily_deal
from tests.web.screenshots import OUT, ROOT
from tests.web.test_web_daily_social import LAPTOP, PHONE, daily_among_friends, leagues
from tests.web.web_harness import open_site

NAMES = ("friends-board", "ghost-race", "stats", "leagues")


async def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for viewport, suffix in ((PHONE, "-phone"), (LAPTOP, "")):
        async with open_site(**PUBLIC_BOARD_RULES_OFF) as site:
            await pin_daily_deal(site.server.store, utc_day(site.server.hub.clock()))
            await daily_among_friends(site, viewport, OUT, suffix)
    async with open_site(**PUBLIC_BOARD_RULES_OFF) as site:
        await pin_daily_deal(site.server.store, utc_day(site.server.hub.clock()))
        await leagues(site, OUT)
    for path in sorted(OUT.glob("*.png")):
        if path.name.startswith(NAMES):
            print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    asyncio.run(main())
