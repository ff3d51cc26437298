"""The lobby and the board read the server's ``catalogue``: a game the
browser has never heard of (the tests' toy game, registered on the server
only) gets its tile, its deal kinds and its counters from the catalogue,
and the generic layout, and is played there."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser
from tests.server.toy_game import TOY, winning_deal
from tests.web.web_harness import Site, open_site, pile, site_fixture, start_from_lobby, stat

from engine.games import DESCRIPTORS, registered


@site_fixture
async def site(browser: Browser) -> AsyncIterator[Site]:
    with registered(TOY):
        async with open_site(browser=browser) as running:
            yield running
            assert not running.page_errors, running.page_errors


async def test_the_lobby_offers_what_the_catalogue_lists_and_a_new_game_plays_on_the_generic_layout(site: Site) -> None:
    page = await site.page()
    tiles = await page.eval_on_selector_all(".tiles .tile", "tiles => tiles.map(t => t.dataset.game)")
    assert tiles == list(DESCRIPTORS), "every game the server offers, in its order"
    await page.click('.tile[data-game="one-suit"]')
    assert "Thirteen spades, four columns." in await page.inner_text('.tile[data-game="one-suit"]')
    kinds = await page.eval_on_selector_all("#deal-kind option", "options => options.map(o => o.value)")
    assert kinds == ["number"]

    deal, line = winning_deal()
    game_id = await start_from_lobby(page, "one-suit", deal)
    for name in ("t1", "t2", "t3", "t4", "f"):
        await page.wait_for_selector(pile(name))
    assert await stat(page, "left to send home") == "13" and await stat(page, "foundation") == "0/13"
    home = line.index(next(move for move in line if move.endswith("-f")))
    for move in line[: home + 1]:
        await page.evaluate("([id, move]) => window.arena.request({ type: 'move', game_id: id, move })", [game_id, move])
    await page.wait_for_function("() => document.querySelector('.stats [data-stat=\"left to send home\"] dd')?.textContent === '12'")
    assert await stat(page, "foundation") == "1/13"
