"""Regenerate the screenshots in docs/screenshots/ (run: python tests/web/screenshots.py).

Each board is shown a few moves into a real game: the moves are the
engine's own suggestions for the same deal, sent through the page as a
player's moves, so the pictures show what a person sees mid-game.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(HERE), str(ROOT)]

import engine  # noqa: E402  (needs the path above)
from playwright.async_api import Page  # noqa: E402
from web_harness import PHONE, Site, open_site  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
DESKTOP = {"width": 1000, "height": 720}
BOARDS = (
    # player, game, deal, options the lobby sends, moves to play first
    ("Bea", "klondike", 4, {"draw": 1}, 12),
    ("Cal", "broken-deck", 12, {}, 14),
    ("Dee", "laras-game", 3, {}, 6),
    ("Eli", "chequers", 5, {}, 12),
)


def suggested_moves(game_id: str, deal: int, options: dict[str, object], count: int) -> list[str]:
    game = engine.new_game(game_id, deal, **options)
    moves = []
    for _ in range(count):
        move = game.suggest()
        if move is None:
            break
        game.play(move)
        moves.append(str(move))
    return moves


async def play(page: Page, moves: list[str]) -> None:
    for move in moves:
        await page.evaluate(
            "move => window.arena.request({type: 'move', game_id: location.hash.split('/')[1], move})", move
        )
    await page.wait_for_timeout(300)


async def sign_in(page: Page, name: str) -> None:
    await page.fill("#player-name", name)
    await page.click("text=Save name")
    await page.wait_for_function("name => document.getElementById('connection').textContent.endsWith(name)", arg=name)


async def board(site: Site, player: str, game_id: str, deal: int, options: dict[str, object], count: int,
                viewport: dict[str, int]) -> Page:
    page = await site.page(viewport)
    await sign_in(page, player)
    await page.click(f'.tile[data-game="{game_id}"]')
    await page.select_option("#deal-kind", "number")
    await page.fill("#deal-number", str(deal))
    await page.click("#start-game")
    await page.wait_for_selector("#board .pile")
    await play(page, suggested_moves(game_id, deal, options, count))
    return page


async def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    async with open_site() as site:
        lobby = await site.page(DESKTOP)
        await sign_in(lobby, "Ann")
        for player, game_id, deal, options, count in BOARDS:
            page = await board(site, player, game_id, deal, options, count, DESKTOP)
            await page.screenshot(path=OUT / f"{game_id}.png", full_page=True)
        await lobby.click(".live .refresh")
        await lobby.wait_for_selector("#live-games li")
        await lobby.screenshot(path=OUT / "lobby.png")
        phone = await board(site, "Fay", "broken-deck", 12, {}, 14, PHONE)
        await phone.click("#board .pile[data-pile='t2'] .card.face >> nth=-1")
        await phone.screenshot(path=OUT / "broken-deck-phone.png", full_page=True)
    for path in sorted(OUT.glob("*.png")):
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    asyncio.run(main())
