"""A connected client as the core sees it: codec, identity, what it
watches, and a bounded queue of frames on their way out.

The core never touches a socket.  It hands frames to ``Peer.send``, which
gives them to the connection's ``Outlet`` at once when the socket is idle
and writable (the common case, as cheap as ``websockets.broadcast``), and
otherwise queues them.  The queue is bounded: when it is full ``send``
says so and the core replaces the backlog by a fresh snapshot, so a slow
spectator costs memory up to the bound and never delays anyone else.

A peer also knows the client address it counts under (``server.net.admission``)
and tells the core's ``on_close`` that address and the code it is closed
with, at once, so a close for abuse can bar the address before the client
sees the close.
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Protocol

from protocol import Codec, ErrorCode
from server.net.ratelimit import RateLimiter
from server.model.refusal import Refusal
from server.model.records import PlayerRecord


class Outlet(Protocol):
    """The adapter's side of a connection (a websockets connection, or a
    list in memory for tests)."""

    def write_now(self, frame: bytes) -> bool:
        """Hand ``frame`` to the socket if it can take it without waiting
        (nothing queued, write buffer below its limit) and return True;
        also True if the connection is gone and the frame is dropped.
        False: the caller queues it."""

    def wake(self) -> None:
        """Frames wait in ``Peer.backlog``: start writing them (after
        calling this, the outlet owns draining the backlog)."""

    def close(self, code: int, reason: str) -> None:
        """Close the connection with a WebSocket close code."""


class Peer:
    """One connection; see the module docstring.  Slotted, and its backlog
    and watched set made on first use: most connections sit idle after
    ``hello`` and never queue a frame or watch a game, and a server holds
    thousands of them."""

    __slots__ = (
        "number", "connection_id", "address", "on_close", "codec", "outlet", "limiter", "queue_limit",
        "player", "device_id", "_watching", "_backlog", "overflows", "closed",
    )

    def __init__(
        self,
        number: int,
        codec: Codec,
        outlet: Outlet,
        limiter: RateLimiter,
        queue_limit: int,
        address: str,
        on_close: Callable[[str, int], None],
        connection_id: str | None = None,
    ) -> None:
        self.number = number
        self.connection_id = connection_id or str(number)
        """The id the log names this connection by, on every line about it
        (the adapter's, so its open and close lines agree)."""
        self.address = address
        self.on_close = on_close
        self.codec = codec
        self.outlet = outlet
        self.limiter = limiter
        self.queue_limit = queue_limit
        self.player: PlayerRecord | None = None
        self.device_id: str | None = None
        """Which of the player's devices this connection said hello as
        (``server.social.devices``), so a revocation finds its connections."""
        self._watching: set[str] | None = None
        self._backlog: deque[bytes] | None = None
        self.overflows = 0
        self.closed = False

    @property
    def watching(self) -> set[str]:
        """The games this connection watches."""
        if self._watching is None:
            self._watching = set()
        return self._watching

    @property
    def backlog(self) -> deque[bytes]:
        """Frames waiting for the outlet, oldest first."""
        if self._backlog is None:
            self._backlog = deque()
        return self._backlog

    @property
    def queued(self) -> int:
        """How many frames wait in the backlog (making none)."""
        return len(self._backlog) if self._backlog is not None else 0

    def __repr__(self) -> str:
        who = self.player.player_id if self.player else "anonymous"
        return f"connection {self.connection_id} ({who}, {self.codec.subprotocol})"

    def log_fields(self) -> dict[str, str | None]:
        """The structured fields of a log record about this connection (``server.runtime.logs``)."""
        return {
            "connection": self.connection_id,
            "peer": self.address,
            "player": self.player.player_id if self.player else None,
        }

    @property
    def bot(self) -> bool:
        """Whether this connection plays as a declared bot: its identity
        said ``"bot": true`` in some ``hello``, this one or an earlier one
        (the mark sticks to the identity, so a bot never ranks as a human).
        False before ``hello``."""
        return self.player is not None and self.player.bot

    def send(self, frame: bytes) -> bool:
        """Queue ``frame`` for the client; False when the queue is full
        (nothing was queued: the caller decides how to recover)."""
        if self.closed:
            return True
        if not self._backlog and self.outlet.write_now(frame):
            return True
        backlog = self.backlog
        if len(backlog) >= self.queue_limit:
            return False
        backlog.append(frame)
        if len(backlog) == 1:
            self.outlet.wake()
        return True

    def close(self, code: int, reason: str) -> None:
        """Stop sending and close the connection."""
        if not self.closed:
            self.closed = True
            self._backlog = None
            self.on_close(self.address, code)
            self.outlet.close(code, reason)


def require_player(peer: Peer) -> PlayerRecord:
    """The identity ``peer`` said hello with; ``hello_required`` before that."""
    if peer.player is None:
        raise Refusal(ErrorCode.HELLO_REQUIRED, "say hello first: games belong to players")
    return peer.player
