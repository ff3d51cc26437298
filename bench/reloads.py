"""Reloads of the web client from one address at the server's default
limits: does each load come online, and what does it cost the server in
requests and TCP connections.

For each checkout (this one, and ``--baseline-root``, e.g. the main
checkout, in the same run), ``arena serve`` runs from that checkout at
its default settings (only keepalive pings off and logs quiet) and
Debian's headless Chromium loads the page once, then reloads it
``--reloads`` times back to back, each as soon as the one before is
online (or has waited ``--patience`` seconds for it).  Chromium's own
network log (the DevTools protocol) tells, per load, the HTTP requests
that reached the server (not the browser's cache) and the TCP
connections opened for them (a kept-alive one reused is not new); the
WebSocket is one more.

    python bench/reloads.py
    python bench/reloads.py --baseline-root /work/main --reloads 10
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if not __package__:
    # Run as a file, Python puts bench/ first on sys.path, where
    # bench/server.py would shadow the server package.
    sys.path.pop(0)
    sys.path.insert(0, str(ROOT))

from playwright.async_api import Browser, CDPSession, async_playwright  # noqa: E402

from bench.server import _start, stop  # noqa: E402
from tests.web.web_harness import CHROMIUM, CHROMIUM_ARGS, DESKTOP  # noqa: E402

ENVIRONMENT = {"ARENA_PING_INTERVAL": "none", "ARENA_LOG_LEVEL": "warning", "ARENA_REDIS_URL": "none"}
ONLINE = '#connection[data-state="online"]'


@dataclass
class Load:
    online: bool
    seconds: float
    requests: int
    connections: int


@dataclass
class NetworkLog:
    """What reached the network since ``clear``: responses and their connections."""

    responses: dict[str, dict[str, Any]] = field(default_factory=dict)
    cached: set[str] = field(default_factory=set)
    sockets: int = 0

    def clear(self) -> None:
        self.responses.clear()
        self.cached.clear()
        self.sockets = 0

    def attach(self, cdp: CDPSession) -> None:
        cdp.on("Network.responseReceived", lambda event: self.responses.__setitem__(event["requestId"], event["response"]))
        cdp.on("Network.requestServedFromCache", lambda event: self.cached.add(event["requestId"]))
        cdp.on("Network.webSocketCreated", lambda event: setattr(self, "sockets", self.sockets + 1))

    def load(self, online: bool, seconds: float) -> Load:
        """The requests that reached the server, and the TCP connections
        opened for them (a kept-alive one reused is not a new one)."""
        fetched = [
            response
            for request_id, response in self.responses.items()
            if request_id not in self.cached and not response.get("fromDiskCache") and response["url"].startswith("http")
        ]
        opened = sum(not response.get("connectionReused") for response in fetched)
        return Load(online, seconds, len(fetched), opened + self.sockets)


def start_server(root: Path) -> tuple[Any, str]:
    """``arena serve`` of the checkout at ``root``, and its page's URL."""
    run = "import sys; sys.path.insert(0, sys.argv.pop(1)); from server.cli import main; sys.exit(main())"
    process, url = _start([sys.executable, "-c", run, str(root), "serve", "--port", "0"], ENVIRONMENT)
    return process, url.replace("ws://", "http://").removesuffix("/ws") + "/"


async def measure(browser: Browser, url: str, reloads: int, patience: float) -> tuple[Load, list[Load]]:
    context = await browser.new_context(viewport=DESKTOP)
    page = await context.new_page()
    cdp = await context.new_cdp_session(page)
    await cdp.send("Network.enable")
    log = NetworkLog()
    log.attach(cdp)

    async def one(action: Any) -> Load:
        log.clear()
        started = time.perf_counter()
        try:
            await action()
            await page.wait_for_selector(ONLINE, timeout=patience * 1000)
            online = True
        except Exception:
            online = False
        seconds = time.perf_counter() - started
        await asyncio.sleep(0.2)
        return log.load(online, seconds)

    first = await one(lambda: page.goto(url, timeout=patience * 1000))
    loads = [await one(lambda: page.reload(timeout=patience * 1000)) for _ in range(reloads)]
    await context.close()
    return first, loads


def report(name: str, first: Load, loads: list[Load]) -> None:
    online = sum(load.online for load in loads)
    print(f"{name}")
    print(f"  first load: {'online' if first.online else 'NOT online'} in {first.seconds:.2f} s, "
          f"{first.requests} HTTP requests, {first.connections} TCP connections opened (WebSocket included)")
    print(f"  {len(loads)} reloads back to back: {online} online, {sum(load.seconds for load in loads):.1f} s in all; "
          f"per reload (median) {statistics.median(load.requests for load in loads):g} HTTP requests, "
          f"{statistics.median(load.connections for load in loads):g} TCP connections opened")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server-root", type=Path, default=ROOT)
    parser.add_argument("--baseline-root", type=Path, help="another checkout measured in the same run, first")
    parser.add_argument("--reloads", type=int, default=10)
    parser.add_argument("--patience", type=float, default=10.0, help="seconds a load may take to come online")
    args = parser.parse_args()
    roots = [("baseline " + str(args.baseline_root), args.baseline_root)] if args.baseline_root else []
    roots.append(("this checkout " + str(args.server_root), args.server_root))
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for name, root in roots:
            process, url = start_server(root)
            try:
                report(name, *await measure(browser, url, args.reloads, args.patience))
            finally:
                stop(process)
        await browser.close()


if __name__ == "__main__":
    asyncio.run(main())
