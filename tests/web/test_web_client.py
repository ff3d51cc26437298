"""The browser client (client/web/) driven by headless Chromium against a real server.

Each test starts the real server on a free loopback port and Debian's
Chromium (see ``web_harness``), plays through the page as a person would
(clicks, taps, drags, keys) and checks what the page shows.  Races and
the daily leaderboard are in ``test_web_races.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page

import engine
from protocol import to_server as ts
from tests.server.arena_positions import ONE_MOVE_FROM_BLOCKED_KLONDIKE, broken_deck_two_halves_left
from tests.server.arena_wire import WireClient
from tests.web.web_harness import (
    PHONE,
    PROVEN_START_MS,
    Site,
    codes,
    drag,
    pile,
    start_from_lobby,
    start_position,
    stat,
    top_card,
    wait_for_codes,
    win_nearly_won,
)

pytestmark = pytest.mark.browser

# Broken Deck deal 3 rearranged so that both halves of the torn Ace of
# hearts are exposed (t1 and t2) and the Ace of clubs tops t8.
TWO_HALVES_EXPOSED = """broken-deck deal=3 difficulty=relaxed practice=false
moves=0
t1: 8C 2C> 2S 5D KS TS AH<
t2: JH TC QC 3C< 3S 5H> 6D 6H AH>
t3: AS 9C KC 9S JD 4S 4D
t4: AD 3D TH 7S 5C 7D KD
t5: JS 5H< 9H TD QH JC< 9D
t6: 5S> 7C JC> 3C> 2D QS 6S
t7: 6C 8D 8S 8H 3H KH 4H
t8: 7H 5S< 2C< 2H 4C QD AC
"""

def first_waste_move_of_deal_1() -> str:
    game = engine.new_game("klondike", 1, draw=1)
    game.play("draw")
    return next(str(move) for move in game.legal_moves() if move.src == "w")


async def test_a_wordlink_move_made_by_clicking_is_seen_by_a_spectator(site: Site) -> None:
    """Tap the stock, then click the waste card and its foundation; a second
    page watching the game by its id sees each move, read-only."""
    player = await site.page()
    game_id = await start_from_lobby(player, "klondike", deal=1)
    await player.click(pile("s"))
    await player.wait_for_function("document.querySelector('.stats [data-stat=\"moves\"] dd').textContent === '1'")
    waste = await codes(player, "w")
    assert len(waste) == 1

    spectator = await site.page(fragment=f"#watch/{game_id}")
    await wait_for_codes(spectator, "w", waste)
    assert await spectator.locator(".card.pickable").count() == 0
    assert not await spectator.is_visible("#undo")
    assert "Watching" in await spectator.inner_text(".who")

    destination = first_waste_move_of_deal_1().split("-")[1]
    await player.click(top_card("w"))
    await player.click(pile(destination))
    await wait_for_codes(player, destination, waste)
    await wait_for_codes(spectator, destination, waste)
    assert await stat(spectator, "moves") == "2"


async def test_a_piece_moves_by_keyboard_and_by_drag(site: Site) -> None:
    """Click, tap, or press Enter on a piece, then choose its destination.
    Dragging also works."""
    page = await site.page()
    await start_position(page, "broken-deck", TWO_HALVES_EXPOSED)
    await page.focus(top_card("t1"))
    await page.keyboard.press("Enter")
    assert await page.locator(f"{pile('t1')} .card.selected").count() == 1
    for _ in range(5):  # t1 → fc, fd, fh, fs, r: arrows walk the piles in layout order
        await page.keyboard.press("ArrowLeft")
    focused = await page.evaluate("document.activeElement.closest('[data-pile]').dataset.pile")
    assert focused == "r"
    await page.keyboard.press("Enter")
    await wait_for_codes(page, "r", ["AH<"])

    await drag(page, top_card("t8"), pile("fc"))
    await wait_for_codes(page, "fc", ["AC"])
    assert await stat(page, "moves") == "2"


async def test_double_click_repairs_a_card_then_sends_it_to_its_foundation(site: Site) -> None:
    """Double-click a fragment to try the Repair Slot; double-click a whole
    card to try its foundation, then an empty free cell when moving from a column."""
    page = await site.page()
    await start_position(page, "broken-deck", TWO_HALVES_EXPOSED)
    await page.dblclick(top_card("t1"))
    await wait_for_codes(page, "r", ["AH<"])
    await page.dblclick(top_card("t2"))
    await wait_for_codes(page, "r", ["AH"])
    assert await stat(page, "repairs") == "1/6"
    await page.dblclick(top_card("r"))
    await wait_for_codes(page, "fh", ["AH"])
    await page.dblclick(top_card("t3"))
    await wait_for_codes(page, "c1", ["4D"])


async def test_broken_deck_difficulty_in_game_options_restarts_the_same_deal(site: Site) -> None:
    """Change difficulty in Game Options; it restarts the same deal number."""
    page = await site.page()
    first_id = await start_from_lobby(page, "broken-deck", deal=17)
    before = {name: await codes(page, name) for name in ("t1", "t5", "t8")}
    await page.click(top_card("t1"))
    assert await page.locator("#board .pile.target").count() >= 4  # relaxed: highlights, at least the free cells
    await page.keyboard.press("Escape")
    await page.click("#open-game-options")
    assert "deal 17" in await page.inner_text("#game-options-note")
    await page.select_option("#game-option-difficulty", "challenge")
    await page.click("#game-options-apply")
    await page.wait_for_function("id => !location.hash.endsWith(id)", arg=first_id)
    await page.wait_for_function("document.querySelector('.stats [data-stat=\"difficulty\"] dd').textContent === 'Challenge'")
    assert {name: await codes(page, name) for name in ("t1", "t5", "t8")} == before
    assert await page.is_disabled("#undo") and await page.is_disabled("#hint")
    await page.click(top_card("t1"))
    assert await page.locator(f"{pile('t1')} .card.selected").count() == 1
    assert await page.locator("#board .pile.target").count() == 0  # challenge: no highlights


async def test_hint_undo_redo_and_restart_buttons(site: Site) -> None:
    page = await site.page()
    await start_from_lobby(page, "klondike", deal=1)
    await page.click("#hint")
    await page.wait_for_selector("#board .hint, #board .hint-target")
    await page.click(pile("s"))
    await page.wait_for_function("document.querySelector('.stats [data-stat=\"moves\"] dd').textContent === '1'")
    drawn = await codes(page, "w")
    await page.click("#undo")
    await wait_for_codes(page, "w", [])
    await page.click("#redo")
    await wait_for_codes(page, "w", drawn)
    await page.click("#restart")
    await wait_for_codes(page, "w", [])
    assert await stat(page, "moves") == "0"


async def test_laras_spread_row_is_reordered_by_drag(site: Site) -> None:
    """The order of the cards can be changed (the cards may be rearranged in the bottom row)."""
    page = await site.page()
    await start_from_lobby(page, "laras-game", deal=1)
    await page.click(pile("s"))
    await page.wait_for_function("document.querySelectorAll('#board .pile[data-pile=\"r\"] .card').length > 2")
    row = await codes(page, "r")
    await drag(page, f"{pile('r')} .card >> nth=0", f"{pile('r')} .card >> nth=-1")
    await wait_for_codes(page, "r", row[1:] + row[:1])


async def test_an_illegal_move_gets_a_clear_message(site: Site) -> None:
    page = await site.page()
    await start_from_lobby(page, "klondike", deal=1)
    card = (await codes(page, "t1"))[-1]
    symbol = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[card[1]]
    wrong = "fs" if card[1] != "S" else "fh"
    await page.click(top_card("t1"))
    await page.click(pile(wrong))
    message = page.locator('.message[data-kind="error"]')
    await message.wait_for()
    text = await message.inner_text()
    assert text.startswith("Not allowed:") and symbol in text, text
    # The sentence is said once, inline: the toast stays hidden.
    assert await page.get_attribute("#toast", "hidden") is not None
    assert await codes(page, wrong) == []
    assert await stat(page, "moves") == "0"


async def _settings_state(page: Page) -> dict[str, Any]:
    return await page.evaluate("JSON.parse(localStorage.getItem('arena.settings'))")


async def test_wordlink_settings_persist_across_reload_and_take_effect(site: Site) -> None:
    """Toggle sound effects and background music on/off. Draw 1 card or 3
    cards at a time. Adapt the layout for left-handed operation. Enable/disable
    the game timer. Automatically collect eligible cards to the foundation.
    Skip the victory celebration animation."""
    page = await site.page()
    await page.click("#open-settings")
    for control in ("#setting-sound", "#setting-left-handed", "#setting-timer", "#setting-auto-collect",
                    "#setting-skip-celebration"):
        await page.click(control)
    await page.select_option("#setting-draw", "3")
    await page.click("#settings button[value=close]")
    expected = {"sound": True, "draw": 3, "leftHanded": True, "timer": False, "autoHints": False,
                "autoCollect": True, "skipCelebration": True, "theme": "system", "cardBack": "blue", "fourColour": False}
    assert await _settings_state(page) == expected

    await page.reload()
    await page.wait_for_selector('#connection[data-state="online"]')
    assert await _settings_state(page) == expected
    assert await page.is_checked("#setting-sound")
    assert await page.is_checked("#setting-left-handed") and await page.is_checked("#setting-skip-celebration")
    assert await page.input_value("#setting-draw") == "3"

    await start_from_lobby(page, "klondike")
    assert "draw 3" in await page.inner_text(".who") and "auto collect" in await page.inner_text(".who")
    assert await page.locator('.stats [data-stat="time"]').count() == 0
    stock = await page.locator(pile("s")).bounding_box()
    spades = await page.locator(pile("fs")).bounding_box()
    assert stock is not None and spades is not None and stock["x"] < spades["x"]


async def test_sound_plays_only_when_switched_on(site: Site) -> None:
    """Toggle sound effects and background music on/off (sound effects:
    there is no music).  Sound starts off: a first draw is silent."""
    page = await site.page()
    await page.add_init_script(
        """window.__tones = 0;
        const Real = window.AudioContext;
        window.AudioContext = class extends Real {
          createOscillator() {
            const oscillator = super.createOscillator();
            const start = oscillator.start.bind(oscillator);
            oscillator.start = (...args) => { window.__tones += 1; return start(...args); };
            return oscillator;
          }
        };"""
    )
    await page.reload()
    await page.wait_for_selector('#connection[data-state="online"]')
    await start_from_lobby(page, "klondike")
    await page.click(pile("s"))
    await page.wait_for_function("document.querySelector('.stats [data-stat=\"moves\"] dd').textContent === '1'")
    assert await page.evaluate("window.__tones") == 0
    await page.click("#open-settings")
    await page.click("#setting-sound")
    await page.click("#settings button[value=close]")
    await page.click(pile("s"))
    await page.wait_for_function("window.__tones > 0")


async def test_a_win_celebrates_unless_the_celebration_is_skipped(site: Site) -> None:
    """Skip the victory celebration animation."""
    page = await site.page()
    for skip in (False, True):
        if skip:
            await page.click("#open-settings")
            await page.click("#setting-skip-celebration")
            await page.click("#settings button[value=close]")
        await win_nearly_won(page)
        await page.wait_for_selector(".result:not([hidden])")
        assert await page.inner_text(".result h2") == "You won!"
        assert "null" not in await page.inner_text(".result")
        assert await page.locator(".celebration span").count() == (0 if skip else 12)


async def test_auto_hints_show_a_movable_card_after_five_seconds(site: Site) -> None:
    """Automatically show movable cards after 5 seconds.  Not before: at
    3.5 s none is shown (a busy machine only makes the page's timer late,
    never early).  Then the page asks and the hint comes: how long that
    takes is the server's search, so it is waited for, not timed."""
    page = await site.page()
    await page.click("#open-settings")
    await page.click("#setting-auto-hints")
    await page.click("#settings button[value=close]")
    await start_from_lobby(page, "klondike", deal=1)
    await page.wait_for_timeout(3500)
    assert await page.locator("#board .hint, #board .hint-target").count() == 0
    await page.wait_for_selector("#board .hint, #board .hint-target")
    assert await stat(page, "hints") == "1"


