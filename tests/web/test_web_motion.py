"""Cards move: every change slides each card from where
it was to where it is, a face-down card flips, a new game is dealt, an
illegal drop shakes the card and says the rule, and none of it happens
under ``prefers-reduced-motion``.

The page's ``Element.animate`` calls are recorded (an init script wraps
it), so the tests read which card was sent from where, whatever the
machine's speed; they never time an animation.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import FloatRect, Page
from tests.web.web_harness import (
    NEARLY_WON,
    SHOWN_FACES,
    Site,
    cards_settled,
    codes,
    pile,
    start_from_lobby,
    start_position,
    top_card,
    wait_for_codes,
)

import engine

pytestmark = pytest.mark.browser

RECORD_MOTION = """
window.__motions = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (keyframes, options) {
  window.__motions.push({ key: this.dataset.key ?? null, frames: keyframes.map((f) => f.transform ?? null),
    opacity: keyframes[0].opacity ?? null });
  return animate.call(this, keyframes, options);
};
"""


async def motions(page: Page) -> list[dict[str, Any]]:
    return list(await page.evaluate("window.__motions.splice(0)"))


def translation(frame: str) -> tuple[float, float]:
    match = re.match(r"translate\((-?[\d.e-]+)px, (-?[\d.e-]+)px\)", frame)
    assert match, frame
    return float(match[1]), float(match[2])


async def box(page: Page, selector: str) -> FloatRect:
    found = await page.locator(selector).bounding_box()
    assert found is not None
    return found


def waste_moves_of_deal_1() -> tuple[str, str]:
    """After one draw in deal 1: a legal destination of the waste card and a column it cannot go on."""
    game = engine.new_game("klondike", 1, draw=1)
    game.play("draw")
    legal = [str(move) for move in game.legal_moves()]
    good = next(text for text in legal if text.startswith("w-f")).split("-")[1]
    bad = next(f"t{i}" for i in range(1, 8) if f"w-t{i}" not in legal)
    return good, bad


async def test_a_move_slides_the_card_from_its_pile_and_undo_slides_it_back(site: Site) -> None:
    page = await site.page(init_script=RECORD_MOTION)
    await start_from_lobby(page, "klondike", deal=1)
    dealt = {motion["key"] for motion in await motions(page) if motion["opacity"] == 0}
    shown = set(await page.eval_on_selector_all("#board .card[data-key]", "cards => cards.map(c => c.dataset.key)"))
    assert len(shown) == 29 and dealt == shown, "every card (28 dealt, the stock's top) flies in"

    await page.click(pile("s"))
    await page.wait_for_selector(f"{pile('w')} {SHOWN_FACES}")
    [card] = await codes(page, "w")
    drawn = [motion for motion in await motions(page) if motion["key"] == card]
    assert drawn and "scaleX" in drawn[-1]["frames"][0], "the drawn card arrives from the stock, turning"
    await cards_settled(page)

    destination, _ = waste_moves_of_deal_1()
    source = await box(page, top_card("w"))
    await page.click(top_card("w"))
    await page.click(pile(destination))
    await wait_for_codes(page, destination, [card])
    slide = [motion for motion in await motions(page) if motion["key"] == card][-1]
    await cards_settled(page)
    target = await box(page, top_card(destination))
    dx, dy = translation(slide["frames"][0])
    assert abs(dx - (source["x"] - target["x"])) < 2 and abs(dy - (source["y"] - target["y"])) < 2
    assert slide["frames"][-1] == "none"

    await page.click("#undo")
    await wait_for_codes(page, "w", [card])
    back = [motion for motion in await motions(page) if motion["key"] == card][-1]
    undo_dx, undo_dy = translation(back["frames"][0])
    assert abs(undo_dx + dx) < 2 and abs(undo_dy + dy) < 2, "undo slides it back the way it came"


async def test_a_face_down_card_flips_when_it_is_turned_up(site: Site) -> None:
    page = await site.page(init_script=RECORD_MOTION)
    await start_position(page, "klondike", NEARLY_WON)
    await motions(page)
    await page.dblclick(top_card("t1"))
    await wait_for_codes(page, "t1", ["KC"])
    by_card = {motion["key"]: motion for motion in await motions(page)}
    assert "scaleX(0)" in by_card["KC"]["frames"][0]
    assert by_card["QC"]["frames"][0].startswith("translate(")


async def test_an_illegal_drop_shakes_the_card_and_says_the_rule_for_a_moment(site: Site) -> None:
    """Selecting the waste card and clicking a card it cannot go on used to
    just select that card: now it is a move, refused with the rule."""
    page = await site.page(init_script=RECORD_MOTION)
    await start_from_lobby(page, "klondike", deal=1)
    await page.click(pile("s"))
    await page.wait_for_selector(f"{pile('w')} {SHOWN_FACES}")
    await cards_settled(page)
    [card] = await codes(page, "w")
    _, wrong = waste_moves_of_deal_1()
    await motions(page)
    await page.click(top_card("w"))
    await page.click(top_card(wrong))
    message = page.locator('.message[data-kind="error"]')
    await message.wait_for()
    assert (await message.inner_text()).startswith("Not allowed:")
    await page.wait_for_function("window.__motions.some(m => m.frames.some(f => f && f.startsWith('translateX(')))")
    shaken = [motion for motion in await motions(page) if any(f and f.startswith("translateX(") for f in motion["frames"])]
    assert [motion["key"] for motion in shaken] == [card]
    assert await codes(page, "w") == [card]
    await page.wait_for_function("document.querySelector('.message').textContent === ''")


async def test_reduced_motion_redraws_without_moving_anything(site: Site) -> None:
    page = await site.page(init_script=RECORD_MOTION, reduced_motion="reduce")
    await start_position(page, "klondike", NEARLY_WON)
    await page.dblclick(top_card("t1"))
    await wait_for_codes(page, "t1", ["KC"])
    await page.click("#undo")
    await wait_for_codes(page, "t1", ["QC"])
    assert await motions(page) == []
