"""A peer's frames onto one websockets connection, and the connection's
graceful close on restart.  ``server.transport.app`` makes one for each
connection it accepts; kept apart because how frames reach a socket (at
once, or by a writer task; cut off for a reader too slow) is a concern of
its own, beside accepting connections and answering HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from server.net.outbox import CLOSE_TRY_AGAIN_LATER
from server.net.peer import Peer

FLUSH_POLL_SECONDS = 0.01
CLOSE_SERVICE_RESTART = 1012
RESTART_REASON = "server restarting; reconnect with your token"


class WebSocketOutlet:
    """A peer's frames onto one websockets connection: written at once
    when the socket is idle, else drained by a writer task in order.  A
    frame the writer cannot hand over within ``write_timeout`` closes the
    connection with 1013: a client that stopped reading holds no more
    than the bounded buffers (``write_buffer_bytes``, the kernel's
    ``kernel_send_buffer_bytes``, ``send_queue``) and is gone after the
    closing handshake's ``close_timeout``, keepalive pings or not.
    Slotted: every connection keeps one."""

    __slots__ = ("connection", "text", "write_timeout", "peer", "_wake", "_writing", "_writer", "_closer", "handling")

    def __init__(self, connection: ServerConnection, text: bool, write_timeout: float | None) -> None:
        self.connection = connection
        self.text = text
        self.write_timeout = write_timeout
        self.peer: Peer | None = None
        self._wake: asyncio.Event | None = None
        self._writing = False
        self._writer: asyncio.Task[None] | None = None
        self._closer: asyncio.Task[None] | None = None
        self.handling = False
        """A frame read off this connection is being answered."""

    def start(self, peer: Peer) -> None:
        self.peer = peer

    def write_now(self, frame: bytes) -> bool:
        connection = self.connection
        if connection.protocol.state is not State.OPEN:
            return True
        if self._writing or connection.paused:
            return False
        broadcast((connection,), frame, text=self.text)
        return True

    def wake(self) -> None:
        """Start the writer on the first backlog: most connections never
        have one, and an idle writer costs each its task, frame and event."""
        if self._wake is None:
            assert self.peer is not None, "start the outlet before sending"
            self._wake = asyncio.Event()
            self._writer = asyncio.create_task(self._drain(self.peer, self._wake), name=f"writer {self.peer.number}")
        self._wake.set()

    def close(self, code: int, reason: str) -> None:
        if self._closer is None:
            self._closer = asyncio.create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        """The closing handshake, cut off after ``close_timeout``: its close
        frame queues behind everything unsent, which a client that stopped
        reading never takes, and websockets waits for that buffer to drain
        before its own close timeout starts."""
        connection = self.connection
        try:
            async with asyncio.timeout(connection.close_timeout):
                await connection.close(code, reason)
        except TimeoutError:
            connection.transport.abort()

    @property
    def idle(self) -> bool:
        """Nothing queued and nothing being written."""
        return not self._writing and not (self.peer and self.peer.backlog)

    @property
    def answered(self) -> bool:
        """Every frame received so far has been answered and its reply
        written: no frame waits in websockets' queue, none is being
        handled, nothing waits to be written."""
        return not self.handling and not len(self.connection.recv_messages.frames) and self.idle

    async def close_for_restart(self, deadline: float) -> None:
        """Close with 1012 once every frame received has its reply (or at
        ``deadline``, loop time).  Reading stops first, so no request can
        arrive between the last reply and the close frame; it starts again
        once the close frame is out, to read the client's half of the
        closing handshake."""
        loop = asyncio.get_running_loop()
        transport = self.connection.transport
        transport.pause_reading()
        while not self.answered and loop.time() < deadline:
            await asyncio.sleep(FLUSH_POLL_SECONDS)
        if self.peer is not None:
            self.peer.close(CLOSE_SERVICE_RESTART, RESTART_REASON)  # frames read from now on are dropped unread
        while self.connection.protocol.state is State.OPEN and loop.time() < deadline:
            await asyncio.sleep(0)
        transport.resume_reading()
        if self._closer is not None:
            await self._closer

    async def _drain(self, peer: Peer, wake: asyncio.Event) -> None:
        while True:
            await wake.wait()
            wake.clear()
            while peer.backlog and not peer.closed:
                frame = peer.backlog.popleft()
                self._writing = True
                try:
                    async with asyncio.timeout(self.write_timeout):
                        await self.connection.send(frame, text=self.text)
                except ConnectionClosed:
                    return
                except TimeoutError:
                    # The client stopped reading: the kernel's buffers and
                    # the write buffer are full and nothing drains them.
                    peer.close(CLOSE_TRY_AGAIN_LATER, "too slow to read; reconnect and watch again")
                    return
                finally:
                    self._writing = False

    async def finish(self) -> None:
        """Stop writing; wait for a close this outlet started.  Then let go
        of the peer, which holds this outlet: without that reference cycle
        a closed connection is freed at once, not at a full collection."""
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
        if self._closer is not None:
            await self._closer
        self.peer = None
