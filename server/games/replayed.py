"""Sessions rebuilt from their stored logs, kept to be brought up to date.

A friends' board (and anything else that shows other players' ranked
attempts as counts) reads games that are held on other processes, or on
none: the store's log is the only truth.  Replaying a whole log through
the engine is what costs: two hundred friends forty actions in, a
friends' board read was over a second of one process's time.  A stored
log only grows, so a session rebuilt once needs, at the next read, only
the actions appended since; a finished game needs nothing more at all.

A read asks the store for every game's log length in one round trip and
loads only the logs that grew, replaying them a chunk at a time so that
the others are served meanwhile (``server.games.pacing``).  The kept
sessions are this process's own copies, never shown to a player or
written back; the oldest are forgotten past ``capacity``.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from server.games.pacing import Pacing
from server.model.session import Session
from server.storage.base import Store

CAPACITY = 4096
"""Sessions kept: a few kilobytes each, enough for every ranked attempt a
process's readers look at in a day of a busy server's friends' boards."""


class ReplayedSessions:
    """Stored games as sessions, replaying only what each log gained."""

    def __init__(self, store: Store, pacing: Pacing, capacity: int = CAPACITY) -> None:
        self._store = store
        self._pacing = pacing
        self._capacity = capacity
        self._kept: OrderedDict[str, Session] = OrderedDict()

    async def sessions(self, game_ids: list[str]) -> dict[str, Session]:
        """Each game the store has, as its stored log leaves it (games it
        does not have are left out); raises ``StorageError``."""
        wanted = list(dict.fromkeys(game_ids))
        lengths = await self._store.log_lengths(wanted) if wanted else {}
        grown = [game_id for game_id, length in lengths.items() if self._kept_length(game_id) != length]
        loaded = await asyncio.gather(*(self._store.load_session(game_id) for game_id in grown))
        pace = self._pacing.pace()
        for game_id, found in zip(grown, loaded):
            if found is None:
                self._kept.pop(game_id, None)
                continue
            header, log = found
            kept = self._kept.get(game_id)
            if kept is None or len(kept.log) > len(log) or (kept.log and log[len(kept.log) - 1] != kept.log[-1]):
                kept = await self._pacing.replay(header, log, pace)
            else:
                await self._pacing.catch_up(kept, log, pace)
            self._keep(game_id, kept)
        found_now: dict[str, Session] = {}
        for game_id in wanted:
            kept = self._kept.get(game_id)
            if kept is not None and game_id in lengths:
                self._kept.move_to_end(game_id)
                found_now[game_id] = kept
        return found_now

    def _kept_length(self, game_id: str) -> int | None:
        kept = self._kept.get(game_id)
        return None if kept is None else len(kept.log)

    def _keep(self, game_id: str, session: Session) -> None:
        self._kept[game_id] = session
        self._kept.move_to_end(game_id)
        while len(self._kept) > self._capacity:
            self._kept.popitem(last=False)
