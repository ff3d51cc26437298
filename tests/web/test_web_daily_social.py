"""The daily among friends in the browser, driven by headless Chromium
against a real server, at a phone's 390×844 and a laptop's 1366×768: the
friends' board beside the global one (live as a friend plays), a ghost
race beside a ranked daily attempt, the share text after it, the stats
screen's charts, a shared daily's link, and leagues from creation to
removal.

The page's friends are Python protocol clients (one of them signed in
with the page's own token to send the friend request), so one browser
per player is enough; the day's WordLink deal is pinned to deal 1, whose
winning line the tests know, and the public board's rules are off (every
player here comes from one address).  Each scenario also takes the
screenshots docs/social.md and docs/web.md show (``shots``): the tests
write them to a temporary directory, ``python -m tests.web.social_screenshots``
to docs/screenshots/.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, ViewportSize
from tests.npm_tools import npm_tools
from tests.races.arena_races import DEAL_1_DRAW_1_WIN, WireClient, player
from tests.server.test_friends import befriend
from tests.web.test_web_friends import named_page, no_overflow, player_id
from tests.web.test_web_races import win_daily_deal
from tests.web.routed_socket import routed
from tests.web.web_harness import Site, daily_site, site_fixture

from protocol import to_server as ts
from server.deals.daily import utc_day

pytestmark = pytest.mark.browser

PHONE: ViewportSize = {"width": 390, "height": 844}
LAPTOP: ViewportSize = {"width": 1366, "height": 768}
VARIANT = "klondike/draw=1,scoring=standard"
CARD_CODE = re.compile(
    r"(?:10|\b[A2-9TJQK])[SHDC♠♥♦♣](?!\w)|\b(?:Ace|King|Queen|Jack|Ten|Nine|Eight|Seven|Six|Five|Four|Three|Two|\d+) of "
    r"(?:spades|hearts|diamonds|clubs)\b"
)
"""A card as any screen could spell it (``QS``, ``10♥``, "Queen of clubs"): none may show on the social screens."""
CLIPBOARD = ["clipboard-read", "clipboard-write"]


@site_fixture
async def site(browser: Browser) -> AsyncIterator[Site]:
    async with daily_site(browser) as running:
        yield running


def phone_options(viewport: ViewportSize) -> dict[str, bool]:
    return {"has_touch": viewport is PHONE, "is_mobile": viewport is PHONE}


async def as_page_player(site: Site, page: Page) -> WireClient:
    """A protocol client signed in as the page's own player (its token)."""
    client = await WireClient.open(site.server.url)
    await client.hello(token=str(await page.evaluate("localStorage.getItem('arena.token')")))
    return client


async def no_card_in(page: Page, selector: str) -> None:
    """What the screen shows a person and a screen reader holds no card."""
    text = await page.evaluate("s => [...document.querySelectorAll(s)].map(n => n.textContent + ' ' + "
                               "[...n.querySelectorAll('[aria-label]')].map(e => e.getAttribute('aria-label')).join(' ')).join(' ')",
                               selector)
    assert text.strip(), f"nothing under {selector}"
    assert not CARD_CODE.search(text), f"a card code in {selector}: {CARD_CODE.search(text)}"


async def accessible(page: Page, selector: str) -> None:
    """axe-core finds nothing against WCAG 2 A and AA under ``selector``."""
    if not await page.evaluate("typeof window.axe === 'object'"):
        await page.add_script_tag(path=str(npm_tools() / "axe-core" / "axe.min.js"))
    violations = await page.evaluate(
        "s => axe.run(document.querySelector(s), {runOnly: ['wcag2a', 'wcag2aa']})"
        ".then(r => r.violations.map(v => `${v.id}: ${v.nodes.map(n => n.target.join(' ')).join(', ')}`))", selector)
    assert not violations, violations


async def play_line(page: Page, moves: tuple[str, ...] | list[str]) -> None:
    """Send moves as the page's player in the game it shows."""
    for move in moves:
        await page.evaluate("move => window.arena.request({type: 'move', game_id: location.hash.split('/')[1], move})", move)


async def shot(page: Page, shots: Path, name: str, selector: str | None = None) -> None:
    """A picture of the page (or one part), the toast of the last click hidden."""
    await page.evaluate("document.getElementById('toast').hidden = true")
    await page.wait_for_function("!document.getAnimations().some(a => a.playState === 'running')")
    if selector is None:
        await page.screenshot(path=shots / f"{name}.png")
    else:
        await page.locator(selector).screenshot(path=shots / f"{name}.png")


