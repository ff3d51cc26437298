"""Races, the daily leaderboard and race errors in the browser client,
driven by headless Chromium against a real server.

The server runs with a one-second race countdown and a one-second
spectator delay (``race_countdown_seconds``,
``race_spectator_delay_seconds``), so a whole race fits in a few seconds.
Each page is a fresh browser profile, hence its own player.  The daily
leaderboard test pins the day's WordLink deal to deal 1 before any page
asks for it (``pin_daily_deal`` from the race tests) and wins it through
the protocol with the winning line the server tests keep, once as another
player and once as the page's own player (with the page's token), then
reads the page's leaderboard panel; every page and client is a new
player on loopback playing lines at once, so the public board's rules of
identities, addresses and cadence are off (``PUBLIC_BOARD_RULES_OFF``).
"""

from __future__ import annotations

import asyncio
import re
from typing import AsyncIterator

import pytest
from tests.races.arena_races import DEAL_1_DRAW_1_WIN, PUBLIC_BOARD_RULES_OFF, WireClient, pin_daily_deal, player
from playwright.async_api import Browser, Page, ViewportSize
from tests.web.web_harness import DESKTOP, PROVEN_START_MS, Site, open_site, resign, sign_in, site_fixture

from protocol import to_server as ts
from server.deals.daily import utc_day
from server.runtime.clock import wall_clock_ms
from tests.server.arena_clock import FakeClock

pytestmark = pytest.mark.browser

COUNTDOWN_SECONDS = 1.0
DELAY_SECONDS = 1.0
LAGGING_CLOCK = "const realNow = Date.now; Date.now = () => realNow() - 600000;"
"""A page whose clock is ten minutes behind the server's."""


@site_fixture
async def site(browser: Browser) -> AsyncIterator[Site]:
    async with open_site(
        browser=browser,
        race_countdown_seconds=COUNTDOWN_SECONDS, race_spectator_delay_seconds=DELAY_SECONDS, **PUBLIC_BOARD_RULES_OFF
    ) as running:
        yield running
        assert not running.page_errors, running.page_errors


async def named_page(site: Site, name: str, **options: object) -> Page:
    page = await site.page(**options)  # type: ignore[arg-type]
    await sign_in(page, name)
    return page


async def player_id(page: Page) -> str:
    return str(await page.evaluate("window.arena.playerId()"))


def racer_cell(player: str, column: str) -> str:
    return f'#racers tr[data-player="{player}"] [data-col="{column}"]'


async def wait_for_text(page: Page, selector: str, expected: str) -> None:
    await page.wait_for_function(
        "([selector, expected]) => document.querySelector(selector)?.textContent.trim() === expected",
        arg=[selector, expected],
    )


async def create_race(page: Page, deal: str | int = "daily") -> str:
    """Create a WordLink race from the lobby; its invite code as shown.  A
    numbered deal (no secret, so every board opens after the race), which
    the lobby does not offer, goes through the page's own createRace."""
    await page.click('.tile[data-game="klondike"]')
    if isinstance(deal, int):
        await page.evaluate("deal => window.arena.createRace({game: 'klondike', options: {draw: 1}, deal})", deal)
    else:
        await page.select_option("#race-deal", deal)
        await page.click("#create-race")
    await page.wait_for_selector("#race-invite-code", timeout=PROVEN_START_MS)
    return (await page.inner_text("#race-invite-code")).strip()


async def join_race(page: Page, code: str) -> None:
    await page.fill("#race-code", code)
    await page.click("#join-race")
    await page.wait_for_selector("#racers tbody tr")


async def started_race(site: Site, viewport: ViewportSize = DESKTOP, deal: str | int = "winnable") -> tuple[Page, Page]:
    """Ann hosts, Bob joins by code, Ann starts; both have their boards."""
    host = await named_page(site, "Ann", viewport=viewport)
    guest = await named_page(site, "Bob", viewport=viewport)
    await join_race(guest, await create_race(host, deal=deal))
    await host.wait_for_function("document.querySelectorAll('#racers tbody tr').length === 2")
    await host.click("#start-race")
    for page in (host, guest):
        await page.wait_for_selector("#board .pile", timeout=PROVEN_START_MS)
    return host, guest


