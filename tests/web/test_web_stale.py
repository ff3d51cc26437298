"""The web client names the seq of the board it shows in every game action.

Headless Chromium against the real server (``web_harness``).  The page's
WebSocket goes through Playwright's WebSocket route (``routed_socket``),
which records every frame the page sends and can hold back what the
server sends: that is how
a second tab's draw reaches the server before the page hears of it, so
the page's own click is made on a board that has moved on.
"""

from __future__ import annotations

import asyncio

import pytest
from tests.server.arena_wire import WireClient
from playwright.async_api import Page
from tests.web.routed_socket import RoutedSocket, routed
from tests.web.web_harness import TIMEOUT_MS, Site

from protocol import to_server as ts

pytestmark = pytest.mark.browser

ACTIONS = {"move", "auto_move", "undo", "redo", "hint", "finish", "restart", "resign"}
WAIT_SECONDS = TIMEOUT_MS / 1000


def _actions(socket: RoutedSocket) -> list[tuple[str, int | None]]:
    """The game actions the page sent: type and seq."""
    return [(frame["type"], frame.get("seq")) for frame in socket.sent if frame["type"] in ACTIONS]


async def _routed_game(site: Site) -> tuple[Page, RoutedSocket, str]:
    """A page whose socket is routed (it reconnects to take the route),
    showing a new WordLink game of deal 1; the page, the socket, the game id."""
    page = await site.page()
    socket = await routed(page)
    await page.evaluate("window.arena.startGame({game: 'klondike', deal: 1})")
    await page.wait_for_function("location.hash.startsWith('#play/')")
    await page.wait_for_selector('#board .pile[data-pile="s"]')
    game_id = str(await page.evaluate("location.hash.split('/')[1]"))
    return page, socket, game_id


async def _shown_seq(page: Page, game_id: str, seq: int) -> None:
    await page.wait_for_function("([id, seq]) => window.arena.mirrors.get(id)?.seq === seq", arg=[game_id, seq])


async def test_every_game_action_names_the_seq_of_the_board_shown(site: Site) -> None:
    page, socket, game_id = await _routed_game(site)
    await page.click('#board .pile[data-pile="s"]')
    await _shown_seq(page, game_id, 1)
    for seq, button in enumerate(("#undo", "#redo", "#hint", "#restart"), start=2):
        await page.click(button)
        await _shown_seq(page, game_id, seq)
    assert _actions(socket) == [("move", 0), ("undo", 1), ("redo", 2), ("hint", 3), ("restart", 4)]


async def test_a_click_on_a_board_another_tab_moved_on_changes_nothing(site: Site) -> None:
    page, socket, game_id = await _routed_game(site)
    token = await page.evaluate("localStorage.getItem('arena.token')")
    tab = await WireClient.open(site.server.url)
    try:
        await tab.hello(token=token)
        await tab.wait_for(lambda m: m.type == "snapshot" and m.game_id == game_id)
        socket.hold()
        drawn = await tab.request(ts.Move, game_id=game_id, move="draw", seq=0)
        assert drawn.type == "diff" and drawn.seq == 1, drawn

        await page.click('#board .pile[data-pile="s"]')
        await asyncio.wait_for(socket.refused.wait(), WAIT_SECONDS)
        socket.release()
        message = page.locator('.message[data-kind="error"]')
        await message.wait_for()
        assert "already moved on" in await message.inner_text()
        assert _actions(socket) == [("move", 0)]
        await _shown_seq(page, game_id, 1)
        assert (await page.inner_text('.stats [data-stat="moves"] dd')).strip() == "1"
        loaded = await site.server.store.load_session(game_id)
        assert loaded is not None and len(loaded[1]) == 1
    finally:
        await tab.close()