async def daily_among_friends(site: Site, viewport: ViewportSize, shots: Path, suffix: str = "") -> None:
    """Bob won today's daily; Cal starts it while Ann's lobby shows the
    friends' board (live); Ann plays it racing Bob's ghost (then the
    leader's, who is Bob), shares the result, reads her stats, opens the
    share link."""
    ann = await named_page(site, "Ann", viewport=viewport, **phone_options(viewport))
    await ann.context.grant_permissions(CLIPBOARD)
    own, bob, cal = await as_page_player(site, ann), await player(site.server.url, "Bob"), await player(site.server.url, "Cal")
    await befriend(own, bob)
    await befriend(own, cal)
    bob_id, cal_id = bob.player_id, cal.player_id
    await win_daily_deal(bob, pause_seconds=2.0)

    await ann.click(".live .refresh")
    board = "#friends-board-table"
    await ann.wait_for_selector(f'{board} tr[data-player="{bob_id}"][data-state="finished"]')
    assert await ann.input_value("#friends-board-variant") == VARIANT
    assert (await ann.inner_text(f'{board} tr[data-player="{bob_id}"]')).split()[:3] == ["1", "Bob", "Won"]
    assert "Not started" in await ann.inner_text(f"{board} tr.me")

    started, _ = await cal.new_game(deal="daily", options={"draw": 1})
    for move in DEAL_1_DRAW_1_WIN[:3]:
        assert (await cal.request(ts.Move, game_id=started.game_id, move=move)).type == "diff"
    cal_row = f'{board} tr[data-player="{cal_id}"][data-state="playing"]'
    await ann.wait_for_function("s => document.querySelector(s)?.textContent.includes('3 actions')", arg=cal_row)
    await no_card_in(ann, "#friends-board")
    await accessible(ann, "#friends-board")
    await no_overflow(ann)
    await shot(ann, shots, f"friends-board{suffix}", "#friends-board")

    await ann.click("#daily-challenge")
    await ann.wait_for_selector("#board .pile")
    await ann.wait_for_selector(f'#ghost-choice option[value="{bob_id}"]', state="attached")
    await ann.select_option("#ghost-choice", bob_id)
    await ann.click("#race-ghost")
    await ann.wait_for_selector(f'#ghost-bars li[data-ghost="{bob_id}"]')
    await ann.select_option("#ghost-choice", "leader")
    await ann.click("#race-ghost")
    await ann.wait_for_function("s => document.querySelector(s)?.textContent === 'Bob (leader)'",
                                arg=f'#ghost-bars li[data-ghost="{bob_id}"] .ghost-name')
    assert await ann.locator("#ghost-bars li.ghost-line:not(.you)").count() == 1, "the leader is Bob: one bar, not two"
    # Bob's ghost wins at Ann's clock's 2 s and more: the server paces it.
    await ann.wait_for_selector(f'#ghost-bars li[data-ghost="{bob_id}"][data-state="won"]')
    assert "52/52" in await ann.inner_text(f'#ghost-bars li[data-ghost="{bob_id}"]')
    assert await ann.get_attribute('#ghost-bars li.you .progress', "aria-valuenow") == "0"
    await play_line(ann, DEAL_1_DRAW_1_WIN[:40])
    await ann.wait_for_function("document.querySelector('#ghost-bars li.you .progress').getAttribute('aria-valuenow') !== '0'")
    await no_card_in(ann, "#ghosts")
    with pytest.raises(AssertionError, match="a card code"):
        await no_card_in(ann, "#board")  # the scan sees cards where there are some
    await accessible(ann, "#ghosts")
    await no_overflow(ann)
    await shot(ann, shots, f"ghost-race{suffix}")

    await play_line(ann, DEAL_1_DRAW_1_WIN[40:])
    await ann.wait_for_selector("#result-share-text")
    text = await ann.inner_text("#result-share-text")
    link = f"{site.base_url.rstrip('/')}/#daily={VARIANT}/{utc_day(site.server.hub.clock()).isoformat()}"
    assert text.startswith("Solitaire Arena daily · WordLink"), text
    assert "Won in" in text and text.strip().endswith(link), text
    await ann.click("#result-share-button")
    await ann.wait_for_selector("#toast:not([hidden])")
    assert await ann.evaluate("navigator.clipboard.readText()") == text
    await no_card_in(ann, "#ghosts")

    await ann.click("#to-lobby")
    await ann.click("#open-stats")
    await ann.wait_for_selector("#stats-summary")
    assert await ann.input_value("#stats-variant") == VARIANT
    assert (await ann.inner_text('#stats-summary [data-stat="days-won"] dd')) == "1"
    assert (await ann.inner_text('#stats-summary [data-stat="current-streak"] dd')) == "1"
    histogram = await ann.get_attribute("#stats-histogram-svg", "aria-label")
    assert histogram is not None and "2 players won it. You are 2nd, in the top 100%." in histogram, histogram
    assert await ann.get_attribute("#stats-histogram-svg", "role") == "img"
    assert await ann.locator("#stats-histogram-svg rect.bar.yours").count() == 1
    assert await ann.locator("#stats-calendar-svg rect.day").count() == 84
    assert await ann.locator("#stats-calendar-svg rect.day.won").count() == 1
    assert "1 day won" in (await ann.get_attribute("#stats-calendar-svg", "aria-label") or "")
    assert await ann.locator("#stats-histogram table.visually-hidden tbody tr").count() == 9
    assert await ann.inner_text("#stats-share-text") == text
    await no_card_in(ann, "#stats-screen")
    await accessible(ann, "#stats-screen")
    await no_overflow(ann)
    await shot(ann, shots, f"stats{suffix}")

    await ann.goto(link)
    await ann.wait_for_selector('#daily-friends-table tr.me[data-state="finished"]')
    assert "WordLink" in await ann.inner_text("#daily-screen h1")
    assert await ann.locator("#play-daily").count() == 0, "a day already played offers no new attempt"
    assert await ann.locator("#daily-histogram-svg rect.bar.yours").count() == 1
    await no_card_in(ann, "#daily-screen")
    await no_overflow(ann)
    await ann.goto(link.replace("draw=1", "draw=9"))
    await ann.wait_for_function("document.querySelector('#daily-screen [role=alert]')?.textContent === 'This server has no such daily.'")
    for client in (own, bob, cal):
        await client.close()


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])
async def test_friends_board_ghost_race_share_and_stats(site: Site, viewport: ViewportSize, tmp_path: Path) -> None:
    await daily_among_friends(site, viewport, tmp_path)


