"""Races that fit and explain themselves, in the browser: results that fit
a phone, one word for how a racer ended (the racer's line and the table
agree), a resignation with nothing stale left on screen, spectators told
when the boards open, and a spectator link with a Copy button.

A real server with a one-second countdown and a race that runs out of
time after a few seconds (``race_time_limit_seconds``), so that "Out of
time" is reached without waiting an hour; today's WordLink deal is
pinned (``pin_daily_deal``) so no race waits for a proof.
"""

from __future__ import annotations

from typing import AsyncIterator

import pytest
from playwright.async_api import Browser, Page, ViewportSize
from tests.races.arena_races import PUBLIC_BOARD_RULES_OFF, pin_daily_deal
from tests.web.test_web_races import create_race, named_page, started_race
from tests.web.web_harness import Site, open_site, resign, site_fixture

from server.deals.daily import utc_day

pytestmark = pytest.mark.browser

TIME_LIMIT_SECONDS = 6
VIEWPORTS: list[ViewportSize] = [{"width": 360, "height": 740}, {"width": 390, "height": 844}, {"width": 1366, "height": 768}]
EACH = pytest.mark.parametrize("viewport", VIEWPORTS, ids=lambda size: f"{size['width']}x{size['height']}")
BOTH = pytest.mark.parametrize("viewport", VIEWPORTS[1:], ids=lambda size: f"{size['width']}x{size['height']}")
NO_CLIPBOARD = "Object.defineProperty(navigator, 'clipboard', { value: undefined });"
"""A browser that offers no clipboard to the page (a page served over plain HTTP)."""


@site_fixture
async def site(browser: Browser) -> AsyncIterator[Site]:
    async with open_site(
        browser=browser,
        race_countdown_seconds=1.0, race_spectator_delay_seconds=1.0, race_time_limit_seconds=TIME_LIMIT_SECONDS,
        **PUBLIC_BOARD_RULES_OFF,
    ) as running:
        await pin_daily_deal(running.server.store, utc_day(running.server.hub.clock()))
        yield running
        assert not running.page_errors, running.page_errors


async def fits(page: Page) -> None:
    widths = await page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth,"
        " Math.max(...[...document.querySelectorAll('#race-results th, #race-results td')]"
        ".map((cell) => cell.getBoundingClientRect().right))]"
    )
    assert widths[0] <= widths[1] and widths[2] <= widths[1], widths


@EACH
async def test_out_of_time_reads_the_same_on_the_board_and_in_the_results(site: Site, viewport: ViewportSize) -> None:
    """On WordLink deal 7 (no secret, so Board and Replay in every row of
    the results) Bob resigns (asked in a dialog, nothing stale left), Ann
    plays on until the race's time runs out: her line and the table both
    say "Out of time", and the results fit the screen."""
    host, guest = await started_race(site, viewport, deal=7)
    await resign(guest)
    await guest.wait_for_function("document.querySelector('.game .message')?.textContent.includes('resigned')")
    assert "Really" not in await guest.inner_text("body")
    await host.wait_for_selector("#race-results:not([hidden])", timeout=(TIME_LIMIT_SECONDS + 30) * 1000)
    line = await host.inner_text(".game .message")
    assert "out of time" in line.lower() and "abandoned" not in line, line
    cells = await host.eval_on_selector_all('#race-results [data-col="result"]', "cells => cells.map(c => c.textContent)")
    assert sorted(cells) == ["Out of time", "Resigned"], cells
    for page in (host, guest):
        await page.wait_for_selector("#race-results:not([hidden])")
        assert await page.locator("#race-results [data-replay-board]").count() == 2
        await fits(page)


@BOTH
async def test_spectators_are_told_when_the_boards_open(site: Site, viewport: ViewportSize) -> None:
    host = await named_page(site, "Ann", viewport=viewport)
    await create_race(host)
    race_link = await host.input_value("#spectator-link")
    spectator = await site.page(viewport=viewport, fragment="#" + race_link.split("#", 1)[1])
    await spectator.wait_for_selector("#boards-open")
    words = await spectator.inner_text("#boards-open")
    assert "boards open when" in words and "revealed" in words, words
    assert await host.locator("#boards-open").count() == 0, "a racer is not told what spectators see"


@BOTH
@pytest.mark.parametrize("clipboard", [True, False], ids=["clipboard", "no-clipboard"])
async def test_the_spectator_link_copies_or_says_how_to(site: Site, viewport: ViewportSize, clipboard: bool) -> None:
    if clipboard:
        host = await named_page(site, "Ann", viewport=viewport, permissions=["clipboard-read", "clipboard-write"])
    else:
        host = await named_page(site, "Ann", viewport=viewport, init_script=NO_CLIPBOARD)
    await create_race(host)
    link = await host.input_value("#spectator-link")
    await host.click("#copy-spectator-link")
    if clipboard:
        await host.wait_for_function("document.querySelector('.race .message').textContent.startsWith('Link copied')")
        assert await host.evaluate("navigator.clipboard.readText()") == link
    else:
        await host.wait_for_function("document.querySelector('.race .message').textContent.includes('did not allow copying')")
        assert await host.evaluate("document.activeElement.id") == "spectator-link"
        selected = await host.evaluate("(() => { const i = document.activeElement; return i.value.slice(i.selectionStart, i.selectionEnd); })()")
        assert selected == link
