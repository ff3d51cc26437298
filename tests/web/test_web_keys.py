"""Keyboard and feel in the browser: the shortcuts and their overlay,
focus on the board at a game's start, dark mode, card backs, four-colour
suits, sound off by default, contrast of the empty-pile marks, and a
button that shows it is working while its request takes a while.

Headless Chromium against a real server, at 390×844 and 1366×768.
WordLink deal 7 (draw 1) is dealt so that the cards are known: the
three of diamonds on column 1 can go onto the four of clubs on column 6.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Page, ViewportSize
from tests.web.axe import in_scheme
from tests.web.web_harness import Site, board_shown, cards_settled, codes, pile, wait_for_codes, win_nearly_won

pytestmark = pytest.mark.browser

VIEWPORTS: list[ViewportSize] = [{"width": 390, "height": 844}, {"width": 1366, "height": 768}]
BOTH = pytest.mark.parametrize("viewport", VIEWPORTS, ids=lambda size: f"{size['width']}x{size['height']}")
SLOW_NEW_GAME = """
const realSend = WebSocket.prototype.send;
const held = [];
window.releaseNewGames = () => held.splice(0).forEach((send) => send());
WebSocket.prototype.send = function (data) {
  if (typeof data === "string" && data.includes('"new_game"')) held.push(() => realSend.call(this, data));
  else realSend.call(this, data);
};
"""
"""A page whose new_game requests wait until the test calls
``releaseNewGames()``, as on a slow network: a delay of fixed length let
the deal arrive before the second press on a loaded machine."""


async def deal_seven_by_keyboard(page: Page) -> str:
    """Choose WordLink deal 7 and start it with Enter; the game's id."""
    before = await page.evaluate("location.hash")
    await page.click('.tile[data-game="klondike"]')
    await page.select_option("#deal-kind", "number")
    await page.fill("#deal-number", "7")
    await page.focus("#start-game")
    await page.keyboard.press("Enter")
    game_id = await board_shown(page, before)
    await wait_for_codes(page, "t1", ["3D"])
    return game_id


async def moves(page: Page) -> str:
    return (await page.inner_text('.stats [data-stat="moves"] dd')).strip()


@BOTH
async def test_the_shortcuts_play_a_game_from_the_keyboard(site: Site, viewport: ViewportSize) -> None:
    page = await site.page(viewport=viewport)
    await deal_seven_by_keyboard(page)
    assert await page.evaluate("document.activeElement.closest('#board') !== null"), "focus lands on the board"

    one_drawn = "document.querySelectorAll('#board .pile[data-pile=\"w\"] .card.face').length === 1"
    await page.keyboard.press("d")
    await page.wait_for_function(one_drawn)
    for undo, redo in (("u", "r"), ("Control+z", "Control+y"), ("Control+z", "Shift+Control+z")):
        await page.keyboard.press(undo)
        await wait_for_codes(page, "w", [])
        await page.keyboard.press(redo)
        await page.wait_for_function(one_drawn)
    drawn = await codes(page, "w")

    await page.evaluate("document.activeElement.blur()")
    await page.keyboard.press(" ")
    await page.wait_for_function(
        """drawn => JSON.stringify([...document.querySelectorAll('#board .pile[data-pile="w"] .card.face:not(.under)')]
               .map((card) => card.dataset.code)) !== JSON.stringify(drawn)""",
        arg=drawn,
    )

    await page.keyboard.press("h")
    await page.wait_for_selector("#board .hint, #board .hint-target")

    await cards_settled(page)
    await page.click(f"{pile('t1')} .card.face")
    await page.wait_for_selector("#board .card.selected")
    await page.keyboard.press("Escape")
    await page.wait_for_selector("#board .card.selected", state="detached")

    await page.keyboard.press("?")
    await page.wait_for_selector("#shortcuts[open]")
    listed = await page.inner_text("#shortcuts")
    for key in ("Ctrl+Z", "Shift+Ctrl+Z", "Ctrl+Y", "Space", "Escape", "?"):
        assert key in listed, key
    await page.keyboard.press("Escape")
    await page.wait_for_selector("#shortcuts[open]", state="detached")


@BOTH
async def test_keys_typed_into_a_field_or_a_dialog_are_left_alone(site: Site, viewport: ViewportSize) -> None:
    page = await site.page(viewport=viewport)
    await deal_seven_by_keyboard(page)
    await page.click("#open-settings")
    await page.wait_for_selector("#settings[open]")
    await page.keyboard.press("d")
    await page.focus("#setting-theme")
    await page.keyboard.press("u")
    await page.keyboard.press("Escape")
    await page.wait_for_selector("#settings[open]", state="detached")
    assert await moves(page) == "0"
    assert await codes(page, "w") == []


