"""A tool a test needs and the machine lacks (redis-server, haproxy,
Chromium, node, openssl): a skip on a developer's machine, but a failure
under CI, which installs every one of them, so that a missing tool can
never pass as green."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def unavailable(reason: str) -> NoReturn:
    """Skip the test for ``reason``, or fail it under CI."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)
