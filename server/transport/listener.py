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

Even a reset costs the server: the kernel completes the handshake, wakes
the event loop, and the accept, screening and reset follow, about 45 us
of server CPU (19 user, 26 system) per connection, measured with a loop
knocking from an address in its cool-down; a naive reconnect loop knocks
thousands of times a second.  So an address in its cool-down, once told
why (``Admission.on_told_barred``), is dropped by the kernel itself: a
classic BPF program on the listening socket discards what it sends there
(``drop_from``), its SYNs included, so no connection, wake-up or reset
is ever made for it, and a reconnect loop waits on its kernel's SYN
retries (1 s, 3 s, 7 s …) instead of knocking.  Connections already open
keep the program they were made with, which never names their own
address, so they are untouched.  The listener asks the admission (its
clock) whether each bar still holds every ``RECHECK_SECONDS`` and lifts
those that ended.  Linux and IPv4 listeners only; elsewhere, and past
``DROPPED_MOST`` addresses at once, connections are reset at accept as
above.

uvloop accepts in C and never calls the socket's ``accept``
(``screens_at_accept``): on it the same screening and reset run as each
connection is made (``server.transport.keepalive``), after the transport
and websockets' connection exist; the kernel's drops work the same on
either loop.
"""

from __future__ import annotations

import asyncio
import ctypes
import ipaddress
import socket
import struct
import sys
from asyncio.selector_events import BaseSelectorEventLoop
from typing import Any, Callable

from server.net.admission import SocketPeer

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


SO_ATTACH_FILTER = 26
"""Linux's option that attaches a classic BPF program to a socket."""
NETWORK_HEADER = -0x100000
"""``SKF_NET_OFF``: a classic BPF load from here on reads the IP header."""
IPV4_SOURCE = 12
"""Where an IPv4 header holds the source address."""
LOAD_WORD, JUMP_IF_EQUAL, RETURN = 0x20, 0x15, 0x06
KEEP_PACKET, DROP_PACKET = 0xFFFFFFFF, 0
DROPPED_MOST = 255
"""Addresses one program drops: a classic BPF jump spans 255 instructions at most."""
RECHECK_SECONDS = 1.0
"""How often the listener asks whether the bars it drops still hold."""


def drop_program(addresses: list[str]) -> bytes:
    """A ``sock_filter`` array: load the IPv4 source, drop the packet if it
    is one of ``addresses``, keep it otherwise."""
    count = len(addresses)
    code = [(LOAD_WORD, 0, 0, (NETWORK_HEADER + IPV4_SOURCE) & 0xFFFFFFFF)]
    code += [(JUMP_IF_EQUAL, count - index, 0, int(ipaddress.IPv4Address(address))) for index, address in enumerate(addresses)]
    code += [(RETURN, 0, 0, KEEP_PACKET), (RETURN, 0, 0, DROP_PACKET)]
    return b"".join(struct.pack("HBBI", *instruction) for instruction in code)


class ScreenedSocket(socket.socket):
    """A listening socket whose ``accept`` resets each connection that
    ``admit(peer)`` refuses and returns only the admitted ones, and whose
    kernel drops the addresses ``drop_from`` names while ``barred_seconds``
    says their bar holds."""

    admit: Callable[[SocketPeer], bool]
    barred_seconds: Callable[[str], float]
    dropping: set[str]
    """The addresses the kernel drops now."""
    _recheck: asyncio.TimerHandle | None = None

    def drop_from(self, address: str) -> None:
        """Have the kernel drop what ``address`` sends here until its bar
        ends (see the module docstring); nothing where it cannot."""
        if sys.platform != "linux" or self.family != socket.AF_INET or self.fileno() < 0:
            return
        try:
            ipaddress.IPv4Address(address)
        except ValueError:
            return
        self.dropping.add(address)
        self._refilter()

    def _refilter(self) -> None:
        """Drop the addresses whose bar holds (the longest-barred first,
        ``DROPPED_MOST`` at most), and ask again in ``RECHECK_SECONDS``."""
        self._recheck = None
        if self.fileno() < 0:
            return
        left = {address: self.barred_seconds(address) for address in self.dropping}
        dropped = sorted((address for address, seconds in left.items() if seconds > 0), key=left.__getitem__, reverse=True)
        dropped = dropped[:DROPPED_MOST]
        self.dropping = set(dropped)
        program = ctypes.create_string_buffer(drop_program(dropped))
        self.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, struct.pack("HL", len(program.raw) // 8, ctypes.addressof(program)))
        if dropped:
            self._recheck = asyncio.get_running_loop().call_later(RECHECK_SECONDS, self._refilter)

    def close(self) -> None:
        if self._recheck is not None:
            self._recheck.cancel()
            self._recheck = None
        super().close()

    def accept(self) -> tuple[socket.socket, Any]:
        for _ in range(RESETS_PER_ACCEPT):
            connection, peer = super().accept()
            if self.admit(peer[:2]):
                return connection, peer
            reset(connection)
            connection.close()
        raise BlockingIOError("only refused connections so far; more are accepted on the next turn of the event loop")


def screens_at_accept(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether ``loop`` accepts through the listening socket's ``accept``,
    so that ``ScreenedSocket`` screens there (asyncio's own loops do)."""
    return isinstance(loop, BaseSelectorEventLoop)


def admit_every(peer: SocketPeer) -> bool:
    """The screening at accept where the loop screens as a connection is made instead."""
    return True


def reset(connection: socket.socket) -> None:
    """Have ``connection``'s close send a reset (RST) and keep no ``TIME_WAIT``."""
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, RESET_ON_CLOSE)


def screened_listener(
    host: str, port: int, admit: Callable[[SocketPeer], bool], barred_seconds: Callable[[str], float] = lambda address: 0.0
) -> ScreenedSocket:
    """A listening socket on ``host`` (its first address, if a name) and
    ``port``, screening each connection with ``admit``; ``barred_seconds``
    tells ``drop_from`` how long an address's bar still holds."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    listener = ScreenedSocket(family, kind, proto)
    try:
        listener.admit = admit
        listener.barred_seconds = barred_seconds
        listener.dropping = set()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind(address)
        except OSError as error:
            refused = OSError(f"cannot listen on {host_and_port(host, port)}: {error.strerror}")
            refused.errno = error.errno
            raise refused from error
        listener.listen(LISTEN_BACKLOG)
        listener.setblocking(False)
    except BaseException:
        listener.close()
        raise
    return listener


def host_and_port(host: str, port: int) -> str:
    """``host:port`` as a URL writes it: an IPv6 address in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
