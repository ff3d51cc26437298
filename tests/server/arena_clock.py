"""Time under the test's control: the Hub's clock and its ``Scheduler``.

The Hub reads time only through what it is given (``clock``,
``monotonic``, ``scheduler``), so a test moves time on instead of waiting
for it, and a timing rule checked this way cannot fail under load.
"""

from __future__ import annotations

from typing import Callable


class FakeClock:
    """Milliseconds for ``clock``, seconds for ``monotonic``."""

    def __init__(self) -> None:
        self.ms = 1_700_000_000_000

    def __call__(self) -> int:
        return self.ms

    def seconds(self) -> float:
        return self.ms / 1000


class ManualTimer:
    def __init__(self, due_ms: int, callback: Callable[[], None]) -> None:
        self.due_ms = due_ms
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualScheduler:
    """A ``Scheduler`` whose timers fire only when the test moves the clock."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.timers: list[ManualTimer] = []

    def call_later(self, delay_seconds: float, callback: Callable[[], None]) -> ManualTimer:
        timer = ManualTimer(self.clock.ms + round(delay_seconds * 1000), callback)
        self.timers.append(timer)
        return timer

    def advance(self, ms: int) -> None:
        """Move the clock on and fire every timer now due, earliest first
        (a timer set by one that fires runs too if it is due)."""
        self.clock.ms += ms
        while due := sorted(
            (timer for timer in self.timers if not timer.cancelled and timer.due_ms <= self.clock.ms),
            key=lambda timer: timer.due_ms,
        ):
            for timer in due:
                self.timers.remove(timer)
                timer.callback()
