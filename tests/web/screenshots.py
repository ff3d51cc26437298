"""Regenerate the screenshots in docs/screenshots/ (run: python -m tests.web.screenshots,
or ``python -m tests.web.screenshots fit`` for only the boards at each screen size).

Desktop pictures are 1000 px wide; phone ones are the 390×844 screen a
player sees (touch), not the whole page, to keep the PNGs small.

Each board is shown a few moves into a real game: the moves are the
engine's own suggestions for the same deal, sent through the page as a
player's moves, so the pictures show what a person sees mid-game.

The friends panel, the notification list and the devices panel are a
real server's too: players become friends by code, one plays a game, one
blocks another, and a challenge waits in a phone's notifications.

The analysis is a real one: a WordLink game lost by one move
(``BLUNDER_LOG``) and resigned, replayed with the losing move's arrow on a
desktop and a step of the winning line on a phone.

The race and the leaderboard are real too: the day's WordLink deal is
pinned to deal 1 (as the race tests do), three pages race on it, each a
different way along its winning line, and four players win it through the
protocol, one of them as the page's own player, so the panel shows a rank,
while a fifth is still playing.  Every player here is new today, comes from
one address and plays its line at once, so the public board's rules are off
(``PUBLIC_BOARD_RULES_OFF``), as in the race tests: with them on, no win
ranks and the panel has no row of yours.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from playwright.async_api import Page, ViewportSize

import engine
from protocol import to_server as ts
from server.deals.daily import utc_day
from tests.races.arena_races import DEAL_1_DRAW_1_WIN, PUBLIC_BOARD_RULES_OFF, WireClient, pin_daily_deal, player
from tests.solver.positions import klondike_hearts_locked
from tests.solver.test_analysis import BLUNDER_LOG
from tests.web.test_web_fit import SIZES, grown_boards, size_id
from tests.web.test_web_races import win_daily_deal
from tests.web.web_harness import Site, cards_settled, open_site, sign_in, start_position

ROOT = Path(__file__).resolve().parents[2]

OUT = ROOT / "docs" / "screenshots"
DESKTOP: ViewportSize = {"width": 1000, "height": 720}
PHONE: ViewportSize = {"width": 390, "height": 844}
BOARDS: tuple[tuple[str, str, int, dict[str, object], int], ...] = (
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


async def play(page: Page, moves: list[str] | tuple[str, ...], game_id: str | None = None) -> None:
    """Send moves as the page's player (in the page's own game, or ``game_id``)."""
    for move in moves:
        await page.evaluate(
            "([move, id]) => window.arena.request({type: 'move', game_id: id ?? location.hash.split('/')[1], move})",
            [move, game_id],
        )
    await page.wait_for_timeout(300)
    await cards_settled(page)


async def board(site: Site, player: str, game_id: str, deal: int, options: dict[str, object], count: int,
                viewport: ViewportSize) -> Page:
    page = await site.page(viewport, has_touch=viewport is PHONE, is_mobile=viewport is PHONE)
    await sign_in(page, player)
    await page.click(f'.tile[data-game="{game_id}"]')
    await page.select_option("#deal-kind", "number")
    await page.fill("#deal-number", str(deal))
    await page.click("#start-game")
    await page.wait_for_selector("#board .pile")
    await play(page, suggested_moves(game_id, deal, options, count))
    return page

ANALYSIS_WAIT_MS = 300_000
"""The analysis is a solver search in a worker process: on a loaded
machine it takes far longer than Playwright's 30 s default."""


