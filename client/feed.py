"""Update streams and waiting, shared by game and race mirrors.

A mirror (``GameMirror``, ``RaceMirror``) is a ``Feed``: the client feeds
it server messages in arrival order, and callers either read its
attributes, iterate ``updates()`` (each message that changed it, in
order) or ``wait_until`` a condition holds.  A feed *ends* when nothing
more can come (the game is over, the race finished, the client stopped
following it): its streams then stop.

Example::

    with mirror.updates() as stream:
        async for update in stream:
            print(update.type)
    await mirror.wait_until(lambda m: m.seq >= 5, timeout=5)
"""

from __future__ import annotations

import asyncio
from typing import Callable, Generic, Self, TypeVar

Item = TypeVar("Item")


class _End:
    """Marks the end of an update stream."""


_END = _End()


class Updates(Generic[Item]):
    """An async iterator over a feed's updates, from its creation on.

    It ends when the feed ends (``game_over``, a race's ``finished``) or
    the client closes.  Updates queue up until read, so read them or
    ``close()`` the stream (``with mirror.updates() as stream`` does that).
    """

    def __init__(self, feed: Feed[Item]) -> None:
        self._feed = feed
        self._queue: asyncio.Queue[Item | _End] = asyncio.Queue()
        if feed.ended:
            self._queue.put_nowait(_END)
        else:
            feed._streams.add(self)

    def _push(self, item: Item | _End) -> None:
        self._queue.put_nowait(item)

    def close(self) -> None:
        self._feed._streams.discard(self)

    def __aiter__(self) -> Updates[Item]:
        return self

    async def __anext__(self) -> Item:
        item = await self._queue.get()
        if isinstance(item, _End):
            self.close()
            raise StopAsyncIteration
        return item

    def __enter__(self) -> Updates[Item]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class Feed(Generic[Item]):
    """The streams and the change signal of one mirror."""

    def __init__(self) -> None:
        self.closed = False
        self._streams: set[Updates[Item]] = set()
        self._changed = asyncio.Event()

    @property
    def ended(self) -> bool:
        """True once no more updates can come; subclasses add their own end."""
        return self.closed

    def updates(self) -> Updates[Item]:
        """A stream of every update from now on (see ``Updates``)."""
        return Updates(self)

    async def wait_until(self, predicate: Callable[[Self], bool], timeout: float | None = 10.0) -> None:
        """Return once ``predicate(self)`` holds (checked now and after each
        update); raise ``TimeoutError`` after ``timeout`` seconds (None:
        no limit)."""
        async with asyncio.timeout(timeout):
            while not predicate(self):
                await self._changed.wait()

    def close(self) -> None:
        """The client stopped following this: end every stream."""
        self.closed = True
        self._end_streams()
        self._notify()

    def _publish(self, update: Item) -> None:
        for stream in self._streams:
            stream._push(update)
        self._notify()

    def _end_streams(self) -> None:
        for stream in list(self._streams):
            stream._push(_END)
        self._streams.clear()

    def _notify(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()
