"""The daily in the browser: a ranked attempt reads as one, offers no
assist the server refuses, asks before anything forfeits it, a second
press of "Daily challenge" offers practice by name, and the leaderboard
lists unfinished attempts and your own row far down.

Headless Chromium against a real server, at a phone's 390×844 and a
laptop's 1366×768.  Today's WordLink deal is pinned to deal 1 before any
page asks for it (``pin_daily_deal``), so no proof is waited for, and
the rules of the public board about new players and shared addresses
are off (every page is a new player on loopback).
"""

from __future__ import annotations

import asyncio
from typing import AsyncIterator

import pytest
from playwright.async_api import Browser, Dialog, Page, ViewportSize
from tests.races.arena_races import WireClient, pin_daily_deal, player
from tests.web.test_web_races import win_daily_deal
from tests.web.web_harness import (
    PROVEN_START_MS,
    Site,
    TIMEOUT_MS,
    board_shown,
    daily_site,
    resign,
    sign_in,
    site_fixture,
)

from server.deals.daily import utc_day
from server.model.fair_play import board_name

pytestmark = pytest.mark.browser

VIEWPORTS: list[ViewportSize] = [{"width": 390, "height": 844}, {"width": 1366, "height": 768}]
WORDLINK_DRAW_1 = "draw=1,scoring=standard"
BOTH = pytest.mark.parametrize("viewport", VIEWPORTS, ids=lambda size: f"{size['width']}x{size['height']}")


@site_fixture
async def site(browser: Browser) -> AsyncIterator[Site]:
    async with daily_site(browser) as running:
        yield running


def today(site: Site) -> str:
    return utc_day(site.server.hub.clock()).isoformat()


async def start_daily(page: Page) -> str:
    """Press "Daily challenge" for WordLink, draw 1; the game's id."""
    before = await page.evaluate("location.hash")
    await page.click('.tile[data-game="klondike"]')
    await page.click("#daily-challenge")
    await page.wait_for_selector("#board .pile", timeout=PROVEN_START_MS)
    return await board_shown(page, before)


async def dialog_text(page: Page, dialog_id: str) -> str:
    await page.wait_for_selector(f"#{dialog_id}[open]")
    return await page.inner_text(f"#{dialog_id}")


@BOTH
async def test_a_ranked_attempt_says_so_offers_no_assist_and_asks_before_resigning(
    site: Site, viewport: ViewportSize
) -> None:
    page = await site.page(viewport=viewport)
    await page.click("#open-settings")
    await page.uncheck("#setting-timer")
    await page.click("#settings button[value=close]")
    game_id = await start_daily(page)
    assert f"Daily · ranked · one attempt · {today(site)}" in await page.inner_text(".who")
    assert await page.locator('.stats [data-stat="time"]').count() == 1, "the clock shows from the first board, Timer off or on"
    for refused in ("#hint", "#finish"):
        assert await page.locator(f".toolbar {refused}").count() == 0, refused
    assert "no hints or automatic finish" in await page.inner_text("#assist-note")
    assert await page.evaluate("document.activeElement.closest('#board') !== null"), "focus lands on the board"
    await page.keyboard.press("h")
    assert await page.locator("#board .hint, #board .hint-target").count() == 0

    await page.click("#resign")
    assert "one ranked attempt" in await dialog_text(page, "confirm-resign")
    await page.click("#confirm-resign-cancel")
    await page.wait_for_selector("#confirm-resign", state="detached")
    assert await page.is_enabled("#resign"), "keeping on playing changes nothing"
    await resign(page)
    await page.wait_for_selector(".result:not([hidden])")
    assert "resigned" in await page.inner_text(".result h2")
    assert await page.evaluate("location.hash") == f"#play/{game_id}"


@BOTH
async def test_leaving_a_ranked_attempt_asks_and_says_it_forfeits(site: Site, viewport: ViewportSize) -> None:
    """Lobby, New deal and Back each ask; keeping on playing keeps the
    board, leaving resigns the attempt.  Closing the tab lets the browser ask."""
    page = await site.page(viewport=viewport)
    game_id = await start_daily(page)
    await page.go_back()
    await dialog_text(page, "confirm-leave")
    await page.click("#confirm-leave-cancel")
    await page.wait_for_function("id => location.hash === `#play/${id}`", arg=game_id)
    for leave in ("#to-lobby", "#new-deal"):
        await page.click(leave)
        text = await dialog_text(page, "confirm-leave")
        assert "forfeits" in text and today(site) in text, text
        await page.click("#confirm-leave-cancel")
        await page.wait_for_selector("#confirm-leave", state="detached")
        assert await page.evaluate("location.hash") == f"#play/{game_id}"
    assert await page.locator("#board .pile").count() > 0

    asked: list[str] = []
    answered = asyncio.Event()

    async def answer(dialog: Dialog) -> None:
        asked.append(dialog.type)
        await dialog.dismiss()
        answered.set()

    page.on("dialog", answer)
    await page.close(run_before_unload=True)
    await asyncio.wait_for(answered.wait(), TIMEOUT_MS / 1000)
    assert asked == ["beforeunload"] and not page.is_closed(), asked
    await page.click("#to-lobby")
    await page.click("#confirm-leave-ok")
    await page.wait_for_selector(".lobby")
    await page.wait_for_function(
        """async (id) => (await window.arena.request({type: "list_games"})).games.every((g) => g.game_id !== id)""",
        arg=game_id,
    )


