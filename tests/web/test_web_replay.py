"""The replay screen in headless Chromium: a finished game opens from its
result dialog as a replay, steps through the scrubber, and shows the
analysis's mark and its winning line (played by the server)."""

from __future__ import annotations

import pytest
from tests.server.arena_wire import WireClient
from playwright.async_api import Page
from tests.solver.positions import klondike_hearts_locked
from tests.solver.test_analysis import BLUNDER_LOG
from tests.web.web_harness import Site, codes, start_position

from protocol import to_server as ts

pytestmark = pytest.mark.browser


async def play_as_the_page(site: Site, page: Page, game_id: str, moves: list[str]) -> None:
    """Play ``moves`` and resign with the page's own identity, as a second
    tab would: the page follows its game by the diffs."""
    client = await WireClient.open(site.server.url)
    try:
        await client.hello(token=await page.evaluate("localStorage.getItem('arena.token')"))
        for move in moves:
            reply = await client.request(ts.Move, game_id=game_id, move=move)
            assert reply.type == "diff", reply
        await client.request(ts.Resign, game_id=game_id)
    finally:
        await client.close()


async def _position_text(page: Page, text: str) -> None:
    await page.wait_for_function("text => document.getElementById('replay-position').textContent === text", arg=text)


async def test_a_resigned_game_replays_step_by_step_with_its_analysis_marked(site: Site) -> None:
    page = await site.page()
    game_id = await start_position(page, "klondike", klondike_hearts_locked(empty_seventh=True).to_text())
    dealt = {name: await codes(page, name) for name in ("w", "t7", "fs")}
    await play_as_the_page(site, page, game_id, BLUNDER_LOG)
    await page.wait_for_selector(".result:not([hidden])")
    await page.click("#open-replay")
    await page.wait_for_function("location.hash.startsWith('#replay/')")
    steps = len(BLUNDER_LOG) + 1
    await _position_text(page, f"Step {steps} of {steps}")
    assert await page.inner_text("#move-list li[data-step='0']") == "Deal"
    assert (await page.inner_text(f"#move-list li[data-step='{steps}']")).strip() == "Resigned"

    await page.click("#replay-first")
    await _position_text(page, f"Step 0 of {steps}")
    assert {name: await codes(page, name) for name in dealt} == dealt, "step 0 is the board as dealt"
    assert await page.locator("#replay-previous").is_disabled()
    await page.click("#replay-next")
    await _position_text(page, f"Step 1 of {steps}")
    assert await page.get_attribute("#move-list li[data-step='1']", "aria-current") == "step"
    await page.click("#replay-last")
    await _position_text(page, f"Step {steps} of {steps}")
    assert await codes(page, "t7") != dealt["t7"], "w-t7 filled the empty column"

    sentence = page.locator("#analysis-sentence")
    await sentence.wait_for()
    assert await sentence.inner_text() == (
        "Still winnable until move 4 (step 4); move 5, K♥ from the waste to empty column 7, lost it."
    )
    assert await page.get_attribute("#move-list li.winnable", "data-step") == "4"
    assert await page.get_attribute("#move-list li.losing", "data-step") == "5"
    await page.click("#to-losing")
    await _position_text(page, f"Step 4 of {steps}")
    assert await page.get_attribute("#move-list li[data-step='4']", "aria-current") == "step"

    await page.click("#play-winning-line")
    await page.wait_for_function("document.getElementById('replay-position').textContent.startsWith('Winning line')")
    await page.click("#replay-last")
    await page.wait_for_function(
        "document.querySelectorAll('#move-list li').length > 1"
        " && document.getElementById('replay-position').textContent.match(/move (\\d+) of \\1$/)"
    )
    tops = [await codes(page, name) for name in ("fs", "fh", "fd", "fc")]
    assert tops == [["KS"], ["KH"], ["KD"], ["KC"]], "the winning line wins: a King tops each foundation"
    await page.click("#back-to-game")
    await _position_text(page, f"Step 4 of {steps}")


async def test_a_live_game_has_no_replay_yet(site: Site) -> None:
    page = await site.page()
    game_id = await start_position(page, "klondike", klondike_hearts_locked(empty_seventh=True).to_text())
    await page.evaluate("id => { location.hash = '#replay/' + id; }", game_id)
    await page.wait_for_function(
        "document.querySelector('.replay .message').textContent === 'A game is analysed or replayed once it is over.'"
    )
    assert await page.locator("#board .pile").count() == 0


@pytest.mark.parametrize("width, height", [(390, 844), (360, 740)])
async def test_a_replay_fits_a_phone(site: Site, width: int, height: int) -> None:
    """The move list goes under the board and nothing overflows sideways."""
    page = await site.page({"width": width, "height": height}, has_touch=True, is_mobile=True)
    game_id = await start_position(page, "klondike", klondike_hearts_locked(empty_seventh=True).to_text())
    await play_as_the_page(site, page, game_id, BLUNDER_LOG)
    await page.evaluate("id => { location.hash = '#replay/' + id; }", game_id)
    await _position_text(page, f"Step {len(BLUNDER_LOG) + 1} of {len(BLUNDER_LOG) + 1}")
    await page.locator("#analysis-sentence").wait_for(state="attached")
    scroll, client = await page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert scroll <= client == width
    board = await page.locator("#board").bounding_box()
    moves = await page.locator("#move-list").bounding_box()
    assert board is not None and moves is not None and moves["y"] >= board["y"] + board["height"] - 1
