"""Load a thing once, however many coroutines ask for it at the same time.

The hub loads a game's room and the race desk a race's room from the
store on first use; two requests arriving together must share one load
(one subscription, one replay), and a failed load fails every waiter and
leaves nothing behind, so the next request tries again.
"""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable, TypeVar

T = TypeVar("T")


async def load_once(pending: dict[str, asyncio.Future[T]], key: str, load: Callable[[], Awaitable[T]]) -> T:
    """``load()``'s result, shared with every caller that asks for ``key``
    while it runs (``pending`` holds the loads in flight)."""
    waiting = pending.get(key)
    if waiting is not None:
        return await asyncio.shield(waiting)
    future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
    pending[key] = future
    try:
        loaded = await load()
    except BaseException as error:
        future.set_exception(error)
        future.exception()
        raise
    finally:
        del pending[key]
    future.set_result(loaded)
    return loaded
