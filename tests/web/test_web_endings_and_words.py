"""Bugs once seen in the browser: an abandoned game ends and leaves Live
games, the result text stays readable over the celebration, the name
field shows the name and keeps what is typed in it, and a screen reader
hears words, not pile codes.
"""

from __future__ import annotations

import re
import pytest
from tests.engine.klondike_positions import ALL_OPEN, position
from playwright.async_api import Page
from tests.web.web_harness import (
    NEARLY_WON,
    Site,
    codes,
    pile,
    start_from_lobby,
    start_position,
    top_card,
    win_nearly_won,
)

pytestmark = pytest.mark.browser

# The search for the path runs in a worker process the server starts on
# first use: a bound for a slow machine, not a measure of speed.
SEARCH_TIMEOUT_MS = 60_000


async def my_live_games(page: Page) -> list[str]:
    """The ids of this player's games in the server's own list of live games."""
    return list(
        await page.evaluate(
            """async () => {
                const me = window.arena.playerId();
                const reply = await window.arena.request({type: "list_games"});
                return reply.games.filter((g) => g.owner.player_id === me).map((g) => g.game_id);
            }"""
        )
    )


async def test_changing_difficulty_or_dealing_anew_ends_the_game_it_replaces(site: Site) -> None:
    """After four changes the Live games list showed four games: now the
    replaced game is resigned, so only the one being played is live."""
    page = await site.page()
    game_id = await start_from_lobby(page, "broken-deck", deal=17)
    for difficulty in ("standard", "challenge", "relaxed"):
        await page.click("#open-game-options")
        await page.select_option("#game-option-difficulty", difficulty)
        await page.click("#game-options-apply")
        await page.wait_for_function("id => !location.hash.endsWith(id)", arg=game_id)
        game_id = str(await page.evaluate("location.hash.split('/')[1]"))
    await page.click("#new-deal")
    await page.wait_for_function("id => !location.hash.endsWith(id)", arg=game_id)
    current = str(await page.evaluate("location.hash.split('/')[1]"))
    await page.wait_for_function(
        """async (id) => {
            const me = window.arena.playerId();
            const reply = await window.arena.request({type: "list_games"});
            const mine = reply.games.filter((g) => g.owner.player_id === me);
            return mine.length === 1 && mine[0].game_id === id;
        }""",
        arg=current,
    )
    assert await my_live_games(page) == [current]
    await page.click("#to-lobby")
    await page.wait_for_selector(".my-games li")
    assert await page.locator(".my-games li").count() == 1


async def test_wordlink_offers_finish_once_every_card_is_open_and_the_server_plays_it(site: Site) -> None:
    page = await site.page()
    await start_position(page, "klondike", position(ALL_OPEN))
    await page.wait_for_selector("#finish:not([hidden])", timeout=SEARCH_TIMEOUT_MS)
    await page.click("#finish")
    await page.wait_for_selector(".result:not([hidden])")
    assert await page.inner_text(".result h2") == "You won!"
    for name in ("fs", "fh", "fd", "fc"):
        assert len(await codes(page, name)) == 1, "a foundation shows its King on top"
    assert await page.inner_text('.stats [data-stat="foundation"] dd') == "52/52"


async def test_leaving_a_game_for_the_lobby_keeps_it_to_resume(site: Site) -> None:
    """Going to the lobby is not abandoning: the game stays live under Your games."""
    page = await site.page()
    game_id = await start_from_lobby(page, "klondike", deal=3)
    await page.click("#to-lobby")
    await page.wait_for_selector(".my-games li")
    assert await my_live_games(page) == [game_id]


async def test_the_name_field_shows_the_name_the_header_plays_as(site: Site) -> None:
    page = await site.page()
    banner = await page.inner_text("#connection")
    name = banner.removeprefix("Playing as ").strip()
    assert name and name != banner
    await page.wait_for_function("name => document.getElementById('player-name').value === name", arg=name)


async def test_a_name_being_typed_survives_the_lobby_refreshing_under_it(site: Site) -> None:
    """The lobby is rebuilt when its lists arrive, which happens just after
    the page says hello: a name typed then was replaced by the old one, and
    "Save name" saved the old name."""
    page = await site.page()
    await page.fill("#watch-id", "g_half_typed")
    await page.click("#player-name")
    await page.fill("#player-name", "")
    await page.keyboard.type("Annabel")
    await page.keyboard.press("ArrowLeft")
    await page.evaluate("window.arena.refreshLobby()")
    field = await page.evaluate(
        "(() => { const f = document.activeElement; return [f.id, f.value, f.selectionStart]; })()"
    )
    assert field == ["player-name", "Annabel", 6]
    assert await page.input_value("#watch-id") == "g_half_typed"
    await page.click("text=Save name")
    await page.wait_for_function("document.getElementById('connection').textContent.endsWith('Annabel')")


async def test_piles_and_cards_are_named_in_words(site: Site) -> None:
    """"Ace of spades, fs" and "s: 23 cards" become "…, spades foundation" and "stock, 1 card"."""
    page = await site.page()
    await start_position(page, "klondike", NEARLY_WON)
    assert await page.get_attribute(pile("s"), "aria-label") == "stock, 1 card"
    assert await page.get_attribute(top_card("fs"), "aria-label") == "King of spades, spades foundation"
    assert await page.get_attribute(top_card("t1"), "aria-label") == "Queen of clubs, column 1"
    assert await page.get_attribute(pile("w"), "aria-label") == "waste, empty"
    labels = await page.eval_on_selector_all("#board [aria-label]", "nodes => nodes.map(n => n.getAttribute('aria-label'))")
    coded = [label for label in labels if re.search(r"(^|[ ,:])(fs|fh|fd|fc|t\d|s|w)($|[ ,:])", label)]
    assert not coded, coded


async def test_the_result_stays_readable_above_the_victory_animation(site: Site) -> None:
    """The celebration's symbols fall behind the result card: a symbol put
    right over the headline is painted (and hit) beneath it."""
    page = await site.page()
    await win_nearly_won(page)
    await page.wait_for_selector(".result:not([hidden]) h2")
    assert await page.locator(".celebration span").count() == 12
    hit = await page.evaluate(
        """() => {
            const headline = document.querySelector('.result h2').getBoundingClientRect();
            const x = headline.left + headline.width / 2, y = headline.top + headline.height / 2;
            const symbol = document.querySelector('.celebration span');
            document.querySelector('.celebration').style.pointerEvents = 'auto';
            Object.assign(symbol.style, {animation: 'none', pointerEvents: 'auto', transform: 'none',
                left: `${x - 10}px`, top: `${y - 10}px`});
            return document.elementFromPoint(x, y).closest('.result, .celebration')?.className;
        }"""
    )
    assert hit == "result"
    assert "moves" in await page.inner_text(".result")
