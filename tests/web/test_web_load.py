"""A first visit in Chromium costs the page, one stylesheet and one script
(the server's bundles), the script gzipped; a reload asks the server for
the page alone (304) and takes both bundles from the browser's cache;
and the page still runs from its separate modules with ``?bundle=off``.

What reached the server is read from its own access log (turned on
here), which names every HTTP request it answered and its status: a file
the browser took from its cache is not in it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, Request
from tests.web.web_harness import DESKTOP, Site, open_site, site_fixture

pytestmark = pytest.mark.browser

FIRST_VISIT_MAX_REQUESTS = 5
LOBBY = ".tile[data-game]"


@site_fixture
async def site(browser: Browser) -> AsyncIterator[Site]:
    async with open_site(browser=browser, access_log=True) as running:
        yield running
        assert not running.page_errors, running.page_errors


def served(caplog: pytest.LogCaptureFixture) -> list[tuple[str, int]]:
    """(path, status) of each request the server answered, the WebSocket left out."""
    return [
        (record.__dict__["path"], record.__dict__["status"])
        for record in caplog.records
        if record.name == "arena.access" and record.__dict__["path"] != "/ws"
    ]


async def test_a_first_visit_takes_three_requests_and_a_reload_one(site: Site, caplog: pytest.LogCaptureFixture) -> None:
    context = await site.context(viewport=DESKTOP)
    page = await context.new_page()
    page.on("pageerror", lambda error: site.page_errors.append(str(error)))
    requested: list[Request] = []
    page.on("request", lambda request: requested.append(request))
    with caplog.at_level(logging.INFO, logger="arena.access"):
        await page.goto(site.base_url)
        await page.wait_for_selector('#connection[data-state="online"]')
        await page.wait_for_selector(LOBBY)
        first = served(caplog)
        caplog.clear()
        urls = [request.url.removeprefix(site.base_url.rstrip("/")) for request in requested if request.resource_type != "websocket"]
        assert len(urls) <= FIRST_VISIT_MAX_REQUESTS, urls
        version = urls[1].split("/")[2]
        assert urls == ["/", f"/v/{version}/index.bundle.css", f"/v/{version}/index.bundle.js"], urls
        assert sorted(first) == sorted((url, 200) for url in urls), "the server logs each answer as it ends, in any order"
        script = await next(request for request in requested if request.url.endswith(".js")).response()
        assert script is not None and (await script.all_headers())["content-encoding"] == "gzip"

        await page.reload()
        await page.wait_for_selector('#connection[data-state="online"]')
        await page.wait_for_selector(LOBBY)
        assert served(caplog) == [("/", 304)], "a reload asks for the page alone; the bundles are immutable"
    await context.close()


async def test_the_page_runs_from_its_separate_modules_with_bundle_off(site: Site) -> None:
    page = await site.page(fragment="?bundle=off")
    await page.wait_for_selector(LOBBY)
    files = await page.evaluate("performance.getEntriesByType('resource').map(entry => new URL(entry.name).pathname)")
    assert "bundle" not in " ".join(files) and sum(path.endswith("/js/main.js") for path in files) == 1, files
    assert len(files) > FIRST_VISIT_MAX_REQUESTS, "the baseline the bundles improve on"
