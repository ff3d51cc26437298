"""Where did it go wrong, in words and on the board, at 390×844 and
1366×768: a WordLink game lost by one move (``BLUNDER_LOG``: four draws,
then ``w-t7`` fills the only empty column with the K♥) and resigned.
The result card and the move list say moves in words, an arrow on the
board joins the losing move's source and target piles, and the winning
line is stepped on the board one move at a time with its counter, each
step moving the cards the move names.  On the phone the analysis starts
folded under the board, which stays on screen when it opens."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page, ViewportSize

import engine
from tests.solver.positions import klondike_hearts_locked
from tests.solver.test_analysis import BLUNDER_LOG
from tests.web.test_web_replay import play_as_the_page
from tests.web.web_harness import Site, start_from_lobby, start_position

pytestmark = pytest.mark.browser

GAMES = {"klondike": 4, "broken-deck": 12, "laras-game": 3, "chequers": 5}
"""Each game's deal for the move list's words: a few of the engine's own
suggested moves are played on it."""
SUIT = re.compile("[♠♥♦♣]")

SIZES: list[ViewportSize] = [{"width": 390, "height": 844}, {"width": 1366, "height": 768}]
LOSING_WORDS = "K♥ from the waste to empty column 7"
# A move in notation: what the words must never show ("w-t7", "t2-t1x3", "draw").
CODE = re.compile(r"\b[a-z]+\d*-[a-z]+\d*(x\d+)?\b|^draw$")

BOARD = """() => Object.fromEntries([...document.querySelectorAll('#board .pile[data-pile]')].map((pile) => [
    pile.dataset.pile,
    {down: pile.querySelectorAll('.card.back').length,
     up: [...pile.querySelectorAll('.card.face:not(.under)')].map((card) => card.dataset.code)}]))"""

ARROW = """() => {
    const layer = document.querySelector('.move-arrow');
    if (!layer) return null;
    const line = layer.querySelector('line');
    const box = layer.getBoundingClientRect();
    const at = (name) => Number(line.getAttribute(name));
    const inside = (pile, x, y) => {
        const r = document.querySelector(`#board .pile[data-pile="${pile}"]`).getBoundingClientRect();
        return x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
    };
    const [x1, y1, x2, y2] = [box.left + at('x1'), box.top + at('y1'), box.left + at('x2'), box.top + at('y2')];
    return {kind: layer.dataset.kind, src: layer.dataset.src, dst: layer.dataset.dst,
            label: layer.getAttribute('aria-label'),
            fromSource: inside(layer.dataset.src, x1, y1), toTarget: inside(layer.dataset.dst, x2, y2)};
}"""


async def _lost_game(site: Site, viewport: ViewportSize) -> tuple[Page, str]:
    page = await site.page(viewport, has_touch=viewport["width"] < 600, is_mobile=viewport["width"] < 600)
    game_id = await start_position(page, "klondike", klondike_hearts_locked(empty_seventh=True).to_text())
    await play_as_the_page(site, page, game_id, BLUNDER_LOG)
    await page.wait_for_selector(".result:not([hidden])")
    return page, game_id


async def _position(page: Page, text: str) -> None:
    """Wait for the replay to show ``text``; the replay's panel may not be
    in the page yet when the wait starts (a throw would end the wait)."""
    await page.wait_for_function("text => document.getElementById('replay-position')?.textContent === text", arg=text)


async def _board(page: Page) -> dict[str, Any]:
    return dict(await page.evaluate(BOARD))


@pytest.mark.parametrize("viewport", SIZES, ids=lambda size: f"{size['width']}x{size['height']}")
async def test_the_result_card_names_the_losing_move_in_words(site: Site, viewport: ViewportSize) -> None:
    page, _ = await _lost_game(site, viewport)
    await page.click("#analyse")
    await page.wait_for_function("!document.querySelector('.result .analysis').textContent.startsWith('Looking')")
    sentence = await page.inner_text(".result .analysis")
    assert sentence == (
        f"Move 5, {LOSING_WORDS}, lost it. Replay shows it on the board and steps through a winning line."
    )


@pytest.mark.parametrize("viewport", SIZES, ids=lambda size: f"{size['width']}x{size['height']}")
async def test_the_losing_move_has_an_arrow_and_the_winning_line_is_stepped_on_the_board(
    site: Site, viewport: ViewportSize
) -> None:
    page, game_id = await _lost_game(site, viewport)
    phone = viewport["width"] < 600
    await page.click("#open-replay")
    steps = len(BLUNDER_LOG) + 1
    await _position(page, f"Step {steps} of {steps}")
    sentence = page.locator("#analysis-sentence")
    await sentence.wait_for(state="attached")

    details = page.locator("#replay-analysis")
    assert await details.evaluate("node => node.open") is (not phone), "folded on a phone, open on a desktop"
    board = await page.locator("#board").bounding_box()
    assert board is not None and 0 <= board["y"] < viewport["height"] / 2, board
    if phone:
        await page.click("#replay-analysis summary")
        assert await details.evaluate("node => node.open")
        opened = await page.locator("#board").bounding_box()
        assert opened is not None and opened["y"] == board["y"], "opening the analysis leaves the board where it was"
    assert await sentence.inner_text() == f"Still winnable until move 4 (step 4); move 5, {LOSING_WORDS}, lost it."

    labels = await page.eval_on_selector_all("#move-list li > button", "buttons => buttons.map(b => b.textContent)")
    assert labels[0] == "Deal" and labels[5] == LOSING_WORDS and labels[-1] == "Resigned", labels
    assert labels[1:5] == ["draw one", "draw one", "turn the stock over", "draw one"], labels
    assert await page.get_attribute("#move-list li[data-step='5'] > button", "title") == "w-t7", "the code, for experts"
    assert await page.locator(".move-arrow").count() == 0, "no arrow away from the losing move"

    await page.click("#to-losing")
    await _position(page, f"Step 4 of {steps}")
    arrow = await page.evaluate(ARROW)
    assert arrow == {"kind": "losing", "src": "w", "dst": "t7", "fromSource": True, "toTarget": True,
                     "label": f"The move that lost the game: {LOSING_WORDS}"}
    await page.click("#replay-next")
    await _position(page, f"Step 5 of {steps}")
    assert await page.inner_text("#replay-words") == f"{LOSING_WORDS}: this move lost the game."
    assert await page.locator(".move-arrow").count() == 0

    await _step_through_the_winning_line(page, game_id)


async def _step_through_the_winning_line(page: Page, game_id: str) -> None:
    """Next, move by move: the counter counts, the words say the move and
    the cards it names move; the next move's arrow leads the way, and the
    page does not scroll (the move list scrolls inside itself)."""
    if not await page.locator("#play-winning-line").is_visible():
        await page.click("#replay-analysis summary")
    solution = (await page.evaluate("id => window.arena.request({type: 'analyse', game_id: id})", game_id))["solution"]
    total = len(solution)
    assert total > 3
    await page.click("#play-winning-line")
    await _position(page, f"Winning line, move 0 of {total}")
    assert await page.inner_text("#move-list li[data-step='0'] > button") == "Last winnable position"
    scrolled = await page.evaluate("window.scrollY")
    before = await _board(page)
    for number, move in enumerate(solution, start=1):
        arrow = await page.evaluate(ARROW)
        assert arrow is not None and arrow["kind"] == "next" and arrow["fromSource"] and arrow["toTarget"], arrow
        await page.click("#replay-next")
        await _position(page, f"Winning line, move {number} of {total}")
        after = await _board(page)
        words = await page.inner_text("#replay-words")
        assert words.endswith(".") and not CODE.search(words.rstrip(".")), words
        assert arrow["label"] == f"Next: {words.rstrip('.')}", "the arrow said this move before it was played"
        assert after != before, f"move {number} ({move}) changed the board"
        assert await page.evaluate("window.scrollY") == scrolled, f"move {number} scrolled the page"
        if "-" in move:
            src, rest = move.split("-")
            dst, _, count = rest.partition("x")
            moved = before[src]["up"][-int(count or 1)]
            assert moved in after[dst]["up"] and moved not in after[src]["up"], (move, before, after)
            assert words.startswith(("K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2", "A")), words
        before = after
    assert await page.locator(".move-arrow").count() == 0, "the last move has no next"
    assert [before[name]["up"][-1] for name in ("fs", "fh", "fd", "fc")] == ["KS", "KH", "KD", "KC"]
    await page.click("#replay-first")
    await _position(page, f"Winning line, move 0 of {total}")
    await page.click("#replay-last")
    await _position(page, f"Winning line, move {total} of {total}")


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_every_games_moves_read_in_words_from_the_real_views(site: Site, game: str) -> None:
    """The four games' views as the server sends them, not the unit tests'
    hand-made ones: each move of the list names a card and no pile code,
    with the code in its tooltip."""
    page = await site.page({"width": 1366, "height": 768})
    game_id = await start_from_lobby(page, game, deal=GAMES[game])
    options = await page.evaluate("window.arena.screen.mirror.view.options")
    played = engine.new_game(game, GAMES[game], **options)
    moves: list[str] = []
    for _ in range(4):
        suggested = played.suggest()
        assert suggested is not None
        played.play(suggested)
        moves.append(str(suggested))
    for move in moves:
        await page.evaluate("([id, move]) => window.arena.request({type: 'move', game_id: id, move})", [game_id, move])
    await page.evaluate("id => window.arena.request({type: 'resign', game_id: id})", game_id)
    await page.evaluate("id => { location.hash = '#replay/' + id; }", game_id)
    steps = len(moves) + 1
    await _position(page, f"Step {steps} of {steps}")
    items = await page.eval_on_selector_all(
        "#move-list li > button", "buttons => buttons.map(b => [b.textContent, b.getAttribute('title')])"
    )
    assert [title for _, title in items[1:-1]] == moves
    for words, code in items[1:-1]:
        assert not CODE.search(words), (code, words)
        assert SUIT.search(words) or words.startswith(("draw", "turn")), (code, words)
