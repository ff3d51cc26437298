"""Reloading the page: ten reloads in a row from one address all load and
connect under the default limits per address, a first visit's files come
on kept-alive connections, a reload asks the server for the page alone,
and a page refused its connection says what it waits for and connects
once let in.  The first test loads the page with its separate modules
(``?bundle=off``): with its bundles a page has two files, too few for
kept-alive connections to show (``test_web_load.py`` counts those).

The limits' clock is frozen (``ManualClock``): no token of any bucket
comes back during the test, so the reloads count as if all made in the
same instant, a harder case than ten in five seconds, whatever the
machine's speed.  The server counts each TCP connection it accepts
(the listening socket's ``admit`` hook), which tells a load that fetched
every file from one that took them from the browser's cache.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser
from tests.storage_backends import ManualClock
from tests.web.web_harness import DESKTOP, Site, open_site, site_fixture

from server.net.admission import SocketPeer
from server.runtime.settings import Settings

DEFAULT_LIMITS = {
    name: Settings.model_fields[name].default
    for name in (
        "connections_per_address",
        "connection_burst",
        "connection_rate_per_second",
        "tcp_connection_burst",
        "tcp_connection_rate_per_second",
    )
}
pytestmark = pytest.mark.browser

RELOADS = 10
ONLINE = '#connection[data-state="online"]'


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@site_fixture
async def site(browser: Browser, clock: ManualClock) -> AsyncIterator[Site]:
    async with open_site(browser=browser, monotonic=clock, **DEFAULT_LIMITS) as running:
        yield running
        assert not running.page_errors, running.page_errors


def count_connections(site: Site) -> list[SocketPeer]:
    """The connections the server accepts from now on, as they come."""
    accepted: list[SocketPeer] = []
    listener = site.server.listener
    admit = listener.admit

    def counting(peer: SocketPeer) -> bool:
        admitted = admit(peer)
        if admitted:
            accepted.append(peer)
        return admitted

    listener.admit = counting
    return accepted


async def test_ten_reloads_in_a_row_all_load_and_connect_and_ask_for_the_page_alone(site: Site) -> None:
    accepted = count_connections(site)
    page = await site.page(fragment="?bundle=off")
    await page.wait_for_selector(".tile[data-game]")
    files = await page.evaluate("performance.getEntriesByType('resource').map(entry => new URL(entry.name).pathname)")
    assert len(files) >= 20 and all(path.startswith("/v/") for path in files), files
    assert len(accepted) <= len(files) // 2, f"a first visit's {len(files)} files came on {len(accepted)} connections"
    for reload in range(RELOADS):
        before = len(accepted)
        await page.reload()
        await page.wait_for_selector(ONLINE)
        await page.wait_for_selector(".tile[data-game]")
        opened = len(accepted) - before
        assert opened <= 2, f"reload {reload + 1} opened {opened} connections, more than the page and its WebSocket"
    assert site.server.hub.metrics.registry.get_sample_value("arena_connections_reset_total") == 0


async def test_ten_reloads_of_a_page_without_a_cache_all_load_and_connect(site: Site) -> None:
    """The worst honest case: every reload fetches every file again
    (a browser with its cache off, or a household loading at once)."""
    context = await site.context(viewport=DESKTOP)
    page = await context.new_page()
    page.on("pageerror", lambda error: site.page_errors.append(str(error)))
    cdp = await context.new_cdp_session(page)
    await cdp.send("Network.enable")
    await cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    await page.goto(site.base_url)
    await page.wait_for_selector(ONLINE)
    for _ in range(RELOADS):
        await page.reload()
        await page.wait_for_selector(ONLINE)
        await page.wait_for_selector(".tile[data-game]")
    await context.close()


async def test_a_refused_page_says_what_it_waits_for_and_connects_once_let_in(browser: Browser, clock: ManualClock) -> None:
    async with open_site(browser=browser, monotonic=clock, **{**DEFAULT_LIMITS, "connection_burst": 1}) as site:
        first = await site.page()
        await first.wait_for_selector(ONLINE)
        context = await site.context(viewport=DESKTOP)
        refused = await context.new_page()
        await refused.goto(site.base_url)
        banner = refused.locator('#connection[data-state="offline"][data-waiting="refused"]')
        await banner.wait_for()
        text = await banner.text_content() or ""
        assert text.startswith("The server asks your network to wait before it connects again. Reconnecting in "), text
        assert "WebSocket connections faster than" in (await banner.get_attribute("title") or "")
        clock.now += 60
        await refused.wait_for_selector(ONLINE)
        await context.close()
        assert not site.page_errors, site.page_errors
