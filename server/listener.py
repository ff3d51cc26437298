"""The listening socket: connections an address may not open are reset
as the kernel hands them over, before asyncio or websockets see them.

Refusing at the HTTP step costs a task, a transport, websockets' protocol
objects, reading and parsing the request and writing a response: a
reconnect loop refused that way once cost the server more than every
honest player together.  Refusing here costs an ``accept``, the
admission's look-ups and a ``close``: a few microseconds.

The screening hook is the socket's own ``accept``, which asyncio's accept
loop calls for every connection; a connection refused is closed with
``SO_LINGER`` 0, so the kernel sends a reset (RST) and keeps no
``TIME_WAIT`` state for it, and the client reads no HTTP response at all.
"""

from __future__ import annotations

import socket
import struct
from typing import Callable

from server.admission import SocketPeer

RESET_ON_CLOSE = struct.pack("ii", 1, 0)
"""``SO_LINGER`` on, timeout 0: ``close`` sends RST."""
LISTEN_BACKLOG = socket.SOMAXCONN
"""The accept queue is the system's largest: under a flood, an honest
connection waits in it a moment rather than having its SYN dropped and
retried a second later.  (asyncio calls ``listen`` again with the
server's ``backlog``, so pass this there too.)"""
RESETS_PER_ACCEPT = 16
"""Refused connections one ``accept`` call resets before it yields to the
event loop (by reporting nothing to accept), so a flood delays no other
callback by more than that many resets."""


class ScreenedSocket(socket.socket):
    """A listening socket whose ``accept`` resets each connection that
    ``admit(peer)`` refuses and returns only the admitted ones."""

    admit: Callable[[SocketPeer], bool]

    def accept(self) -> tuple[socket.socket, object]:
        for _ in range(RESETS_PER_ACCEPT):
            connection, peer = super().accept()
            if self.admit(peer[:2]):
                return connection, peer
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, RESET_ON_CLOSE)
            connection.close()
        raise BlockingIOError("only refused connections so far; more are accepted on the next turn of the event loop")


def screened_listener(host: str, port: int, admit: Callable[[SocketPeer], bool]) -> ScreenedSocket:
    """A listening socket on ``host`` (its first address, if a name) and
    ``port``, screening each connection with ``admit``."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    listener = ScreenedSocket(family, kind, proto)
    try:
        listener.admit = admit
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(LISTEN_BACKLOG)
        listener.setblocking(False)
    except BaseException:
        listener.close()
        raise
    return listener
