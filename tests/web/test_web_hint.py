"""The web client says a hint in words, with how sure the server is of it
(``client/web/js/hintwords.js``), in headless Chromium against the real
server (``web_harness``)."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import expect
from tests.web.web_harness import TIMEOUT_MS, Site, start_from_lobby

pytestmark = pytest.mark.browser

SENTENCE = re.compile(
    r"^Hint: .+\. (It wins in (every deal|\d+% of the deals) of the hidden cards tried|No win found yet: it leads to a card not seen yet)\.$"
)


async def test_hint_says_the_move_in_words_and_how_sure_it_is(site: Site) -> None:
    page = await site.page()
    await start_from_lobby(page, "klondike", deal=1)
    await page.click("#hint")
    await page.wait_for_selector("#board .hint, #board .hint-target")
    await expect(page.locator(".message")).to_have_text(SENTENCE, timeout=TIMEOUT_MS)