async def test_a_two_page_race_reaches_the_first_progress_update(site: Site) -> None:
    """Page A creates a race, page B joins by code (lower case, with its
    dash) and goes back to the lobby; A starts it, which brings B back to
    the race; both count down on the server's clock (B's own clock is ten
    minutes behind), B moves and A sees B's progress.  A spectator
    follows the race and its progress, and is offered no board: the
    race's deal is the day's secret one."""
    host = await named_page(site, "Ann")
    guest = await named_page(site, "Bob", init_script=LAGGING_CLOCK)
    code = await create_race(host)
    assert len(code) == 9 and code[4] == "-"
    race_id = (await host.evaluate("location.hash")).split("/")[1]
    await join_race(guest, code.lower())
    assert (await guest.evaluate("location.hash")) == f"#race/{race_id}"
    bob = await player_id(guest)
    await wait_for_text(host, racer_cell(bob, "state"), "Waiting")
    assert await guest.locator("#start-race").count() == 0
    assert "Waiting for Ann" in await guest.inner_text(".race-bar")
    await guest.click("#race-to-lobby")
    await guest.wait_for_selector(".lobby")

    await host.click("#start-race")
    await guest.wait_for_function("hash => location.hash === hash", arg=f"#race/{race_id}")
    for page in (host, guest):
        await page.wait_for_selector("#countdown:not([hidden])")
        seconds = int(await page.get_attribute("#countdown", "data-seconds") or "-1")
        assert 0 <= seconds <= COUNTDOWN_SECONDS, seconds
    await guest.wait_for_selector("#board .pile")
    await guest.click('#board .pile[data-pile="s"]')
    await wait_for_text(host, racer_cell(bob, "moves"), "1")
    await wait_for_text(host, racer_cell(bob, "state"), "Playing")
    assert await host.locator("[data-watch-board]").count() == 0, "a racer sees no rival's board while the race runs"

    spectator = await site.page(fragment=f"#race/{race_id}")
    await wait_for_text(spectator, racer_cell(bob, "moves"), "1")
    assert await spectator.locator("#race-invite-code").count() == 0
    assert await spectator.locator("[data-watch-board]").count() == 0, "no board of a secret deal is offered"


async def test_a_race_game_opened_from_live_games_shows_its_progress_not_its_board(site: Site) -> None:
    """While the race runs its deal is secret: a spectator who opens Bob's
    game from Live games is told how it goes and stays in the lobby."""
    _host, guest = await started_race(site)
    spectator = await site.page()
    await spectator.click(".live .refresh")
    await spectator.click('#live-games li:has-text("Bob") [data-watch]')
    toast = spectator.locator("#toast:not([hidden])")
    await toast.wait_for()
    assert "the deal is secret until it is revealed" in await toast.inner_text()
    await spectator.wait_for_selector(".lobby")
    assert await spectator.locator("#board .pile").count() == 0


