"""A client's copy of one followed race, kept from ``race`` and
``race_progress`` messages.

Every ``race`` message carries the whole race (``RaceInfo``: phase,
racers, results …) and what just happened (``event``), so it replaces
the mirror's ``info``; a ``race_progress`` replaces one racer's line.
Nothing is numbered, so there is no gap to detect: after a reconnection
the client follows the race again and the server's ``race`` snapshot
replaces everything.

For a racer, ``board`` is their own game's ``GameMirror`` once the
countdown is over and its snapshot has come (the client links it).

Decisions where the protocol is silent:
- Progress is applied in arrival order; ``server_time`` is kept but not
  used to reorder (messages of one connection arrive in order).
- The update stream ends with the ``finished`` event (or a snapshot of a
  race that is finished, or whose invite expired before the start).  A
  later ``rematch`` event still updates ``rematch``: wait for it with
  ``wait_until``.
- ``countdown_ms()`` reads the local clock corrected by the offset seen
  in the last message (``server_time`` minus the local time it arrived),
  so it is as good as that message's latency.  ``phase`` uses it to turn
  ``countdown`` into ``running`` at ``starts_at``, as the server does
  without sending anything; an invite running out is not guessed
  (``expired`` only comes from the server).

Example::

    race = await client.join_race("FWRD-BTKR")
    with race.updates() as stream:
        async for update in stream:
            for racer in race.racers:
                print(racer.name, racer.state, racer.moves, racer.foundation)
    print(race.results)
"""

from __future__ import annotations

import time

from protocol import to_client as tc

from .feed import Feed
from .mirror import GameMirror

RaceUpdate = tc.Race | tc.RaceProgress
ENDED_PHASES = frozenset({"finished", "expired"})


def local_ms() -> int:
    return int(time.time() * 1000)


class RaceMirror(Feed[RaceUpdate]):
    """One race as the server last described it; see the module docstring.

    Before the first ``race`` message (``ready`` false) only ``race_id``
    is set.
    """

    def __init__(self, race_id: str) -> None:
        super().__init__()
        self.race_id = race_id
        self.info: tc.RaceInfo | None = None
        self.event: tc.RaceEvent | None = None
        self.server_time = 0
        self.clock_offset_ms = 0
        self.snapshots = 0
        self.board: GameMirror | None = None

    def __repr__(self) -> str:
        return f"<RaceMirror {self.race_id} {self.phase} racers={len(self.racers)}>"

    # ------------------------------------------------------------ reading

    @property
    def ready(self) -> bool:
        return self.info is not None

    @property
    def phase(self) -> tc.RacePhase:
        """The phase as last told, except that a countdown whose
        ``starts_at`` has passed is ``running`` (no message says so)."""
        if self.info is None:
            return "lobby"
        if self.info.phase == "countdown" and self.countdown_ms() == 0:
            return "running"
        return self.info.phase

    @property
    def finished(self) -> bool:
        return self.phase == "finished"

    @property
    def ended(self) -> bool:
        """No more updates: the race is over (or expired) or no longer followed."""
        return self.closed or self.phase in ENDED_PHASES

    @property
    def racers(self) -> list[tc.Racer]:
        return list(self.info.racers) if self.info is not None else []

    @property
    def code(self) -> str | None:
        """The invite code (shown to racers only)."""
        return self.info.code if self.info is not None else None

    @property
    def results(self) -> list[tc.RaceResult] | None:
        return self.info.results if self.info is not None else None

    @property
    def rematch(self) -> str | None:
        """The rematch's race id, once a racer asked for one."""
        return self.info.rematch if self.info is not None else None

    def racer(self, player_id: str | None) -> tc.Racer | None:
        """The line of ``player_id``, or None if they are not racing."""
        return next((racer for racer in self.racers if racer.player_id == player_id), None)

    def game_of(self, player_id: str | None) -> str | None:
        """The game id of ``player_id``'s board (known from the start on)."""
        racer = self.racer(player_id)
        return racer.game_id if racer is not None else None

    def server_now_ms(self) -> int:
        """The server's clock, estimated from the last message."""
        return local_ms() + self.clock_offset_ms

    def countdown_ms(self) -> int | None:
        """Milliseconds until the racers may move (0 once running), or None
        before the host has started the race."""
        starts_at = self.info.starts_at if self.info is not None else None
        return None if starts_at is None else max(0, starts_at - self.server_now_ms())

    # ------------------------------------------------------------ feeding

    def apply_race(self, message: tc.Race) -> None:
        """Replace everything by the race ``message`` describes."""
        self.info = message.race
        self.event = message.event
        self._clock(message.server_time)
        if message.event == "snapshot":
            self.snapshots += 1
        self._publish(message)
        if self.phase in ENDED_PHASES:
            self._end_streams()

    def apply_progress(self, message: tc.RaceProgress) -> None:
        """Replace one racer's line."""
        if self.info is None:
            return
        self._clock(message.server_time)
        racers = self.info.racers
        index = next((n for n, racer in enumerate(racers) if racer.player_id == message.racer.player_id), None)
        if index is None:
            racers.append(message.racer)
        else:
            racers[index] = message.racer
        self._publish(message)

    def attach_board(self, board: GameMirror) -> None:
        """The client found the racer's own game mirror."""
        self.board = board
        self._notify()

    def _clock(self, server_time: int) -> None:
        self.server_time = server_time
        self.clock_offset_ms = server_time - local_ms()