async def test_the_share_text_goes_on_a_result_card_shown_after_it(site: Site) -> None:
    """On a phone the result card covers the ghost area: the share text
    placed there while the card was not shown yet moves onto the card
    when it shows, above its buttons, and its button copies the text."""
    page = await named_page(site, "Ann", viewport=PHONE, **phone_options(PHONE))
    await page.context.grant_permissions(CLIPBOARD)
    socket = await routed(page)
    # The share text is placed before the result card shows, as it is when
    # the day's variants are known already and the game's end comes a
    # moment after its last move.
    socket.hold({"game_over"})
    await page.click("#daily-challenge")
    await page.wait_for_selector("#board .pile")
    await play_line(page, DEAL_1_DRAW_1_WIN)
    await page.wait_for_selector(".ghost-picker #result-share-text")
    assert await page.locator(".result").is_hidden(), "the game's end is held back"

    assert socket.held, "the game's end was held back"
    socket.release()
    await page.wait_for_selector(".result:not([hidden]) #result-share-text")
    assert await page.locator(".ghost-picker #result-share-text").count() == 0
    assert await page.evaluate("document.querySelector('.result .actions').previousElementSibling.id") == "result-share"
    await page.click("#result-share-button")
    await page.wait_for_selector("#toast:not([hidden])")
    assert await page.evaluate("navigator.clipboard.readText()") == await page.inner_text("#result-share-text")