async def analysis(site: Site) -> None:
    """A game lost by one move, replayed: the losing move's arrow (desktop)
    and the third move of the winning line, the analysis folded (phone)."""
    for viewport, name in ((DESKTOP, "replay-analysis.png"), (PHONE, "replay-analysis-phone.png")):
        page = await site.page(viewport, has_touch=viewport is PHONE, is_mobile=viewport is PHONE)
        await sign_in(page, "Fay")
        game_id = await start_position(page, "klondike", klondike_hearts_locked(empty_seventh=True).to_text())
        await play(page, BLUNDER_LOG, game_id)
        await page.evaluate("id => window.arena.request({type: 'resign', game_id: id})", game_id)
        await page.evaluate("id => { location.hash = '#replay/' + id; }", game_id)
        await page.locator("#analysis-sentence").wait_for(state="attached", timeout=ANALYSIS_WAIT_MS)
        if viewport is PHONE:
            await page.click("#replay-analysis summary")
            await page.click("#play-winning-line")
            for _ in range(3):
                await page.click("#replay-next")
            await page.click("#replay-analysis summary")
            await page.evaluate("window.scrollTo(0, 0)")
        else:
            await page.click("#to-losing")
        await page.wait_for_selector(".move-arrow")
        await cards_settled(page)
        await page.screenshot(path=OUT / name)


RACERS = (
    # name, viewport, moves along deal 1's winning line
    ("Ann", DESKTOP, 46),
    ("Bob", PHONE, 31),
    ("Cal", DESKTOP, 12),
)
WINNERS = (("Zed", 0.0), ("Yara", 0.5), ("Xavi", 1.6))
"""Players who win the pinned daily deal, and how long each pauses after the first move."""
PLAYING_MOVES = 40
PLAYING_PAUSE_SECONDS = 2.5
"""How far along the winning line the player still playing is, and how
long they paused after the first move (so their clock shows some time)."""


async def leaderboard(site: Site) -> None:
    """Four winners of the daily, the page's player third, and one attempt
    still being played."""
    page = await site.page(DESKTOP)
    await sign_in(page, "Dee")
    token = await page.evaluate("localStorage.getItem('arena.token')")
    for name, pause in WINNERS:
        client = await player(site.server.url, name)
        await win_daily_deal(client, pause)
        await client.close()
        if name == "Yara":
            own = await WireClient.open(site.server.url)
            await own.hello(token=token)
            await win_daily_deal(own, 1.0)
            await own.close()
    playing = await player(site.server.url, "Will")
    started, _ = await playing.new_game(deal="daily", options={"draw": 1})
    for number, move in enumerate(DEAL_1_DRAW_1_WIN[:PLAYING_MOVES]):
        await playing.request(ts.Move, game_id=started.game_id, move=move)
        if number == 0:
            await asyncio.sleep(PLAYING_PAUSE_SECONDS)
    await page.select_option("#leaderboard-variant", "klondike/draw=1,scoring=standard")
    await page.click("#leaderboard-refresh")
    await page.wait_for_selector("#leaderboard-table tr.me")
    await page.wait_for_selector("#leaderboard-playing tr[data-playing]")
    await page.locator("#leaderboard").screenshot(path=OUT / "leaderboard.png")
    await playing.close()


async def race(site: Site) -> None:
    """Three racers on the daily deal, each some way along its winning line."""
    pages = []
    for name, viewport, _ in RACERS:
        page = await site.page(viewport, has_touch=viewport is PHONE, is_mobile=viewport is PHONE)
        await sign_in(page, name)
        pages.append(page)
    host = pages[0]
    await host.click('.tile[data-game="klondike"]')
    await host.select_option("#race-deal", "daily")
    await host.click("#create-race")
    await host.wait_for_selector("#race-invite-code")
    code = await host.inner_text("#race-invite-code")
    for page in pages[1:]:
        await page.fill("#race-code", code)
        await page.click("#join-race")
        await page.wait_for_selector("#racers tbody tr")
    await host.wait_for_function(f"document.querySelectorAll('#racers tbody tr').length === {len(pages)}")
    await host.click("#start-race")
    for page, (_, _, count) in zip(pages, RACERS):
        await page.wait_for_selector("#board .pile")
        game_id = await page.evaluate("window.arena.screen.gameId")
        await play(page, DEAL_1_DRAW_1_WIN[:count], game_id)
    await host.wait_for_timeout(2500)
    await host.screenshot(path=OUT / "race.png", full_page=True)
    await pages[1].screenshot(path=OUT / "race-phone.png")


