"""A first visit of the web client: requests, bytes and time to the first
board in Debian's headless Chromium, the page with its bundles against
the same page with its separate modules (``?bundle=off``), in the same
run on the same server.

Each run loads the page once each way over each network (loopback, and
an emulated slow phone network), in turn so that a busy machine weighs
on both, each time in a fresh browser context (an empty cache) and as a
new player, and starts WordLink deal 1 as soon as the lobby is up.  From the page's own Resource Timing entries: the HTTP requests (the
page and its files; the WebSocket is one more either way), their bodies
as the server sent them (gzipped or not) and as the page read them; and
the time from the start of the navigation to the lobby's game tiles and
to the first board's piles (which includes the server starting the
game, the same either way).  One load each way comes first and is not
counted: the server builds the bundles on the first request for them,
once per version of the site (that time is printed on its own).

    python bench/web_load.py              # median of 5 runs
    python bench/web_load.py --runs 11
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if not __package__:
    # Run as a file, Python puts bench/ first on sys.path, where
    # bench/server.py would shadow the server package.
    sys.path.pop(0)
    sys.path.insert(0, str(ROOT))

from playwright.async_api import Browser, async_playwright  # noqa: E402

from server.runtime.progress import ProgressLine  # noqa: E402
from server.storage.memory import MemoryStore  # noqa: E402
from server.transport.app import ArenaServer  # noqa: E402
from server.transport.pagebundle import build_page  # noqa: E402
from tests.server.arena_servers import make_settings  # noqa: E402
from tests.web.web_harness import CHROMIUM, CHROMIUM_ARGS, DESKTOP, TIMEOUT_MS  # noqa: E402

WAYS = {"separate modules": "?bundle=off", "bundled": ""}
MARKS = """
window.__marks = {};
new MutationObserver(() => {
  const marks = window.__marks;
  if (!marks.lobby && document.querySelector('.tile[data-game]')) marks.lobby = performance.now();
  if (!marks.board && document.querySelector('#board .pile')) marks.board = performance.now();
}).observe(document, {childList: true, subtree: true});
"""
"""Notes when the lobby and the first board appear, in ms since the
navigation started (``performance.now()``'s origin)."""
FIGURES = """() => {
  const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
  return {
    requests: entries.length,
    sent: entries.reduce((sum, entry) => sum + entry.encodedBodySize, 0),
    raw: entries.reduce((sum, entry) => sum + entry.decodedBodySize, 0),
    lobby: window.__marks.lobby,
    board: window.__marks.board,
  };
}"""
COLUMNS = ("requests", "raw", "sent", "lobby", "board")


NETWORKS: dict[str, dict[str, float] | None] = {
    "loopback": None,
    "slow 4G": {"latency": 150, "downloadThroughput": 1.6e6 / 8, "uploadThroughput": 750e3 / 8},
}
"""The networks a visit is made over: the machine's own, and Chromium's
emulation of Lighthouse's "slow 4G" phone (150 ms added to each request,
1.6 Mbit/s down, 750 kbit/s up), where the number of requests and their
bytes cost what they cost a player."""


async def first_visit(browser: Browser, url: str, network: dict[str, float] | None) -> dict[str, float]:
    """One first visit at ``url`` to the first board; its figures."""
    context = await browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(TIMEOUT_MS)
    await context.add_init_script(MARKS)
    try:
        page = await context.new_page()
        if network is not None:
            cdp = await context.new_cdp_session(page)
            await cdp.send("Network.enable")
            await cdp.send("Network.emulateNetworkConditions", {"offline": False, **network})
        await page.goto(url)
        await page.click('.tile[data-game="klondike"]')
        await page.select_option("#deal-kind", "number")
        await page.fill("#deal-number", "1")
        await page.click("#start-game")
        await page.wait_for_function("window.__marks.board !== undefined")
        figures: dict[str, Any] = await page.evaluate(FIGURES)
    finally:
        await context.close()
    return {name: float(figures[name]) for name in COLUMNS}


def row(label: str, figures: dict[str, float]) -> str:
    return (
        f"{label:<22} {figures['requests']:8.0f} {figures['raw'] / 1024:9.1f} {figures['sent'] / 1024:9.1f}"
        f" {figures['lobby']:9.0f} {figures['board']:14.0f}"
    )


def report(network: str, runs: int, loads: dict[str, list[dict[str, float]]]) -> None:
    medians = {way: {name: statistics.median(load[name] for load in done) for name in COLUMNS} for way, done in loads.items()}
    print(f"first visit to WordLink deal 1 at {DESKTOP['width']}x{DESKTOP['height']} over {network}, median of {runs} runs")
    print(f"{'':<22} {'requests':>8} {'raw KiB':>9} {'sent KiB':>9} {'lobby ms':>9} {'first board ms':>14}")
    for way, figures in medians.items():
        print(row(way, figures))
    before, after = medians["separate modules"], medians["bundled"]
    print(f"{'ratio bundled/modules':<22} " + " ".join(
        f"{after[name] / before[name]:{width}.2f}" for name, width in zip(COLUMNS, (8, 9, 9, 9, 14))
    ))


def build_ms() -> float:
    """The median time of three builds of the page's bundles, in ms."""
    times = []
    for _ in range(3):
        started = time.perf_counter()
        build_page(ROOT / "client" / "web", ROOT / "client" / "web" / "index.html")
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def main(runs: int) -> None:
    built_ms = build_ms()
    measured: dict[str, dict[str, list[dict[str, float]]]] = {network: {way: [] for way in WAYS} for network in NETWORKS}
    async with ArenaServer(make_settings(), store=MemoryStore()) as server:
        base = f"http://{server.settings.host}:{server.port}/"
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                for query in WAYS.values():
                    await first_visit(browser, base + query, None)
                progress = ProgressLine(every=10.0)
                for run in range(runs):
                    for network, conditions in NETWORKS.items():
                        for way, query in WAYS.items():
                            measured[network][way].append(await first_visit(browser, base + query, conditions))
                    progress(run + 1, runs, "runs of a first visit each way over each network")
                progress.finish()
            finally:
                await browser.close()
    for network, loads in measured.items():
        report(network, runs, loads)
    print(f"bundles built in {built_ms:.0f} ms, once per version of the site (on the first request for them)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="first visits each way, after one each not counted")
    asyncio.run(main(parser.parse_args().runs))