@BOTH
async def test_a_second_daily_press_says_the_attempt_is_done_and_offers_practice(site: Site, viewport: ViewportSize) -> None:
    page = await site.page(viewport=viewport)
    await start_daily(page)
    await resign(page)
    await page.wait_for_selector(".result:not([hidden])")
    await page.click(".result button >> text=Lobby")
    await page.wait_for_selector("#daily-challenge")

    await page.click("#daily-challenge")
    text = await dialog_text(page, "confirm-practice")
    assert "one ranked attempt" in text and today(site) in text, text
    assert (await page.inner_text("#confirm-practice-ok")).strip() == "Practice today's deal"
    await page.click("#confirm-practice-cancel")
    await page.wait_for_selector("#confirm-practice", state="detached")
    assert await page.evaluate("location.hash") in ("", "#lobby")

    before = await page.evaluate("location.hash")
    await page.click("#daily-challenge")
    await page.click("#confirm-practice-ok")
    await board_shown(page, before)
    who = await page.inner_text(".who")
    assert "practice" in who and "ranked" not in who, who
    assert await page.locator(".toolbar #hint").count() == 1, "practice offers the assists again"


@BOTH
async def test_a_casual_game_under_way_asks_before_a_new_deal(site: Site, viewport: ViewportSize) -> None:
    page = await site.page(viewport=viewport)
    await page.click('.tile[data-game="klondike"]')
    before = await page.evaluate("location.hash")
    await page.click("#start-game")
    first = await board_shown(page, before)
    await page.click("#new-deal")
    second = await board_shown(page, f"#play/{first}")
    assert await page.locator("#confirm-leave").count() == 0, "a game with no move is left without a question"

    await page.keyboard.press("d")
    await page.wait_for_function("document.querySelector('.stats [data-stat=\"moves\"] dd').textContent !== '0'")
    await page.click("#new-deal")
    assert "resigns" in await dialog_text(page, "confirm-leave")
    await page.click("#confirm-leave-ok")
    await board_shown(page, f"#play/{second}")
    await page.click("#to-lobby")
    await page.wait_for_selector(".lobby")
    assert await page.locator("#confirm-leave").count() == 0, "the lobby keeps a casual game: nothing to ask"


@BOTH
async def test_the_leaderboard_lists_unfinished_attempts_and_your_row_far_down(site: Site, viewport: ViewportSize) -> None:
    """Ten players' wins are entered faster than anyone plays 128 moves,
    the page's player wins through the protocol, one more player is
    still playing: the page shows the top ten, a gap, its own row 11 with
    where that stands, then the attempt still being played."""
    page = await site.page(viewport=viewport)
    await sign_in(page, "Ann")
    store, now = site.server.store, site.server.hub.clock()
    board = board_name("klondike", WORDLINK_DRAW_1, today(site))
    clients = []
    try:
        for number in range(10):
            fast = await player(site.server.url, f"Fast{number}")
            clients.append(fast)
            await store.submit(board, fast.player_id, 10 + number, 128, now, 86_400)
        as_page = await WireClient.open(site.server.url)
        clients.append(as_page)
        await as_page.hello(token=await page.evaluate("localStorage.getItem('arena.token')"))
        await win_daily_deal(as_page, pause_seconds=0.5)
        still = await player(site.server.url, "Slow")
        clients.append(still)
        started, snapshot = await still.new_game(deal="daily", options={"draw": 1})
        assert started.ranked and snapshot.ranked_daily == today(site)
    finally:
        for client in clients:
            await client.close()

    await page.select_option("#leaderboard-variant", f"klondike/{WORDLINK_DRAW_1}")
    await page.click("#leaderboard-refresh")
    await page.wait_for_selector("#leaderboard-playing")
    ranks = await page.eval_on_selector_all("#leaderboard-table tbody:first-of-type tr", "rows => rows.map(r => r.dataset.rank ?? 'gap')")
    assert ranks == [*(str(rank) for rank in range(1, 11)), "gap", "11"], ranks
    assert await page.get_attribute("#leaderboard-table tr.me", "data-rank") == "11"
    assert (await page.inner_text("#leaderboard-me")).startswith("Your rank: 11 of 11 (")
    assert "Still playing (1)" in await page.inner_text("#leaderboard-playing")
    assert "Slow" in await page.inner_text("#leaderboard-playing")
    sizes = await page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert sizes[0] <= sizes[1], sizes
