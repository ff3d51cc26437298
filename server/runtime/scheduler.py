"""When the server's parts want to be called back later.

Countdowns, a race's end and spectator delays need a callback at a given
time.  The parts ask a ``Scheduler`` instead of the event loop, so the
Hub decides what time means: the running loop's ``call_later`` in
production, anything with the same two methods in a test.
"""

from __future__ import annotations

import asyncio
from typing import Callable, Protocol


class Timer(Protocol):
    """A callback waiting to run; ``cancel`` stops it if it has not yet run."""

    def cancel(self) -> None: ...


class Scheduler(Protocol):
    """Runs ``callback`` after ``delay_seconds``."""

    def call_later(self, delay_seconds: float, callback: Callable[[], None]) -> Timer: ...


class LoopScheduler:
    """The running event loop's timers (the default)."""

    def call_later(self, delay_seconds: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(delay_seconds, callback)
