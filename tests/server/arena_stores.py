"""Stores that fail on demand, for the error paths a healthy memory store
never takes.  They are the real memory store with one method made to
fail or wait, not stand-ins for Redis or sockets."""

from __future__ import annotations

import asyncio

from server.model.records import Action, Announcement
from server.storage.memory import MemoryStore


class FaultyStore(MemoryStore):
    """Appends raise ``failure`` while it is set, after waiting ``delay`` seconds."""

    def __init__(self) -> None:
        super().__init__()
        self.failure: BaseException | None = None
        self.delay = 0.0
        self.appending = asyncio.Event()

    async def append(
        self, game_id: str, expected_length: int, action: Action, *, ends: bool = False,
        announce: Announcement | None = None,
    ) -> int:
        self.appending.set()
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.failure is not None:
            raise self.failure
        return await super().append(game_id, expected_length, action, ends=ends, announce=announce)