async def test_the_results_table_follows_the_last_resignation_and_a_rematch_gathers_everyone(site: Site) -> None:
    """Bob moves and resigns, Ann resigns: both pages show the results
    table, the winnable race's seed is revealed and its boards open to everyone, Ann's rematch is a new race with
    both in it, and Bob's race history in the lobby lists both races."""
    host, guest = await started_race(site)
    bob = await player_id(guest)
    await guest.click('#board .pile[data-pile="s"]')
    await resign(guest)
    await wait_for_text(host, racer_cell(bob, "state"), "Resigned")
    assert await host.is_hidden("#race-results")
    await resign(host)
    for page, names in ((host, {"Ann (you, host)", "Bob"}), (guest, {"Ann (host)", "Bob (you)"})):
        await page.wait_for_selector("#race-results:not([hidden])")
        rows = await page.eval_on_selector_all(
            "#race-results tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent.trim()))"
        )
        assert {row[1] for row in rows} == names, rows
        assert [(row[0], row[2]) for row in rows] == [("–", "Resigned"), ("–", "Resigned")], rows
        assert await page.is_hidden("#racers")
        assert re.search(r"Deal seed [0-9a-f]{16}, revealed", await page.inner_text(".race-bar"))
    assert await guest.locator(f'#race-results [data-watch-board="{await player_id(host)}"]').count() == 1, "boards open after the race"

    old_hash = await host.evaluate("location.hash")
    await host.click("#rematch")
    await host.wait_for_function("previous => location.hash !== previous", arg=old_hash)
    await host.wait_for_selector("#race-invite-code", timeout=PROVEN_START_MS)
    await guest.click("#open-rematch")
    await guest.wait_for_function("hash => location.hash === hash", arg=await host.evaluate("location.hash"))
    await guest.wait_for_function("document.querySelectorAll('#racers tbody tr').length === 2")
    assert await guest.locator("#start-race").count() == 0, "whoever asked first hosts the rematch"

    await guest.click("#race-to-lobby")
    await guest.wait_for_function("document.querySelectorAll('#race-history li').length === 2")
    assert "Resigned" in await guest.inner_text("#race-history")


@site_fixture
async def timed_site(browser: Browser) -> AsyncIterator[tuple[Site, FakeClock]]:
    """A site whose games' clock moves only when the test moves it, so a
    game's time is what the test says, however loaded the machine."""
    clock = FakeClock()
    clock.ms = wall_clock_ms()
    async with open_site(browser=browser, clock=clock, **PUBLIC_BOARD_RULES_OFF) as running:
        yield running, clock
        assert not running.page_errors, running.page_errors


async def test_the_leaderboard_panel_ranks_a_daily_win_and_shows_your_rank(timed_site: tuple[Site, FakeClock]) -> None:
    site, clock = timed_site
    day = utc_day(site.server.hub.clock())
    await pin_daily_deal(site.server.store, day)
    page = await named_page(site, "Ann")
    token = await page.evaluate("localStorage.getItem('arena.token')")
    faster = await player(site.server.url, "Zed")
    await win_daily_deal(faster)
    as_page = await WireClient.open(site.server.url)
    await as_page.hello(token=token)
    await win_daily_deal(as_page, pause_seconds=1.0, clock=clock)
    for client in (faster, as_page):
        await client.close()

    await page.select_option("#leaderboard-variant", "klondike/draw=1,scoring=standard")
    await page.click("#leaderboard-refresh")
    await page.wait_for_function("document.querySelectorAll('#leaderboard-table tbody tr').length === 2")
    rows = await page.eval_on_selector_all(
        "#leaderboard-table tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent.trim()))"
    )
    assert [(row[0], row[1], row[3]) for row in rows] == [("1", "Zed", "128"), ("2", "Ann", "128")]
    assert await page.get_attribute("#leaderboard-table tr.me", "data-rank") == "2"
    assert (await page.inner_text("#leaderboard-me")).startswith("Your rank: 2 of 2 (")
    assert day.isoformat() in await page.inner_text("#leaderboard-table caption")

    await page.reload()
    row = '#records-table tr[data-record="klondike/draw=1,scoring=standard"]'
    await page.wait_for_selector(row)
    cells = await page.eval_on_selector(row, "row => [...row.cells].map(c => c.textContent.trim())")
    assert cells[:2] == ["WordLink · draw 1, standard", "1/1"] and cells[3] == "128", cells

    await page.select_option("#leaderboard-variant", "klondike/draw=1,scoring=standard")
    await page.click("#leaderboard-table button.link >> text=Zed")
    await page.wait_for_function("document.querySelector('#records h2').textContent === 'Records of Zed'")
    await page.wait_for_selector(row)
    await page.click("#records-mine")
    await page.wait_for_function("document.querySelector('#records h2').textContent === 'Your records'")


