"""Every board fits the screen: at 1280×720, 1366×768 and 1920×1080 and on
phones 360–430 px wide (touch), each game at the deal and after its usual
growth shows every card inside the viewport with no page scroll either
way; on a phone the board fills at least 70% of the height between the
header and the toolbar at the deal; a pile that grows moves no other
pile; the header stays one line and no caption is cut.

The growth is played through the real server: Chequers' deal 5 grows its
row-1 pile t7 to nine cards with moves found by the engine, WordLink and
Broken Deck start from a practice position with a thirteen-card column
and one more card is moved onto it, and Lara's Game draws its spread.
A message that wraps above the board makes room rather than a scroll.
"""

from __future__ import annotations

from typing import Any, AsyncIterator

import pytest
from playwright.async_api import Page, ViewportSize
from tests.web.web_harness import Site, cards_settled, sign_in, start_from_lobby, start_position

pytestmark = pytest.mark.browser

SIZES: list[ViewportSize] = [
    {"width": 1280, "height": 720}, {"width": 1366, "height": 768}, {"width": 1920, "height": 1080},
    {"width": 360, "height": 740}, {"width": 390, "height": 844}, {"width": 412, "height": 915},
    {"width": 430, "height": 932},
]
PHONE_FILL = 0.7
MIN_PHONE_CORNER_PX = 12

RANKS = "A23456789TJQK"
DECK = [rank + suit for suit in "SHDC" for rank in RANKS]

# Deal 5's pile t7 (in the first row of piles on a phone and a desktop
# alike) grows from four cards to nine; the engine's moves for it.
CHEQUERS_DEAL = 5
CHEQUERS_GROWTH = (
    "t1-t7 t2-t5 t8-t9 t8-t9 t11-t6 t11-t3 t13-t3 t3-t7 t3-t7 t3-t7 t13-t1 t14-t3 t3-t8 t3-t8 "
    "t15-t2 t15-t9 t15-t6 t20-t1 t24-t6 t6-t8 t6-t8 t6-t8 t6-t8 t22-t13 t22-t7"
).split()
CHEQUERS_GROWN = 9

# A column of thirteen (six face down in WordLink), and the black six that
# goes onto its red seven.
COLUMN_UP = "KH QC JD TS 9H 8C 7D".split()
COLUMN_UNDER = "2S 3S 4S 5S 2C 3C".split()
SIX = "6S"


def rest(used: list[str]) -> list[str]:
    return [card for card in DECK if card not in used]


def wordlink_grown() -> str:
    stock = rest([*COLUMN_UNDER, *COLUMN_UP, SIX])
    return "\n".join([
        "klondike deal=1 draw=1 scoring=standard auto_collect=false undo_limit=none hint_limit=none",
        "moves=0 score=0",
        f"s: [{' '.join(stock)}]",
        "w:", "fs:", "fh:", "fd:", "fc:",
        f"t1: {SIX}", "t2:", "t3:", "t4:", "t5:", "t6:",
        f"t7: [{' '.join(COLUMN_UNDER)}] {' '.join(COLUMN_UP)}",
    ])


def broken_deck_grown() -> str:
    others = rest([*COLUMN_UNDER, *COLUMN_UP, SIX])
    columns = [others[i::6] for i in range(6)]
    return "\n".join([
        "broken-deck deal=1 difficulty=relaxed practice=true",
        "moves=0",
        f"t1: {' '.join(COLUMN_UNDER + COLUMN_UP)}",
        f"t2: {SIX}",
        *(f"t{i + 3}: {' '.join(cards)}" for i, cards in enumerate(columns)),
        "c1:", "c2:", "c3:", "c4:", "r:", "fs:", "fh:", "fd:", "fc:",
    ])


