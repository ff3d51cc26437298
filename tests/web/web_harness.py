"""A real server and Debian's headless Chromium, for the browser tests and
the screenshot script.

The server is the real ``ArenaServer`` on a free loopback port with the
settings the server tests use (practice positions allowed, no keepalive
noise), plus any changes a test asks for (a short race countdown); it
serves ``client/web/`` at ``/`` exactly as in production.  The
browser is the system's Chromium driven by Playwright: nothing is
downloaded, and without ``/usr/bin/chromium`` the tests skip (or fail
under CI, where a missing browser must not pass as green).

The tests share one browser per test process (``launched``, which the
browser tests' ``conftest`` keeps for their whole run in one event
loop), and each site closes the browser profiles its pages opened: a
test still starts from no cookies and no storage, without paying for a
Playwright driver and a Chromium start (about a second of CPU each).
The screenshot scripts launch their own.
"""

from __future__ import annotations

import time
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Final

from tests.unavailable import unavailable
from tests.server.arena_servers import make_settings
from tests.races.arena_races import PUBLIC_BOARD_RULES_OFF, pin_daily_deal
import pytest_asyncio
from playwright.async_api import Browser, BrowserContext, Page, ViewportSize, async_playwright

from server.transport.app import ArenaServer
from server.storage.memory import MemoryStore
from server.runtime.clock import wall_clock_ms
from server.deals.daily import utc_day

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
BROWSER_LOOP_SCOPE: Final = "session"
"""The event loop the browser tests, their fixtures and the browser share
(``tests/web/conftest.py`` marks the tests): Playwright's objects belong
to the loop that made them."""
site_fixture = pytest_asyncio.fixture(loop_scope=BROWSER_LOOP_SCOPE)
"""The decorator of a browser test's async fixture, which must run in
that loop too."""
DESKTOP: ViewportSize = {"width": 1100, "height": 820}
PHONE: ViewportSize = {"width": 375, "height": 740}
TIMEOUT_MS = 90_000
"""Bounds a hang only: every wait ends as soon as what it waits for is on
the page.  8 s was too short for starting a race in the browser beside
two burners at load 12 (``bench/stress_suite.py``), and 30 s for signing
in while five other test runs kept 2 cores at load 14."""
PROVEN_START_MS = 600_000
"""The hang bound for a race's invite and boards: a race is created on a
proven secret deal (the day's, or a winnable one from a stock that is
empty on a new server), proven in a worker process at low priority, and
beside two CPU burners that took over the default 30 s."""


def require_chromium() -> None:
    """Skip without a browser; under CI (which installs it) fail instead."""
    if CHROMIUM.exists():
        return
    unavailable(f"{CHROMIUM} is missing: install Debian's chromium package (the tests never download a browser)")


@dataclass
class Site:
    """A running server and browser; pages opened here are closed with it."""

    server: ArenaServer
    browser: Browser

    @property
    def base_url(self) -> str:
        return f"http://{self.server.settings.host}:{self.server.port}/"

    async def page(
        self, viewport: ViewportSize = DESKTOP, fragment: str = "", init_script: str | None = None,
        **context_options: Any,
    ) -> Page:
        """A page in a fresh browser profile (its own localStorage, so its
        own player); ``init_script`` runs before the page's own scripts."""
        context = await self.context(viewport=viewport, **context_options)
        if init_script is not None:
            await context.add_init_script(init_script)
        page = await context.new_page()
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))
        await page.goto(self.base_url + fragment)
        await page.wait_for_selector('#connection[data-state="online"]')
        return page

    async def context(self, **options: Any) -> BrowserContext:
        """A fresh browser profile, closed with the site; its waits end
        at ``TIMEOUT_MS``."""
        context = await self.browser.new_context(**options)
        self.contexts.append(context)
        context.set_default_timeout(TIMEOUT_MS)
        return context

    def __post_init__(self) -> None:
        self.page_errors: list[str] = []
        self.contexts: list[BrowserContext] = []


async def sign_in(page: Page, name: str) -> None:
    """Set the display name in the lobby (the page says hello again)."""
    await page.fill("#player-name", name)
    await page.click("text=Save name")
    await page.wait_for_function("name => document.getElementById('connection').textContent.endsWith(name)", arg=name)


@asynccontextmanager
async def launched() -> AsyncIterator[Browser]:
    """Debian's Chromium under Playwright, closed at the end."""
    require_chromium()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


@asynccontextmanager
async def open_site(
    monotonic: Callable[[], float] = time.monotonic, clock: Callable[[], int] = wall_clock_ms,
    browser: Browser | None = None, **setting_changes: object,
) -> AsyncIterator[Site]:
    """Start the server (with ``setting_changes``, ``monotonic`` as the
    clock of its limits per address, and ``clock`` as its games' and days'
    clock) on ``browser`` (None: a browser of its own); stop the server,
    and close the browser profiles its pages used, at the end."""
    require_chromium()
    settings = make_settings(**setting_changes)
    async with AsyncExitStack() as stack:
        server = await stack.enter_async_context(
            ArenaServer(settings, store=MemoryStore(), monotonic=monotonic, clock=clock)
        )
        if browser is None:
            browser = await stack.enter_async_context(launched())
        site = Site(server, browser)
        try:
            yield site
        finally:
            for context in site.contexts:
                await context.close()