async def social(site: Site) -> None:
    """Ann's friends (one playing, one in the lobby), a request waiting,
    her devices with a link code; Bob's notifications on a phone."""
    ann = await site.page(DESKTOP)
    await sign_in(ann, "Ann")
    code = (await ann.inner_text("#friend-code")).strip()
    friends = []
    for name, viewport in (("Bob", PHONE), ("Cleo", DESKTOP), ("Dan", DESKTOP)):
        page = await site.page(viewport, has_touch=viewport is PHONE, is_mobile=viewport is PHONE)
        await sign_in(page, name)
        await page.fill("#friend-code-input", code)
        await page.click("#add-friend")
        await page.wait_for_selector('#friend-requests li[data-request="sent"]')
        friends.append(page)
    bob, cleo, _ = friends
    for page in (bob, cleo):
        await ann.click(f'#friend-requests li[data-player="{await page.evaluate("window.arena.playerId()")}"] [data-accept]')
    await ann.wait_for_function("document.querySelectorAll('#friend-list li[data-state]').length === 2")
    await cleo.click('.tile[data-game="broken-deck"]')
    await cleo.click("#start-game")
    await ann.wait_for_selector("#friend-list [data-follow]")
    await ann.click("#link-device")
    await ann.wait_for_selector("#link-code")
    await ann.locator("#friends").screenshot(path=OUT / "friends.png")
    await ann.locator("#devices").screenshot(path=OUT / "devices.png")
    await ann.click(f'[data-challenge="{await bob.evaluate("window.arena.playerId()")}"]')
    await ann.wait_for_selector("#race-invite-code")
    await bob.wait_for_function("document.getElementById('notice-count').textContent === '2'")
    await bob.click("#open-notices")
    await bob.screenshot(path=OUT / "notifications-phone.png")


async def fit(site: Site) -> None:
    """Each game grown as usual (``test_web_fit``) at each screen size the
    client is made for; desktops at half scale, to keep the files small."""
    folder = OUT / "fit"
    folder.mkdir(exist_ok=True)
    for size in SIZES:
        small = size["width"] < 600
        page = await site.page(size, has_touch=small, is_mobile=small, device_scale_factor=1 if small else 0.5)
        await sign_in(page, "Ann")
        async for game, stage in grown_boards(page, site):
            if stage == "longer":
                await page.screenshot(path=folder / f"{size_id(size)}-{game}.png")
        await page.context.close()


async def main(only_fit: bool) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    async with open_site(race_countdown_seconds=1.0, **PUBLIC_BOARD_RULES_OFF) as site:
        # Before any page opens: a lobby fixes the day's deals as it shows them.
        await pin_daily_deal(site.server.store, utc_day(site.server.hub.clock()))
        if not only_fit:
            await everything_else(site)
        await fit(site)
    for path in sorted(OUT.glob("**/*.png")):
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1024} KB")


async def everything_else(site: Site) -> None:
    """The lobby, the boards a few moves in, the race, the leaderboard and the social panels."""
    await leaderboard(site)
    await race(site)
    await social(site)
    await analysis(site)
    lobby = await site.page(DESKTOP)
    await sign_in(lobby, "Ann")
    for player, game_id, deal, options, count in BOARDS:
        page = await board(site, player, game_id, deal, options, count, DESKTOP)
        await page.screenshot(path=OUT / f"{game_id}.png", full_page=True)
    await lobby.click(".live .refresh")
    await lobby.wait_for_selector("#live-games li")
    # The click scrolled to the live games; the picture is the lobby's top.
    await lobby.evaluate("window.scrollTo(0, 0)")
    await lobby.screenshot(path=OUT / "lobby.png")
    for player, game_id, deal, options, count in BOARDS:
        phone = await board(site, f"{player}-phone", game_id, deal, options, count, PHONE)
        await phone.screenshot(path=OUT / f"{game_id}-phone.png")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:] == ["fit"]))
