"""Frame times of the browser client while cards move (target: a
median under 16 ms at phone size).

A real server and Debian's headless Chromium at 390×844 with touch, with
vsync and the frame-rate limit off, so that a frame takes what its work
takes instead of waiting for the next 60 Hz tick.  The page records
every ``requestAnimationFrame`` interval; the bench plays WordLink deal 1
(draw, move the waste card home, undo, redo, …) and keeps the intervals
while cards are moving.  The baseline is the same page in the same run
with only a 2-pixel dot moving (without motion Chromium makes no frame
at all), so a loaded machine shows in both figures.

    python bench/web_frames.py              # 30 moves
    python bench/web_frames.py --moves 10
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "server"), str(ROOT / "tests" / "web")]

from arena_servers import make_settings  # noqa: E402
from playwright.async_api import Page, async_playwright  # noqa: E402
from web_harness import CHROMIUM, CHROMIUM_ARGS, cards_settled, pile, start_from_lobby, top_card  # noqa: E402

from server.transport.app import ArenaServer  # noqa: E402
from server.storage.memory import MemoryStore  # noqa: E402

PHONE = {"width": 390, "height": 844}
UNTHROTTLED = ["--disable-gpu-vsync", "--disable-frame-rate-limit"]
IDLE_FRAMES = 600

RECORDER = """
window.__frames = [];
window.__recording = false;
let last = null;
const tick = (now) => {
  if (window.__recording && last !== null) window.__frames.push(now - last);
  last = now;
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
"""


async def record(page: Page, action: object) -> list[float]:
    """The frame intervals from just before ``action`` until the cards land."""
    await page.evaluate("window.__frames = []; window.__recording = true")
    await action()  # type: ignore[operator]
    await cards_settled(page)
    return list(await page.evaluate("window.__recording = false; window.__frames.splice(0)"))


async def idle(page: Page) -> list[float]:
    """The same page with one tiny dot moving off the board: without any
    motion Chromium would make no frames, so the baseline is the cost of
    a frame that does (almost) nothing."""
    await page.evaluate(
        """() => {
            const dot = Object.assign(document.createElement('div'), {id: 'bench-dot'});
            Object.assign(dot.style, {position: 'fixed', left: '0', top: '0', width: '2px', height: '2px'});
            document.body.append(dot);
            dot.animate([{transform: 'translateX(0)'}, {transform: 'translateX(8px)'}], {duration: 300, iterations: Infinity});
            window.__frames = []; window.__recording = true;
        }"""
    )
    await page.wait_for_function("n => window.__frames.length >= n", arg=IDLE_FRAMES)
    return list(await page.evaluate("window.__recording = false; document.getElementById('bench-dot').remove(); window.__frames.splice(0)"))


async def moves(page: Page, count: int) -> list[float]:
    """``count`` moves that slide cards: draws, a waste card home and back (undo, redo)."""
    frames: list[float] = []
    actions = [
        lambda: page.click(pile("s")),
        lambda: page.click("#undo"),
        lambda: page.click("#redo"),
        lambda: page.dblclick(top_card("t1")),
        lambda: page.click("#undo"),
    ]
    for i in range(count):
        before = await page.evaluate("document.querySelector('.stats [data-stat=\"moves\"] dd').textContent")
        frames += await record(page, actions[i % len(actions)])
        await page.wait_for_function(
            "before => document.querySelector('.stats [data-stat=\"moves\"] dd').textContent !== before"
            " || document.querySelector('.message').textContent !== ''",
            arg=before,
        )
        await cards_settled(page)
    return frames


def line(label: str, frames: list[float]) -> str:
    ordered = sorted(frames)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return f"{label:<22} frames {len(frames):5d}  median {statistics.median(frames):6.2f} ms  p95 {p95:6.2f} ms"


async def main(move_count: int) -> None:
    async with ArenaServer(make_settings(), store=MemoryStore()) as server:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS + UNTHROTTLED)
            try:
                context = await browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, device_scale_factor=2)
                await context.add_init_script(RECORDER)
                page = await context.new_page()
                await page.goto(f"http://{server.settings.host}:{server.port}/")
                await page.wait_for_selector('#connection[data-state="online"]')
                await start_from_lobby(page, "klondike", deal=1)
                baseline = await idle(page)
                moving = await moves(page, move_count)
            finally:
                await browser.close()
    print(f"WordLink deal 1 at {PHONE['width']}x{PHONE['height']} (touch, 2x), vsync off; {move_count} moves")
    print(line("baseline (a dot)", baseline))
    print(line("cards moving", moving))
    print(f"median ratio moving/idle: {statistics.median(moving) / statistics.median(baseline):.2f}")
    print(f"target: median under 16 ms while cards move: {'met' if statistics.median(moving) < 16 else 'MISSED'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=30, help="moves played while frames are recorded")
    asyncio.run(main(parser.parse_args().moves))
