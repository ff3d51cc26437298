"""A real server and Debian's headless Chromium, for the browser tests and
the screenshot script.

The server is the real ``ArenaServer`` on a free loopback port with the
settings the server tests use (practice positions allowed, no keepalive
noise), plus any changes a test asks for (a short race countdown); it
serves ``client/web/`` at ``/`` exactly as in production.  The
browser is the system's Chromium driven by Playwright: nothing is
downloaded, and without ``/usr/bin/chromium`` the tests skip (or fail
under CI, where a missing browser must not pass as green).
"""

from __future__ import annotations

import os
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import AsyncIterator

import pytest
from arena_servers import make_settings
from playwright.async_api import Browser, Page, async_playwright

from server.app import ArenaServer
from server.storage.memory import MemoryStore

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DESKTOP = {"width": 1100, "height": 820}
PHONE = {"width": 375, "height": 740}
TIMEOUT_MS = 8000


def require_chromium() -> None:
    """Skip without a browser; under CI (which installs it) fail instead."""
    if CHROMIUM.exists():
        return
    message = f"{CHROMIUM} is missing: install Debian's chromium package (the tests never download a browser)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@dataclass
class Site:
    """A running server and browser; pages opened here are closed with it."""

    server: ArenaServer
    browser: Browser

    @property
    def base_url(self) -> str:
        return f"http://{self.server.settings.host}:{self.server.port}/"

    async def page(
        self, viewport: dict[str, int] = DESKTOP, fragment: str = "", init_script: str | None = None,
        **context_options: object,
    ) -> Page:
        """A page in a fresh browser profile (its own localStorage, so its
        own player); ``init_script`` runs before the page's own scripts."""
        context = await self.browser.new_context(viewport=viewport, **context_options)  # type: ignore[arg-type]
        context.set_default_timeout(TIMEOUT_MS)
        if init_script is not None:
            await context.add_init_script(init_script)
        page = await context.new_page()
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))
        await page.goto(self.base_url + fragment)
        await page.wait_for_selector('#connection[data-state="online"]')
        return page

    def __post_init__(self) -> None:
        self.page_errors: list[str] = []


async def sign_in(page: Page, name: str) -> None:
    """Set the display name in the lobby (the page says hello again)."""
    await page.fill("#player-name", name)
    await page.click("text=Save name")
    await page.wait_for_function("name => document.getElementById('connection').textContent.endsWith(name)", arg=name)


@asynccontextmanager
async def open_site(**setting_changes: object) -> AsyncIterator[Site]:
    """Start the server (with ``setting_changes``) and the browser; stop both at the end."""
    require_chromium()
    settings = make_settings(**setting_changes)
    async with ArenaServer(settings, store=MemoryStore()) as server:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                yield Site(server, browser)
            finally:
                await browser.close()
