"""A store whose calls lose their cancellation, as redis-py's may on
Python 3.11 (docs/architecture.md, "Background loops"): the background
loops must end on ``close`` even then, not only when the cancellation
reaches them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from server.storage import MemoryStore


class LosesCancellation(MemoryStore):
    """The calls named in ``hung`` wait until cancelled and then answer as
    if they never were (the answer had come as the cancellation did);
    after that, the call answers at once.  Once ``faithful``, a
    cancellation stays one."""

    def __init__(self, *hung: str) -> None:
        super().__init__()
        self.hung = set(hung)
        self.waiters: set[tuple[str, str]] = set()
        """(call, task name) of every call that waited."""
        self._new_waiter = asyncio.Event()
        self.faithful = False

    async def waiting(self, name: str, made_by: Callable[[str], bool] = lambda task: True) -> None:
        """Return once a call ``name`` waits, made by a task whose name is ``made_by``."""
        while not any(call == name and made_by(task) for call, task in self.waiters):
            self._new_waiter.clear()
            await self._new_waiter.wait()

    async def _hang(self, name: str) -> None:
        if name not in self.hung:
            return
        task = asyncio.current_task()
        self.waiters.add((name, task.get_name() if task is not None else ""))
        self._new_waiter.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.hung.discard(name)
            if self.faithful:
                raise

    async def expire_due(self) -> int:
        await self._hang("expire_due")
        return await super().expire_due()

    async def get_setting(self, name: str) -> str | None:
        await self._hang("get_setting")
        return await super().get_setting(name)

    async def stock_size(self, stock: str) -> int:
        await self._hang("stock_size")
        return await super().stock_size(stock)

    async def renew_presence_lease(self, origin: str, now_ms: int, lease_ms: int) -> None:
        await self._hang("renew_presence_lease")
        await super().renew_presence_lease(origin, now_ms, lease_ms)


async def closes_in_time(closing: asyncio.Task[None], loop_names: set[str], store: LosesCancellation) -> bool:
    """Whether ``closing`` ends within a bound that only a hang exceeds;
    if it does not, the loops are cancelled faithfully, so the test fails
    rather than hangs."""
    done, _ = await asyncio.wait({closing}, timeout=30)
    if not done:
        store.faithful = True
        for task in asyncio.all_tasks():
            if task.get_name() in loop_names:
                task.cancel()
        await closing
    return bool(done)
