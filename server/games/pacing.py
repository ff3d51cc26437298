"""Replaying a long log without holding the event loop.

A game has no length limit: twenty draws a second for an hour is a log of
72,000 entries, and rebuilding 2,000 of them took 14 ms of one core, during
which no other connection was served.  A stored game is rebuilt when it is
loaded (to watch, replay or analyse it, or to play it on after a restart),
when a replay page is built, when a friends' or a daily board reads the
attempts it shows, when a race reads its racers' games, when a
spectator opens a racer's delayed board, when a ghost race replays
the attempt it races, and when the sweep settles the end of a game a
crashed process left open; a player who wanted to slow everyone down
had only to play a long game and have it loaded.  So those rebuilds go a
chunk of entries at a time, and once a slice of the loop's time is spent they let
every other connection have its turn first (``Pace.step``).  The rebuilt
session is the same; only the time between its chunks differs, and
nobody sees it half built: a room is held, a replay page sent and a
board answered only once the whole log is applied.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from server.model.records import Action, SessionHeader
from server.model.session import Session, build_game

SLICE_SECONDS = 0.002
"""How long a rebuild holds the event loop before it lets the others go."""

CHUNK = 32
"""Entries applied between two looks at the clock (32 draws take about 0.3 ms)."""


class Pace:
    """One rebuild's turn on the event loop."""

    def __init__(self, slice_seconds: float, clock: Callable[[], float]) -> None:
        self._slice = slice_seconds
        self._clock = clock
        self._until = clock() + slice_seconds

    async def step(self) -> None:
        """Let every other ready task run if this turn's slice is spent."""
        if self._clock() >= self._until:
            await asyncio.sleep(0)
            self._until = self._clock() + self._slice


class Pacing:
    """The slice every rebuild is given, on ``clock``; tests set
    ``slice_seconds`` to 0 to see a rebuild give way after each chunk, or
    hand in a clock of their own, whatever the machine's speed."""

    def __init__(self, slice_seconds: float = SLICE_SECONDS, clock: Callable[[], float] = time.perf_counter) -> None:
        self.slice_seconds = slice_seconds
        self._clock = clock

    def pace(self) -> Pace:
        return Pace(self.slice_seconds, self._clock)

    async def replay(self, header: SessionHeader, log: Sequence[Action], pace: Pace | None = None) -> Session:
        """``Session.replay``, a chunk at a time (on ``pace``, for one piece of
        work that rebuilds many logs: each short log alone would fit in a
        slice of its own, and a hundred of them would hold the loop for all)."""
        session = Session(header, build_game(header))
        await self.catch_up(session, log, pace)
        return session

    async def catch_up(self, session: Session, log: Sequence[Action], pace: Pace | None = None) -> None:
        """``session.catch_up(log)``, a chunk at a time."""
        pace = pace or self.pace()
        end = len(log)
        while len(session.log) < end:
            session.catch_up(log, until=min(end, len(session.log) + CHUNK))
            await pace.step()