MEASURE = """() => {
    const box = (node) => node.getBoundingClientRect();
    const header = document.querySelector('.top');
    const toolbar = document.querySelector('.toolbar');
    const fixed = getComputedStyle(toolbar).position === 'fixed';
    const floor = fixed ? box(toolbar).top : innerHeight;
    const cards = [...document.querySelectorAll('#board .card')].map(box);
    const piles = [...document.querySelectorAll('#board .pile')];
    const pileBoxes = piles.map(box);
    const wrap = box(document.querySelector('.board-wrap'));
    const cut = [...document.querySelectorAll('#board .caption')].filter((node) => {
        const b = box(node);
        return b.left < Math.max(0, wrap.left) - 0.5 || b.right > Math.min(innerWidth, wrap.right) + 0.5;
    }).map((node) => node.textContent);
    const texts = [];
    const walker = document.createTreeWalker(header, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(walker.currentNode);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0);
        if (rects.length) texts.push({text: walker.currentNode.textContent,
                                      lines: new Set(rects.map((r) => Math.round(r.top))).size,
                                      middle: (rects[0].top + rects[0].bottom) / 2});
    }
    const corners = [...document.querySelectorAll('#board .card.face:not(.half) .corner')]
        .map((node) => parseFloat(getComputedStyle(node).fontSize));
    return {
        scrollHeight: document.scrollingElement.scrollHeight, scrollWidth: document.scrollingElement.scrollWidth,
        innerHeight, innerWidth, floor, headerBottom: box(header).bottom,
        cards: cards.length,
        left: Math.min(...cards.map((b) => b.left)), right: Math.max(...cards.map((b) => b.right)),
        top: Math.min(...cards.map((b) => b.top)), bottom: Math.max(...cards.map((b) => b.bottom)),
        boardTop: Math.min(...pileBoxes.map((b) => b.top)), boardBottom: Math.max(...pileBoxes.map((b) => b.bottom)),
        piles: Object.fromEntries(piles.map((node, i) => [node.dataset.pile,
            [pileBoxes[i].x, pileBoxes[i].y, pileBoxes[i].width, pileBoxes[i].height].map(Math.round)])),
        cardWidth: Math.round(cards[0].width), corner: Math.min(...corners),
        cut, texts,
    };
}"""


def size_id(size: ViewportSize) -> str:
    return f"{size['width']}x{size['height']}"


def phone(size: ViewportSize) -> bool:
    return size["width"] < 600


def check_fits(shown: dict[str, Any], size: ViewportSize, where: str) -> None:
    """No page scroll, every card on the screen above the toolbar, a
    readable corner, no caption cut, and a header of one line."""
    assert shown["scrollHeight"] <= shown["innerHeight"], f"{where}: the page scrolls: {shown['scrollHeight']}"
    assert shown["scrollWidth"] <= shown["innerWidth"], f"{where}: the page scrolls sideways: {shown['scrollWidth']}"
    assert shown["cards"] > 0, where
    assert shown["left"] >= 0 and shown["right"] <= shown["innerWidth"], f"{where}: a card off the side: {shown}"
    assert shown["top"] >= shown["headerBottom"] and shown["bottom"] <= shown["floor"] + 0.5, (
        f"{where}: a card below the screen or under the toolbar: bottom {shown['bottom']}, floor {shown['floor']}")
    if phone(size):
        assert shown["corner"] >= MIN_PHONE_CORNER_PX, f"{where}: ranks {shown['corner']} px"
    assert not shown["cut"], f"{where}: captions cut at the board's edge: {shown['cut']}"
    wrapped = [text for text in shown["texts"] if text["lines"] != 1]
    middles = [text["middle"] for text in shown["texts"]]
    assert not wrapped and max(middles) - min(middles) < 8, f"{where}: the header is not one line: {shown['texts']}"


def fill(shown: dict[str, Any]) -> float:
    """The share of the height between the header and the toolbar that the
    board's piles take, from their boxes."""
    return (shown["boardBottom"] - shown["boardTop"]) / (shown["floor"] - shown["headerBottom"])


def same_piles(before: dict[str, Any], after: dict[str, Any], where: str) -> None:
    moved = {name: (box, after["piles"].get(name)) for name, box in before["piles"].items()
             if after["piles"].get(name) != box}
    assert not moved, f"{where}: piles moved or resized as one grew: {moved}"


