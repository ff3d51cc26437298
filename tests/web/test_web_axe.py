"""axe-core, run inside the page, finds no serious or critical violation
on the lobby, the settings dialog, the shortcuts overlay, each of the
four boards, a race and a replay, in the light and the dark scheme, at
390×844 and 1366×768.

A real server and headless Chromium; axe-core is the pinned npm package
(``tests.web.axe``).  The race is on today's WordLink deal, pinned so
that nothing waits for a proof, with a one-second countdown.
"""

from __future__ import annotations

from typing import AsyncIterator

import pytest
from playwright.async_api import Browser, Page, ViewportSize
from tests.races.arena_races import PUBLIC_BOARD_RULES_OFF, pin_daily_deal
from tests.web.axe import in_scheme, serious_violations
from tests.web.test_web_races import create_race, join_race, named_page
from tests.web.web_harness import (
    PROVEN_START_MS,
    Site,
    open_site,
    resign,
    site_fixture,
    start_from_lobby,
    win_nearly_won,
)

from server.deals.daily import utc_day

pytestmark = pytest.mark.browser

VIEWPORTS: list[ViewportSize] = [{"width": 390, "height": 844}, {"width": 1366, "height": 768}]
BOTH = pytest.mark.parametrize("viewport", VIEWPORTS, ids=lambda size: f"{size['width']}x{size['height']}")
GAMES = ("klondike", "broken-deck", "laras-game", "chequers")


@site_fixture
async def site(browser: Browser) -> AsyncIterator[Site]:
    async with open_site(browser=browser, race_countdown_seconds=1.0, race_spectator_delay_seconds=1.0, **PUBLIC_BOARD_RULES_OFF) as running:
        await pin_daily_deal(running.server.store, utc_day(running.server.hub.clock()))
        yield running
        assert not running.page_errors, running.page_errors


async def check_both_schemes(page: Page, what: str, found: dict[str, list[str]]) -> None:
    """Run axe in the light and the dark scheme; note what it finds under ``what``."""
    for scheme in ("light", "dark"):
        await in_scheme(page, scheme)
        violations = await serious_violations(page)
        if violations:
            found[f"{what}, {scheme}"] = violations
    await in_scheme(page, "light")


async def to_lobby(page: Page, site: Site) -> None:
    await page.goto(site.base_url + "#lobby")
    await page.wait_for_selector('#connection[data-state="online"]')
    await page.wait_for_selector(".tile")


@BOTH
async def test_the_lobby_dialogs_boards_and_replay_have_no_serious_violation(site: Site, viewport: ViewportSize) -> None:
    page = await site.page(viewport=viewport)
    found: dict[str, list[str]] = {}
    await page.wait_for_selector(".tile")
    await check_both_schemes(page, "lobby", found)
    await page.click("#open-settings")
    await page.wait_for_selector("#settings[open]")
    await check_both_schemes(page, "settings", found)
    await page.click("#settings button[value=close]")
    await page.keyboard.press("?")
    await page.wait_for_selector("#shortcuts[open]")
    await check_both_schemes(page, "shortcuts", found)
    await page.keyboard.press("Escape")

    for game in GAMES:
        await to_lobby(page, site)
        await start_from_lobby(page, game)
        await check_both_schemes(page, game, found)

    await to_lobby(page, site)
    await win_nearly_won(page)
    await page.wait_for_selector(".result:not([hidden])")
    await check_both_schemes(page, "result", found)
    await page.click("#open-replay")
    await page.wait_for_selector("#replay-position")
    await check_both_schemes(page, "replay", found)
    assert found == {}, found


@BOTH
async def test_a_race_has_no_serious_violation(site: Site, viewport: ViewportSize) -> None:
    host = await named_page(site, "Ann", viewport=viewport)
    guest = await named_page(site, "Bob", viewport=viewport)
    found: dict[str, list[str]] = {}
    await join_race(guest, await create_race(host))
    await host.wait_for_function("document.querySelectorAll('#racers tbody tr').length === 2")
    await check_both_schemes(host, "race lobby", found)
    await host.click("#start-race")
    await host.wait_for_selector("#board .pile", timeout=PROVEN_START_MS)
    await check_both_schemes(host, "race running", found)
    for page in (guest, host):
        await resign(page)
    await host.wait_for_selector("#race-results:not([hidden])")
    await check_both_schemes(host, "race results", found)
    assert found == {}, found
