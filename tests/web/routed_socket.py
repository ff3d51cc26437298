"""The page's WebSocket through Playwright's WebSocket route, for the
browser tests that need the order of frames in their hands: every frame
the page sends is recorded, and what the server sends can be held back,
all of it or only some kinds, until released.  Holding back one kind
while the rest flows is how a test makes a message arrive later than it
usually does (the stale board's second tab, a late ``game_over``).
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from playwright.async_api import Page, WebSocketRoute
from tests.web.web_harness import TIMEOUT_MS


class RoutedSocket:
    """The page's WebSocket, passed through: what the page sent (decoded),
    and a hold that keeps the server's frames (``kinds`` of them, or all),
    in order, until released."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.held: list[str | bytes] | None = None
        self.kinds: set[str] | None = None
        self.welcomed = asyncio.Event()
        self.refused = asyncio.Event()
        self.route: WebSocketRoute | None = None

    def attach(self, route: WebSocketRoute) -> None:
        server = route.connect_to_server()
        self.route = route

        def from_page(message: str | bytes) -> None:
            self.sent.append(json.loads(message))
            server.send(message)

        def from_server(message: str | bytes) -> None:
            kind = json.loads(message).get("type")
            if kind == "welcome":
                self.welcomed.set()
            if self.held is None or (self.kinds is not None and kind not in self.kinds):
                route.send(message)
                return
            self.held.append(message)
            if kind == "error":
                self.refused.set()

        route.on_message(from_page)
        server.on_message(from_server)

    def hold(self, kinds: set[str] | None = None) -> None:
        """Keep what the server sends from now on (of ``kinds`` only, if given)."""
        self.held = []
        self.kinds = kinds

    def release(self) -> None:
        held, self.held = self.held or [], None
        assert self.route is not None
        for message in held:
            self.route.send(message)


async def routed(page: Page) -> RoutedSocket:
    """``page``'s WebSocket routed: the page reconnects to take the route,
    and is online again through it."""
    socket = RoutedSocket()
    await page.route_web_socket(re.compile(r"/ws$"), socket.attach)
    await page.evaluate("window.arena.connection.reconnectNow()")
    await asyncio.wait_for(socket.welcomed.wait(), TIMEOUT_MS / 1000)
    await page.wait_for_selector('#connection[data-state="online"]')
    return socket
