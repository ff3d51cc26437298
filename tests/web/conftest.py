"""The browser tests' shared fixture: a real server and Chromium per test
(``web_harness.open_site``), failing the test on any page error.  A test
module that needs other server settings (a short race countdown) defines
its own ``site``."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from tests.web.web_harness import Site, open_site


@pytest.fixture
async def site() -> AsyncIterator[Site]:
    async with open_site() as running:
        yield running
        assert not running.page_errors, running.page_errors