async def win_daily_deal(client: WireClient, pause_seconds: float = 0.0, clock: FakeClock | None = None) -> None:
    """Win today's (pinned) WordLink daily as a ranked attempt; a pause
    after the first move makes the time longer (on ``clock``, moved on by
    the pause, where the server runs on one)."""
    started, _ = await client.new_game(deal="daily", options={"draw": 1})
    assert started.ranked
    for number, move in enumerate(DEAL_1_DRAW_1_WIN):
        reply = await client.request(ts.Move, game_id=started.game_id, move=move)
        assert reply.type == "diff", reply
        if number == 0 and clock is not None:
            clock.ms += round(pause_seconds * 1000)
        elif number == 0:
            await asyncio.sleep(pause_seconds)
    assert reply.type == "diff" and reply.status == "won"


async def test_a_wrong_invite_code_gets_its_sentence_and_changes_nothing(site: Site) -> None:
    page = await named_page(site, "Ann")
    await page.fill("#race-code", "ZZZZ-ZZZZ")
    await page.click("#join-race")
    toast = page.locator("#toast:not([hidden])")
    await toast.wait_for()
    assert (await toast.inner_text()).startswith("No race has that code or link.")
    assert await page.evaluate("location.hash") in ("", "#lobby")
    assert await page.input_value("#race-code") == "ZZZZ-ZZZZ"


async def test_a_race_shows_progress_bars_and_ends_with_a_banner_and_results_that_fit(site: Site) -> None:
    """A race you can feel at 1366×800: each racer's
    cards home as a bar; at the end a banner with the places, and a
    results table within the page (it was 1,411 px wide)."""
    wide = {"width": 1366, "height": 800}
    host = await named_page(site, "Ann", viewport=wide)
    guest = await named_page(site, "Bob", viewport=wide)
    await join_race(guest, await create_race(host, deal="winnable"))
    await host.wait_for_function("document.querySelectorAll('#racers tbody tr').length === 2")
    await host.click("#start-race")
    await host.wait_for_selector("#board .pile", timeout=PROVEN_START_MS)
    bars = await host.eval_on_selector_all(
        "#racers .progress[role=progressbar]", "bars => bars.map(b => [b.getAttribute('aria-valuenow'), b.getAttribute('aria-valuemax')])"
    )
    assert bars == [["0", "52"], ["0", "52"]], bars
    for page in (guest, host):
        await resign(page)
    for page in (host, guest):
        await page.wait_for_selector("#race-banner:not([hidden])")
        assert "Nobody finished the deal." in await page.inner_text("#race-banner")
        widths = await page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth,"
            " Math.max(...[...document.querySelectorAll('#race-results button')].map(b => b.getBoundingClientRect().right), 0)]"
        )
        assert widths[0] <= widths[1] == wide["width"] and widths[2] < wide["width"] - 4, widths


async def test_after_the_race_each_racers_board_opens_as_a_replay(site: Site) -> None:
    """Bob draws once and resigns, Ann resigns: from the results, Bob
    replays his own board (the draw, then the resignation) and Ann's."""
    host, guest = await started_race(site)
    ann, bob = await player_id(host), await player_id(guest)
    assert await guest.locator("[data-replay-board]").count() == 0, "no replay while the race runs"
    await guest.click('#board .pile[data-pile="s"]')
    await resign(guest)
    await resign(host)
    await guest.wait_for_selector("#race-results:not([hidden])")
    await guest.click(f'#race-results [data-replay-board="{bob}"]')
    await guest.wait_for_function("document.getElementById('replay-position')?.textContent === 'Step 2 of 2'")
    labels = await guest.eval_on_selector_all("#move-list li > button", "items => items.map(b => b.textContent)")
    assert labels == ["Deal", "draw one", "Resigned"]
    await guest.click("#replay-first")
    await guest.wait_for_function("document.getElementById('replay-position').textContent === 'Step 0 of 2'")
    await guest.go_back()
    await guest.click(f'#race-results [data-replay-board="{ann}"]')
    await guest.wait_for_function("document.getElementById('replay-position')?.textContent === 'Step 1 of 1'")
