"""A racer's board as spectators see it while the race runs: behind by a delay.

Fairness needs more than hiding the board from rivals: a spectator could
pass on what they see to a racer.  So, while a race runs, spectators of
a racer's board (``Visibility.DELAYED``, ``server.model.visibility``) watch a mirror: a second session replayed from the same
log, but only up to the entries at least ``delay_ms`` old.  Each entry is
released to the mirror when it becomes that old, and the mirror's diff
(computed from the mirror's own views, so it is the same diff the live
watchers got) goes to the delayed watchers.  A snapshot is the mirror's,
with its clock read ``delay_ms`` ago.  Nothing here reads the live
session but its log of committed entries, so no live view can leak.

Sans-I/O: the hub asks ``due(now)`` for the messages to send and
``next_due_ms()`` for when to ask again; ``drain()`` releases everything
when the race ends and the watchers become ordinary ones.
"""

from __future__ import annotations

import bisect
from typing import Any, Callable

from protocol import to_client as tc
from protocol.to_server import RequestId
from server.net.peer import Peer
from server.model.session import Session
from server.games.room import Room
from server.model.records import Action, ActionLog


def released(log: ActionLog, delay_ms: int, now_ms: int) -> int:
    """How many of ``log``'s first entries are at least ``delay_ms`` old at
    ``now_ms`` (a log's times never go back)."""
    return bisect.bisect_right(range(len(log)), now_ms - delay_ms, key=log.at_ms)


class DelayedBoard:
    """The delayed mirror of one live ``room``; see the module docstring.
    ``mirror`` is the room's session replayed up to the entries
    ``released`` at the board's opening (``Watching`` replays it paced,
    ``server.games.pacing``: a race's log may be an hour of play)."""

    def __init__(self, room: Room, delay_ms: int, mirror: Session) -> None:
        self.room = room
        self.delay_ms = delay_ms
        self.mirror = Room(mirror, room.owner)

    @property
    def watchers(self) -> set[Peer]:
        return self.mirror.watchers

    def snapshot(self, now_ms: int, request_id: RequestId | None = None) -> tc.Snapshot:
        return self.mirror.snapshot(now_ms - self.delay_ms, request_id)

    def _pending(self) -> list[Action]:
        return self.room.session.log[self.mirror.session.seq :]

    def next_due_ms(self) -> int | None:
        """When the next entry becomes old enough (None: nothing waits)."""
        pending = self._pending()
        return pending[0].at_ms + self.delay_ms if pending else None

    def due(self, now_ms: int) -> list[dict[str, Any] | tc.GameOver]:
        """Release the entries old enough by ``now_ms``: their diffs, and
        ``game_over`` after the last one."""
        return self._release(lambda action: action.at_ms + self.delay_ms <= now_ms)

    def drain(self) -> list[dict[str, Any] | tc.GameOver]:
        """Release every committed entry (the race is over)."""
        return self._release(lambda action: True)

    def _release(self, ready: Callable[[Action], bool]) -> list[dict[str, Any] | tc.GameOver]:
        messages: list[dict[str, Any] | tc.GameOver] = []
        for action in self._pending():
            if not ready(action):
                break
            change = self.mirror.session.apply_committed(action)
            messages.append(self.mirror.diff(change))
            if change.finished:
                messages.append(self.mirror.game_over())
        return messages
