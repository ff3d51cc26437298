"""A real server and Debian's headless Chromium, for the browser tests and
the screenshot script.

The server is the real ``ArenaServer`` on a free loopback port with the
settings the server tests use (practice positions allowed, no keepalive
noise); it serves ``client/web/`` at ``/`` exactly as in production.  The
browser is the system's Chromium driven by Playwright: nothing is
downloaded, and without ``/usr/bin/chromium`` the tests skip (or fail
under CI, where a missing browser must not pass as green).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import AsyncIterator

import pytest
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


def _server_test_helpers() -> ModuleType:
    """``tests/server/conftest.py``, loaded under a name of its own: pytest
    owns the module name ``conftest``, so importing it by that name would
    find whichever conftest pytest loaded last."""
    path = Path(__file__).resolve().parent.parent / "server" / "conftest.py"
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location("arena_server_test_helpers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class Site:
    """A running server and browser; pages opened here are closed with it."""

    server: ArenaServer
    browser: Browser

    @property
    def base_url(self) -> str:
        return f"http://{self.server.settings.host}:{self.server.port}/"

    async def page(self, viewport: dict[str, int] = DESKTOP, fragment: str = "", **context_options: object) -> Page:
        """A page in a fresh browser profile (its own localStorage, so its own player)."""
        context = await self.browser.new_context(viewport=viewport, **context_options)  # type: ignore[arg-type]
        context.set_default_timeout(TIMEOUT_MS)
        page = await context.new_page()
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))
        await page.goto(self.base_url + fragment)
        await page.wait_for_selector('#connection[data-state="online"]')
        return page

    def __post_init__(self) -> None:
        self.page_errors: list[str] = []


@asynccontextmanager
async def open_site() -> AsyncIterator[Site]:
    """Start the server and the browser; stop both at the end."""
    require_chromium()
    settings = _server_test_helpers().make_settings()
    async with ArenaServer(settings, store=MemoryStore()) as server:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                yield Site(server, browser)
            finally:
                await browser.close()