async def leagues(site: Site, shots: Path) -> None:
    """Ann (laptop) creates a league and copies its invite link; Bob
    (phone) opens it and joins; Bob wins the day; both see the board and
    the week's standings; Ann removes Bob, who is told so, and draws a
    new code; Ann leaves, which ends the league."""
    ann = await named_page(site, "Ann", viewport=LAPTOP)
    await ann.context.grant_permissions(CLIPBOARD)
    await ann.click("#open-leagues")
    await ann.wait_for_selector("#no-leagues")
    await ann.fill("#league-name", "Lunch")
    assert await ann.is_checked(f'.create-league input[data-variant="{VARIANT}"]')
    await ann.click("#create-league")
    await ann.wait_for_selector("#league-title")
    code = (await ann.inner_text("#league-code")).strip()
    assert re.fullmatch(r"[0-9A-Z]{4}-[0-9A-Z]{4}", code), code
    await ann.click("#copy-league-link")
    await ann.wait_for_selector("#toast:not([hidden])")
    link = await ann.evaluate("navigator.clipboard.readText()")
    assert link == f"{site.base_url.rstrip('/')}/#league={code}"

    bob = await named_page(site, "Bob", viewport=PHONE, **phone_options(PHONE))
    await bob.goto(link)
    await bob.wait_for_selector("#league-offer")
    assert code in await bob.inner_text("#league-offer")
    await bob.click("#accept-league")
    await bob.wait_for_function("document.querySelectorAll('#league-members li').length === 2")
    assert await bob.locator("#reissue-league-code").count() == 0, "only the owner re-issues the code"
    bob_id = await player_id(bob)
    bob_client = await as_page_player(site, bob)
    await win_daily_deal(bob_client)
    await bob_client.close()

    await ann.click("#league-refresh")
    await ann.wait_for_selector(f'#league-board tr[data-player="{bob_id}"][data-state="finished"]')
    await ann.wait_for_selector(f'#league-standings tr[data-player="{bob_id}"]')
    standing = f'#league-standings tr[data-player="{bob_id}"]'
    assert [await ann.inner_text(f"{standing} > :nth-child({column})") for column in (1, 3, 4)] == ["1", "10", "1"]
    await ann.wait_for_function("document.querySelectorAll('#league-members li').length === 2")
    await no_card_in(ann, "#league")
    await accessible(ann, "#leagues-screen")
    await no_overflow(ann)
    await shot(ann, shots, "leagues")
    await bob.click("#league-refresh")
    await bob.wait_for_selector(f'#league-standings tr.me[data-player="{bob_id}"]')
    await no_card_in(bob, "#league")
    await no_overflow(bob)
    await shot(bob, shots, "leagues-phone")

    await ann.click(f'#league-members [data-remove="{bob_id}"]')
    await ann.wait_for_function("document.querySelectorAll('#league-members li').length === 1")
    await bob.click("#league-refresh")
    await bob.wait_for_function("document.getElementById('toast').textContent.startsWith('You are in no such league')")
    await ann.click("#reissue-league-code")
    await ann.wait_for_function("old => document.getElementById('league-code').textContent !== old", arg=code)
    await ann.click("#leave-league")
    await ann.wait_for_selector("#no-leagues")


async def test_a_league_from_its_creation_to_its_end(site: Site, tmp_path: Path) -> None:
    await leagues(site, tmp_path)


async def test_a_ghost_runs_on_after_the_page_reconnects(site: Site) -> None:
    """A ghost lives on its connection: after a reconnection the page
    asks for it again, and it goes on from the page's clock to its win."""
    ann = await named_page(site, "Ann", viewport=LAPTOP)
    own, bob = await as_page_player(site, ann), await player(site.server.url, "Bob")
    await befriend(own, bob)
    await win_daily_deal(bob, pause_seconds=15.0)
    await ann.click(".live .refresh")
    await ann.wait_for_selector(f'#friends-board-table tr[data-player="{bob.player_id}"]')
    await ann.click("#daily-challenge")
    await ann.wait_for_selector(f'#ghost-choice option[value="{bob.player_id}"]', state="attached")
    await ann.select_option("#ghost-choice", bob.player_id)
    await ann.click("#race-ghost")
    bar = f'#ghost-bars li[data-ghost="{bob.player_id}"]'
    await ann.wait_for_selector(f'{bar}[data-state="playing"]')
    await ann.evaluate("window.arena.connection.reconnectNow()")
    await ann.wait_for_selector('#connection[data-state="online"]')
    assert await ann.get_attribute(bar, "data-state") == "playing", "the ghost must still be running when the page reconnects"
    await ann.wait_for_selector(f'{bar}[data-state="won"]', timeout=60_000)
    for client in (own, bob):
        await client.close()


async def test_an_attempt_started_on_another_device_has_its_ghost_bars(site: Site) -> None:
    """The page knows a ranked attempt from the server's snapshot, not from
    having started it: one begun by the same player's other client, then
    opened here, offers ghosts; a casual game of the same player does not."""
    ann = await named_page(site, "Ann", viewport=LAPTOP)
    own = await as_page_player(site, ann)
    casual, _ = await own.new_game(deal=3, options={"draw": 1})
    await show_game(ann, casual.game_id)
    assert await ann.locator("#ghosts").count() == 0, "a casual game has no ghost bars"
    attempt, _ = await own.new_game(deal="daily", options={"draw": 1})
    await show_game(ann, attempt.game_id)
    assert await ann.locator("#ghosts #ghost-choice").count() == 1, "the ranked attempt offers ghosts"
    await own.close()


async def show_game(page: Page, game_id: str) -> None:
    """Open one of the page's player's games and wait until its screen
    shows that game's view (the moment the ghost bars are decided)."""
    await page.evaluate("id => { location.hash = '#play/' + id; }", game_id)
    await page.wait_for_function("id => window.arena.screen?.mirror?.gameId === id", arg=game_id)
