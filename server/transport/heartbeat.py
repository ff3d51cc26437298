"""One keepalive for every WebSocket of a server.

websockets pings each connection from a task of its own (its
``keepalive``: a task, a coroutine, its frame and its sleep's timer,
about 1.7 KB that every idle connection keeps for as long as it lives).
``Heartbeat`` pings them all from one timer instead: each connection has
a slot on a wheel that turns once per ``ping_interval``, a slot every
``SLOT_SECONDS`` or so, and each tick pings the connections of one slot.
Connections take the slots in turn as they open, so the pings of
thousands of connections are spread over the interval rather than sent
in one loop turn, and a connection's first ping comes within
``ping_interval`` of its opening.

A ping is websockets' own as far as the connection can tell: it waits in
the connection's ``pending_pings`` as one sent by ``ping()`` would, so
websockets matches the pong to it, sets ``latency``, and ends its waiter
when the connection closes.  Its payload is the number of the tick that
sent it, so the check ``ping_timeout`` later needs nothing kept per
connection: a pong acknowledges that ping and every earlier one, taking
them out of ``pending_pings``, and a connection whose ping of that tick is
still there is failed as websockets' keepalive fails it, close code 1011
and reason "keepalive ping timeout", the TCP connection aborted if the
closing handshake is not over within ``close_timeout``.  As with
websockets, no ping is sent while one waits for its pong (a
``ping_timeout`` longer than ``ping_interval``), and without
``ping_timeout`` a ping goes out every interval, pong or not.

A ping is written at once, behind whatever the connection's buffer
holds, and its timeout runs from then.  websockets' own waits for that
buffer to drain below its limit first, so a client that stops reading
with a full buffer is never timed out by it; here it is, unless the
write timeout (``write_timeout_seconds``, 1013) closed it first.

A timeout is checked at a tick, not at its exact second: the pong is
awaited ``ping_timeout`` rounded up to whole ticks, at most a tick
(about a quarter of a second) longer than websockets would wait, never
shorter.
The ticks run on the server's ``Scheduler``, so a test moves time on
instead of waiting for it.
"""

from __future__ import annotations

import asyncio
import math
import struct
from collections import deque

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode
from websockets.protocol import State

from server.runtime.scheduler import Scheduler, Timer

SLOT_SECONDS = 0.25
"""About how long a tick is: ``ping_interval`` / ``SLOT_SECONDS`` slots
(at least one), so each tick pings that share of the connections."""
TIMEOUT_REASON = "keepalive ping timeout"
"""websockets' own close reason for a ping without a pong."""


def beat(tick: int) -> bytes:
    """The payload of the pings sent at ``tick``: four bytes, as websockets' own."""
    return struct.pack("!I", tick % 2**32)


class Heartbeat:
    """Pings every connection ``add``-ed every ``interval`` seconds, and
    fails one whose pong does not come within ``timeout`` (None: pings are
    never awaited).  An ``interval`` of None turns it off: ``add`` then
    keeps nothing and no timer runs."""

    def __init__(self, interval: float | None, timeout: float | None, scheduler: Scheduler) -> None:
        self.timeout = timeout
        self.scheduler = scheduler
        count = max(1, round(interval / SLOT_SECONDS)) if interval is not None else 0
        self.tick_seconds = interval / count if interval is not None else 0.0
        self._slots: list[set[ServerConnection]] = [set() for _ in range(count)]
        self._slot_of: dict[ServerConnection, set[ServerConnection]] = {}
        """Where each connection is, to take it out when it closes."""
        # Less a hair, so that a quotient such as 3.0000000000000004 is three ticks.
        self._timeout_ticks = math.ceil(timeout / self.tick_seconds - 1e-9) if timeout is not None and count else None
        self._ticks = 0
        self._added = 0
        self._awaited: deque[int] = deque()
        """The ticks whose pings wait for their pongs, oldest first."""
        self._timer: Timer | None = None
        self._failing: set[asyncio.Task[None]] = set()
        """The closes under way, held until they end (the loop keeps only weak references)."""

    def start(self) -> None:
        if self._slots and self._timer is None:
            self._timer = self.scheduler.call_later(self.tick_seconds, self._tick)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def add(self, connection: ServerConnection) -> None:
        """Ping ``connection`` (open) from now on, until ``discard``."""
        if self._slots:
            slot = self._slots[self._added % len(self._slots)]
            self._added += 1
            slot.add(connection)
            self._slot_of[connection] = slot

    def discard(self, connection: ServerConnection) -> None:
        slot = self._slot_of.pop(connection, None)
        if slot is not None:
            slot.discard(connection)

    def _tick(self) -> None:
        # The next tick is set first, so that nothing raised here stops the pings.
        self._timer = self.scheduler.call_later(self.tick_seconds, self._tick)
        self._ticks += 1
        while self._awaited and self._timeout_ticks is not None and self._awaited[0] + self._timeout_ticks <= self._ticks:
            self._time_out(self._awaited.popleft())
        self._ping(self._ticks)

    def _ping(self, tick: int) -> None:
        slot = self._slots[tick % len(self._slots)]
        data = beat(tick)
        for connection in list(slot):
            if connection.protocol.state is not State.OPEN or (self.timeout is not None and connection.pending_pings):
                continue
            connection.pending_pings[data] = (connection.loop.create_future(), connection.loop.time())
            connection.protocol.send_ping(data)
            connection.send_data()
            if connection.debug:
                connection.logger.debug("% sent keepalive ping")
        if self.timeout is not None and slot:
            self._awaited.append(tick)

    def _time_out(self, tick: int) -> None:
        """Fail the connections whose ping of ``tick`` is still unanswered."""
        data = beat(tick)
        for connection in list(self._slots[tick % len(self._slots)]):
            if data in connection.pending_pings and connection.protocol.state is State.OPEN:
                task = connection.loop.create_task(_fail(connection))
                self._failing.add(task)
                task.add_done_callback(self._failing.discard)


async def _fail(connection: ServerConnection) -> None:
    """What websockets' keepalive does when a pong is late: fail the
    connection, then wait at most ``close_timeout`` for the TCP connection
    to close before aborting it.  The wait is bounded here too because
    websockets first waits for the write buffer to drain, which a client
    that stopped reading never lets it do."""
    if connection.debug:
        connection.logger.debug("- timed out waiting for keepalive pong")
    try:
        async with asyncio.timeout(connection.close_timeout):
            async with connection.send_context():
                connection.protocol.fail(CloseCode.INTERNAL_ERROR, TIMEOUT_REASON)
    except ConnectionClosed:
        pass
    except TimeoutError:
        connection.transport.abort()