async def measure(page: Page) -> dict[str, Any]:
    return dict(await page.evaluate(MEASURE))


async def send(page: Page, moves: list[str]) -> None:
    """Play ``moves`` as the page's player, each after the last one's reply."""
    for move in moves:
        await page.evaluate(
            "move => window.arena.request({type: 'move', game_id: location.hash.split('/')[1], move})", move)


async def wait_for_size(page: Page, pile: str, cards: int) -> None:
    """Until the page shows ``cards`` cards (face down or up) in ``pile``."""
    await page.wait_for_function(
        "([pile, cards]) => document.querySelectorAll(`#board .pile[data-pile='${pile}'] .card`).length === cards",
        arg=[pile, cards],
    )


async def start(page: Page, site: Site, game: str, deal: int = 5) -> None:
    await page.goto(site.base_url + "#lobby")
    await page.wait_for_selector(f'.tile[data-game="{game}"]')
    await start_from_lobby(page, game, deal=deal)


async def grown_boards(page: Page, site: Site) -> AsyncIterator[tuple[str, str]]:
    """Each game from its deal through its usual growth, played on the
    page: yields ``(game, stage)`` while the page shows that stage, "deal",
    then for WordLink and Broken Deck "grown" (a column of 13), then
    "longer" (one card more, Chequers' grown pile, Lara's drawn spread)."""
    for game, position in (("klondike", wordlink_grown()), ("broken-deck", broken_deck_grown())):
        await start(page, site, game)
        yield game, "deal"
        await start_position(page, game, position)
        await cards_settled(page)
        yield game, "grown"
        column, source = ("t7", "t1") if game == "klondike" else ("t1", "t2")
        await send(page, [f"{source}-{column}"])
        await wait_for_size(page, column, 14)
        await cards_settled(page)
        yield game, "longer"
    await start(page, site, "chequers", deal=CHEQUERS_DEAL)
    yield "chequers", "deal"
    await send(page, CHEQUERS_GROWTH)
    await wait_for_size(page, "t7", CHEQUERS_GROWN)
    await cards_settled(page)
    yield "chequers", "longer"
    await start(page, site, "laras-game")
    yield "laras-game", "deal"
    await send(page, ["draw"])
    await page.wait_for_selector('#board .pile[data-pile="r"] .card')
    await cards_settled(page)
    yield "laras-game", "longer"


@pytest.mark.parametrize("size", SIZES, ids=size_id)
async def test_every_board_fits_at_the_deal_and_as_it_grows(site: Site, size: ViewportSize) -> None:
    page = await site.page(viewport=size, has_touch=phone(size), is_mobile=phone(size))
    await sign_in(page, "Bartholomew Longname")
    seen: dict[str, dict[str, Any]] = {}
    async for game, stage in grown_boards(page, site):
        shown = seen[stage] = await measure(page)
        check_fits(shown, size, f"{game}, {stage}")
        if stage == "deal" and phone(size):
            assert fill(shown) >= PHONE_FILL, f"{game} at the deal fills {fill(shown):.0%} of the height"
        if stage == "longer":
            # From the position of 13 where there is one, else from the deal.
            same_piles(seen.pop("grown", seen["deal"]), shown, game)
            seen.clear()


async def test_a_message_that_wraps_makes_room_instead_of_scrolling(site: Site) -> None:
    """The lines above the board change its room: a message of three lines
    on a small phone shrinks the board's boxes rather than scrolling the page."""
    size: ViewportSize = {"width": 360, "height": 740}
    page = await site.page(viewport=size, has_touch=True, is_mobile=True)
    await start_position(page, "klondike", wordlink_grown())
    before = await measure(page)
    await page.evaluate("window.arena.screen.say('That move is not allowed here, and this sentence is long enough"
                        " to take three lines of a small phone, pushing the board down.', 'error')")
    await page.wait_for_function("document.scrollingElement.scrollHeight <= innerHeight")
    after = await measure(page)
    check_fits(after, size, "klondike under a long message")
    assert after["boardTop"] > before["boardTop"], "the message did not move the board"