async def resign_a_game_as(site: Site, page: Page) -> None:
    """Give the page's player a record: a game resigned through the protocol with its token."""
    client = await WireClient.open(site.server.url)
    try:
        await client.hello(token=await page.evaluate("localStorage.getItem('arena.token')"))
        started, _ = await client.new_game(deal=2)
        await client.request(ts.Resign, game_id=started.game_id)
    finally:
        await client.close()


async def test_phone_width_has_no_horizontal_overflow_and_taps_play(site: Site) -> None:
    page = await site.page(PHONE, has_touch=True, is_mobile=True)
    await resign_a_game_as(site, page)
    await page.reload()
    await page.wait_for_selector("#records-table")
    rights = await page.eval_on_selector_all(".lobby > *", "panels => panels.map(p => p.getBoundingClientRect().right)")
    assert max(rights) <= PHONE["width"], rights
    for game in ("klondike", "broken-deck", "laras-game", "chequers"):
        await page.goto(site.base_url + "#lobby")
        await start_from_lobby(page, game)
        widths = await page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert widths[0] <= widths[1] == PHONE["width"], (game, widths)
    await page.tap(pile("t1") + " .card.face >> nth=-1")
    assert await page.locator(f"{pile('t1')} .card.selected").count() == 1


async def test_a_malformed_link_opens_the_lobby(site: Site) -> None:
    """A link whose id is not valid percent-encoding (``%zz``, a lone ``%``)
    shows the lobby, whether the page opens on it or follows it later; the
    ``site`` fixture checks that no page error was raised."""
    page = await site.page(fragment="#race/%zz")
    await page.wait_for_selector('.tile[data-game="klondike"]')
    await page.goto(site.base_url + "#lobby")
    await start_from_lobby(page, "klondike")
    await page.goto(site.base_url + "#watch/x%")
    await page.wait_for_selector('.tile[data-game="klondike"]')
    assert await page.locator("#board").count() == 0
    page = await site.page(fragment="#watch/x%")
    await page.wait_for_selector('.tile[data-game="klondike"]')
    await page.fill("#watch-id", "r_%zz")
    await page.press("#watch-id", "Enter")
    await page.wait_for_selector('.tile[data-game="klondike"]')