@BOTH
async def test_dark_mode_card_backs_and_four_colour_suits_are_settings(site: Site, viewport: ViewportSize) -> None:
    page = await site.page(viewport=viewport)
    assert await page.evaluate("window.arena.settings.sound") is False, "sound is off until chosen"
    assert not await page.is_checked("#setting-sound")

    await page.emulate_media(color_scheme="dark")
    await page.wait_for_function("document.documentElement.dataset.scheme === 'dark'")
    await in_scheme(page, "light")
    await page.emulate_media(color_scheme="light")
    await in_scheme(page, "dark")
    await page.reload()
    await page.wait_for_function("document.documentElement.dataset.scheme === 'dark'")
    felt = await page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert felt == "rgb(16, 38, 27)", felt

    await deal_seven_by_keyboard(page)
    backs = {}
    for back in ("blue", "red", "grey"):
        await page.evaluate(
            """back => { const s = document.getElementById("setting-card-back"); s.value = back; s.dispatchEvent(new Event("change")); }""",
            back,
        )
        backs[back] = await page.eval_on_selector("#board .card.back", "card => getComputedStyle(card).backgroundImage")
    assert len(set(backs.values())) == 3, backs

    diamond = f"{pile('t1')} .card.face"
    assert await page.eval_on_selector(diamond, "card => getComputedStyle(card).color") == "rgb(200, 16, 46)"
    await page.click("#open-settings")
    await page.check("#setting-four-colour")
    await page.keyboard.press("Escape")
    assert await page.eval_on_selector(diamond, "card => getComputedStyle(card).color") == "rgb(23, 71, 184)"


def contrast(one: tuple[float, float, float], two: tuple[float, float, float]) -> float:
    """The WCAG contrast ratio of two sRGB colours (0-255 channels)."""

    def luminance(rgb: tuple[float, float, float]) -> float:
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (x / 255 for x in rgb)]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(one), luminance(two)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@BOTH
@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_empty_pile_marks_stand_out_three_to_one(site: Site, viewport: ViewportSize, scheme: str) -> None:
    page = await site.page(viewport=viewport)
    await in_scheme(page, scheme)  # type: ignore[arg-type]
    await deal_seven_by_keyboard(page)
    colours = await page.evaluate(
        """() => {
            const parse = (text) => text.match(/[\\d.]+/g).map(Number);
            return [parse(getComputedStyle(document.querySelector('#board .pile[data-pile="fs"] .placeholder')).borderTopColor),
                    parse(getComputedStyle(document.body).backgroundColor)];
        }"""
    )
    mark, felt = colours
    alpha = mark[3] if len(mark) == 4 else 1.0
    shown = tuple(alpha * m + (1 - alpha) * f for m, f in zip(mark[:3], felt[:3]))
    assert contrast(shown, tuple(felt[:3])) >= 3.0, (mark, felt)


@BOTH
async def test_a_slow_deal_shows_it_is_working_and_takes_one_press(site: Site, viewport: ViewportSize) -> None:
    page = await site.page(viewport=viewport, init_script=SLOW_NEW_GAME)
    await page.click('.tile[data-game="klondike"]')
    await page.click("#start-game")
    await page.wait_for_selector("#start-game[aria-busy='true']:disabled")
    assert "busy" in (await page.get_attribute("#start-game", "class") or "")
    await page.click("#start-game", force=True)
    await page.evaluate("releaseNewGames()")
    await board_shown(page, "")
    mine = await page.evaluate(
        """async () => (await window.arena.request({type: "list_games"})).games
               .filter((g) => g.owner.player_id === window.arena.playerId()).length"""
    )
    assert mine == 1, "the second press while the first was pending started nothing"


@BOTH
async def test_the_game_keys_do_nothing_on_a_replay(site: Site, viewport: ViewportSize) -> None:
    """A replay has a board but no toolbar: its own keys (arrows, Home,
    End) step it, and the game's shortcuts leave it alone (the fixture
    fails the test on any page error)."""
    page = await site.page(viewport=viewport)
    await win_nearly_won(page)
    await page.wait_for_selector(".result:not([hidden])")
    await page.click("#open-replay")
    await page.wait_for_selector("#replay-position")
    position = await page.inner_text("#replay-position")
    for key in ("u", "r", "d", "h", "Escape", "Control+z"):
        await page.keyboard.press(key)
    assert await page.inner_text("#replay-position") == position
    await page.keyboard.press("?")
    await page.wait_for_selector("#shortcuts[open]")
