"""The phone uses the screen, at 390×844 and 360×740
with touch: card size from the viewport, one row of icon buttons fixed at
the bottom, the board between the counters and that toolbar, and no
horizontal overflow, for all four games and the race screen.
"""

from __future__ import annotations

from typing import Any, AsyncIterator

import pytest
from playwright.async_api import Browser, Page, ViewportSize
from tests.web.web_harness import (
    PROVEN_START_MS,
    Site,
    cards_settled,
    open_site,
    resign,
    sign_in,
    site_fixture,
    start_from_lobby,
)

pytestmark = pytest.mark.browser

PHONES: list[ViewportSize] = [{"width": 390, "height": 844}, {"width": 360, "height": 740}]
# The narrowest card each game may have on a phone and still be read
# (WordLink's were 46 px wide at 390 px before, on a quarter of the screen).
READABLE_CARD_PX = {"klondike": 45, "broken-deck": 35, "laras-game": 36, "chequers": 34}

MEASURE = """() => {
    const box = (node) => node.getBoundingClientRect();
    const visible = (node) => node.offsetParent !== null || getComputedStyle(node).position === 'fixed';
    const toolbar = document.querySelector('.toolbar');
    const buttons = [...toolbar.querySelectorAll('button')].filter(visible);
    const cards = [...document.querySelectorAll('#board .card, #board .count')];
    return {
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
        toolbarPosition: getComputedStyle(toolbar).position,
        toolbarTop: box(toolbar).top,
        toolbarBottom: box(toolbar).bottom,
        buttonTops: buttons.map((b) => Math.round(box(b).top)),
        buttonNames: buttons.map((b) => b.getAttribute('aria-label')),
        left: Math.min(...cards.map((c) => box(c).left)),
        right: Math.max(...cards.map((c) => box(c).right)),
        bottom: Math.max(...cards.map((c) => box(c).bottom)),
        cardWidth: box(document.querySelector('#board .card')).width,
        corner: parseFloat(getComputedStyle(document.querySelector('#board .card.face .corner')).fontSize),
    };
}"""


@site_fixture
async def site(browser: Browser) -> AsyncIterator[Site]:
    async with open_site(browser=browser, race_countdown_seconds=1, race_spectator_delay_seconds=1) as running:
        yield running
        assert not running.page_errors, running.page_errors


async def phone_page(site: Site, phone: ViewportSize) -> Page:
    return await site.page(viewport=phone, has_touch=True, is_mobile=True)


def check_screen(shown: dict[str, Any], phone: ViewportSize, where: str) -> None:
    width, height = phone["width"], phone["height"]
    assert shown["scrollWidth"] <= shown["clientWidth"] == width, (where, shown)
    assert shown["toolbarPosition"] == "fixed" and abs(shown["toolbarBottom"] - height) < 1, (where, shown)
    assert len(set(shown["buttonTops"])) == 1, f"{where}: the toolbar wraps: {shown['buttonTops']}"
    assert all(shown["buttonNames"]), f"{where}: a button without words: {shown['buttonNames']}"
    assert shown["left"] >= 0 and shown["right"] <= width, (where, shown)


@pytest.mark.parametrize("phone", PHONES, ids=lambda phone: f"{phone['width']}x{phone['height']}")
async def test_each_game_fills_a_phone_without_overflow(site: Site, phone: ViewportSize) -> None:
    page = await phone_page(site, phone)
    for game, card_px in READABLE_CARD_PX.items():
        await page.goto(site.base_url + "#lobby")
        await page.wait_for_selector('.tile[data-game="klondike"]')
        await start_from_lobby(page, game, deal=5)
        shown = await page.evaluate(MEASURE)
        check_screen(shown, phone, game)
        assert shown["cardWidth"] >= card_px * phone["width"] / 360, (game, shown["cardWidth"])
        assert shown["corner"] >= 11, (game, shown["corner"])
        assert shown["bottom"] <= shown["toolbarTop"], f"{game}: cards hidden under the toolbar: {shown}"


async def started_phone_race(site: Site, phone: ViewportSize) -> tuple[Page, Page]:
    host, guest = await phone_page(site, phone), await phone_page(site, phone)
    await sign_in(host, "Ann")
    await sign_in(guest, "Bob")
    await host.click('.tile[data-game="klondike"]')
    await host.select_option("#race-deal", "winnable")
    await host.click("#create-race")
    await host.wait_for_selector("#race-invite-code", timeout=PROVEN_START_MS)
    code = (await host.inner_text("#race-invite-code")).strip()
    await guest.fill("#race-code", code)
    await guest.click("#join-race")
    await host.wait_for_function("document.querySelectorAll('#racers tbody tr').length === 2")
    lobby = await host.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert lobby[0] <= lobby[1] == phone["width"], f"the race's lobby overflows: {lobby}"
    await host.click("#start-race")
    for page in (host, guest):
        await page.wait_for_selector("#board .pile", timeout=PROVEN_START_MS)
        await cards_settled(page)
    return host, guest


@pytest.mark.parametrize("phone", PHONES, ids=lambda phone: f"{phone['width']}x{phone['height']}")
async def test_the_race_screen_fits_a_phone_while_racing_and_at_the_results(site: Site, phone: ViewportSize) -> None:
    host, guest = await started_phone_race(site, phone)
    for page in (host, guest):
        check_screen(await page.evaluate(MEASURE), phone, "race")
    for page in (guest, host):
        await resign(page)
    for page in (host, guest):
        await page.wait_for_selector("#race-results:not([hidden])")
        widths = await page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth,"
            " document.getElementById('race-results').getBoundingClientRect().right]"
        )
        assert widths[0] <= widths[1] == phone["width"] and widths[2] <= phone["width"], widths