async def test_the_page_reconnects_by_itself_and_keeps_its_game(site: Site) -> None:
    page = await site.page()
    await start_from_lobby(page, "klondike", deal=1)
    player = await page.evaluate("window.arena.playerId()")
    await page.evaluate("window.arena.connection.socket.close()")
    await page.wait_for_selector('#connection[data-state="offline"]')
    await page.wait_for_selector('#connection[data-state="online"]')
    assert await page.evaluate("window.arena.playerId()") == player
    await page.click(pile("s"))
    await page.wait_for_function("document.querySelector('.stats [data-stat=\"moves\"] dd').textContent === '1'")


async def test_finish_appears_once_every_half_is_repaired_and_wins_the_game(site: Site) -> None:
    """Relaxed and Standard can automatically finish only after all halves
    are repaired and a complete foundation path is proven."""
    page = await site.page()
    await start_position(page, "broken-deck", broken_deck_two_halves_left())
    assert await page.locator("#finish").is_hidden()
    await page.dblclick(top_card("t1"))
    await wait_for_codes(page, "r", ["QS<"])
    assert await page.locator("#finish").is_hidden(), "one half is still on the board"
    await page.dblclick(top_card("t2"))
    await page.wait_for_selector("#finish:not([hidden])")
    await page.click("#finish")
    await page.wait_for_selector(".result:not([hidden])")
    assert await page.inner_text(".result h2") == "You won!"
    assert await stat(page, "moves") == "10"
    assert "Finished automatically in 8 moves." in await page.inner_text(".message")