# ------------------------------------------------------------ the board, as a player sees it


# WordLink two cards from a win: the Queen and King of clubs on t1, the
# King of diamonds in the stock.
NEARLY_WON = """klondike deal=1 draw=1 scoring=standard auto_collect=false undo_limit=none hint_limit=none
moves=0 score=0
s: [KD]
w:
fs: AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS
fh: AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH
fd: AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD
fc: AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC
t1: [KC] QC
"""


# A stacked pile also draws the card beneath its top (covered, so that a
# card moving in or out never uncovers an empty place): it is not shown.
SHOWN_FACES = ".card.face:not(.under)"


def pile(name: str) -> str:
    return f'#board .pile[data-pile="{name}"]'


def top_card(name: str) -> str:
    return f"{pile(name)} .card.face >> nth=-1"


async def codes(page: Page, name: str) -> list[str]:
    """The face-up card codes the page shows in a pile, bottom to top."""
    return await page.eval_on_selector_all(f"{pile(name)} {SHOWN_FACES}", "cards => cards.map(c => c.dataset.code)")


async def wait_for_codes(page: Page, name: str, expected: list[str]) -> None:
    await page.wait_for_function(
        """([name, expected]) => JSON.stringify([...document.querySelectorAll(
               `#board .pile[data-pile="${name}"] .card.face:not(.under)`)].map(c => c.dataset.code)) === JSON.stringify(expected)""",
        arg=[name, expected],
    )


async def stat(page: Page, label: str) -> str:
    return (await page.inner_text(f'.stats [data-stat="{label}"] dd')).strip()


async def start_from_lobby(page: Page, game: str, deal: int | None = None) -> str:
    """Start a game through the lobby; its game id."""
    before = await page.evaluate("location.hash")
    await page.click(f'.tile[data-game="{game}"]')
    if deal is not None:
        await page.select_option("#deal-kind", "number")
        await page.fill("#deal-number", str(deal))
    await page.click("#start-game")
    return await board_shown(page, before)


async def start_position(page: Page, game: str, position: str) -> str:
    """Start a practice position (the server in the tests allows them)."""
    before = await page.evaluate("location.hash")
    await page.evaluate("([game, position]) => window.arena.startGame({game, position})", [game, position])
    return await board_shown(page, before)


async def win_nearly_won(page: Page) -> None:
    """Start ``NEARLY_WON`` and play its last moves: the King of clubs
    up, both clubs to the foundation, the King of diamonds drawn and sent."""
    await start_position(page, "klondike", NEARLY_WON)
    await page.dblclick(top_card("t1"))
    await wait_for_codes(page, "t1", ["KC"])
    await page.dblclick(top_card("t1"))
    # The draw is clicked on the board the King's move left: a click while
    # that move is unanswered is not a move of the board shown.
    await wait_for_codes(page, "t1", [])
    await page.click(pile("s"))
    # Likewise the King of diamonds is sent from the board the draw left,
    # once it has landed on the waste.
    await wait_for_codes(page, "w", ["KD"])
    await cards_settled(page)
    await page.dblclick(top_card("w"))


async def resign(page: Page) -> None:
    """Resign the game shown: the Resign button asks in a dialog first."""
    await page.click("#resign")
    await page.click("#confirm-resign-ok")
    await page.wait_for_selector("#confirm-resign", state="detached")


async def board_shown(page: Page, previous_hash: str) -> str:
    """Wait for the page to show a new game of the player; its id."""
    await page.wait_for_function("previous => location.hash.startsWith('#play/') && location.hash !== previous", arg=previous_hash)
    await page.wait_for_selector("#board .pile")
    await cards_settled(page)
    return str(await page.evaluate("location.hash.split('/')[1]"))


async def cards_settled(page: Page) -> None:
    """Wait until no card is moving (the deal, a slide): a card's box is
    only where a player would touch it once it has landed."""
    await page.wait_for_function(
        "!document.getAnimations().some(a => a.playState === 'running' && !(a instanceof CSSAnimation)"
        " && a.effect?.target?.closest?.('#board'))"
    )


async def drag(page: Page, source: str, target: str) -> None:
    """A real pointer drag: press on ``source``, move in steps, release on ``target``."""
    await cards_settled(page)
    start = await page.locator(source).bounding_box()
    end = await page.locator(target).bounding_box()
    assert start is not None and end is not None
    await page.mouse.move(start["x"] + start["width"] / 2, start["y"] + 10)
    await page.mouse.down()
    await page.mouse.move(end["x"] + end["width"] / 2, end["y"] + 12, steps=8)
    await page.mouse.up()


@asynccontextmanager
async def daily_site(browser: Browser | None = None) -> AsyncIterator[Site]:
    """A site whose day's WordLink deal is pinned (deal 1, whose winning
    line the tests know) and whose public board's rules are off (every
    player here comes from one address); no page may have thrown."""
    async with open_site(browser=browser, **PUBLIC_BOARD_RULES_OFF) as running:
        await pin_daily_deal(running.server.store, utc_day(running.server.hub.clock()))
        yield running
        assert not running.page_errors, running.page_errors

