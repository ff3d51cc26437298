"""The browser tests' shared fixtures: one Chromium per test process, and
a real server per test on it (``web_harness.open_site``), failing the
test on any page error.  A test module that needs other server settings
(a short race countdown) defines its own ``site`` on ``browser``.

Playwright's objects belong to the event loop that made them, so the
browser tests run in one loop per test process
(``web_harness.BROWSER_LOOP_SCOPE``), their async fixtures too
(``web_harness.site_fixture``); each still gets its own server and
fresh browser profiles."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from pytest_asyncio import is_async_test
from playwright.async_api import Browser
from tests.web.web_harness import BROWSER_LOOP_SCOPE, Site, launched, open_site, site_fixture

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the browser tests' coroutines in the loop the browser lives in."""
    in_browser_loop = pytest.mark.asyncio(loop_scope=BROWSER_LOOP_SCOPE)
    for item in items:
        if is_async_test(item) and HERE in item.path.resolve().parents:
            item.add_marker(in_browser_loop, append=False)


@pytest_asyncio.fixture(scope="session", loop_scope=BROWSER_LOOP_SCOPE)
async def browser() -> AsyncIterator[Browser]:
    async with launched() as running:
        yield running


@site_fixture
async def site(browser: Browser) -> AsyncIterator[Site]:
    async with open_site(browser=browser) as running:
        yield running
        assert not running.page_errors, running.page_errors