async def test_a_lost_game_offers_to_show_where_it_went_wrong(site: Site) -> None:
    page = await site.page()
    await start_position(page, "klondike", ONE_MOVE_FROM_BLOCKED_KLONDIKE)
    await page.dblclick(top_card("t1"))
    await page.wait_for_selector(".result:not([hidden])")
    assert await page.inner_text(".result h2") == "Game over: lost"
    assert "null" not in await page.inner_text(".result")
    assert await stat(page, "status") == "lost", "the game is over: no undo can recover it"
    await page.click("#analyse")
    await page.wait_for_function(
        "document.querySelector('.result .analysis').textContent === 'This deal could not be won from the start.'"
    )


async def test_your_games_stay_listed_on_a_busy_server(site: Site) -> None:
    """The public list holds only the newest 50 games of everyone; yours
    must not drop out of "Your games" when 55 newer ones come after it."""
    page = await site.page()
    token = await page.evaluate("localStorage.getItem('arena.token')")
    mine = await WireClient.open(site.server.url)
    others: list[WireClient] = []
    try:
        await mine.hello(token=token)
        started, _ = await mine.new_game("chequers", deal=4)
        for number in range(11):
            other = await WireClient.open(site.server.url)
            others.append(other)
            await other.hello(name=f"busy-{number}")
            for deal in range(5):
                await other.new_game(deal=deal + 1)
    finally:
        for client in (mine, *others):
            await client.close()
    await page.reload()
    await page.wait_for_selector(".my-games li")
    assert "Chequers" in await page.inner_text(".my-games")


async def test_a_ranked_daily_off_the_public_board_says_why_on_its_result_card(site: Site) -> None:
    """The page's player was made today: its ranked daily attempt cannot
    count on the public board, and the result card says so in words."""
    page = await site.page()
    await page.click('.tile[data-game="chequers"]')
    await page.click("#daily-challenge")
    await page.wait_for_selector("#board .pile", timeout=PROVEN_START_MS)
    same_player = await WireClient.open(site.server.url)
    try:
        welcome = await same_player.hello(token=await page.evaluate("localStorage.getItem('arena.token')"))
        assert [game.game for game in welcome.games] == ["chequers"]
        await same_player.request(ts.Resign, game_id=welcome.games[0].game_id)
    finally:
        await same_player.close()
    await page.wait_for_selector(".result:not([hidden]) #unlisted")
    assert "created after the day began" in await page.inner_text("#unlisted")
