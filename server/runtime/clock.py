"""What time it is, for a server process.

Every part reads the time through a ``Clock`` it is handed (the Hub's,
and the memory store's), never from ``time`` itself, so a test moves
time on instead of waiting for it (``server.runtime.scheduler`` does the
same for callbacks).  ``wall_clock_ms`` is the real one.
"""

from __future__ import annotations

import time
from typing import Callable

Clock = Callable[[], int]
"""Milliseconds since the epoch, UTC."""


def wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000
