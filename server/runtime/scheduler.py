"""When the server's parts want to be called back later.

Countdowns, a race's end and spectator delays need a callback at a given
time, and the background loops (the dailies prepared ahead, the store's
epoch checked, the sweeps) a pause between rounds.  The parts ask a
``Scheduler`` instead of the event loop, so the Hub decides what time
means: the running loop's ``call_later`` in production, anything with
the same two methods in a test, whose loops then go round only when the
test moves its clock.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Coroutine, Protocol


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


async def sleep(scheduler: Scheduler, seconds: float) -> None:
    """Wait ``seconds`` on ``scheduler``'s time rather than the event loop's."""
    woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def wake() -> None:
        if not woken.done():
            woken.set_result(None)

    timer = scheduler.call_later(seconds, wake)
    try:
        await woken
    finally:
        timer.cancel()


class BackgroundLoop:
    """One background loop's task, and the flag that stops it.

    ``close`` cancels the task and sets ``closing``, which the loop checks
    after each round of store calls: a store call can lose the
    cancellation (docs/architecture.md, "Background loops"), and a loop
    that survives store errors by design would then go on, with ``close``
    waiting on it."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._task: asyncio.Task[None] | None = None
        self.closing = False

    def start(self, loop: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self.closing = False
        self._task = asyncio.create_task(loop(), name=self._name)

    async def close(self) -> bool:
        """Stop the loop and wait for it to end; False if it was not running."""
        self.closing = True
        task, self._task = self._task, None
        if task is None:
            return False
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return True
