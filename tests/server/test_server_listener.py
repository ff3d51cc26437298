"""The listening socket's own screening, without a server around it."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import socket
import struct

import pytest

from server.net.admission import SocketPeer
from server.transport.listener import (
    DROP_PACKET,
    JUMP_IF_EQUAL,
    KEEP_PACKET,
    RECHECK_SECONDS,
    RESETS_PER_ACCEPT,
    RETURN,
    ScreenedSocket,
    drop_program,
    screened_listener,
)

DROPPED_SECONDS = 0.5
"""How long a connect waits before the test calls it dropped (on loopback
the kernel makes a connection at once; a dropped SYN is retried after 1 s)."""
SETTLE_SECONDS = 5.0
"""A liveness bound on the listener noticing that a bar ended."""


def test_one_accept_resets_at_most_its_share_of_refused_connections_then_yields() -> None:
    refused: list[SocketPeer] = []

    def refuse(peer: SocketPeer) -> bool:
        refused.append(peer)
        return False

    listener = screened_listener("127.0.0.1", 0, refuse)
    clients: list[socket.socket] = []
    try:
        listener.setblocking(True)
        for _ in range(RESETS_PER_ACCEPT + 1):
            clients.append(socket.create_connection(listener.getsockname()))
        with pytest.raises(BlockingIOError):
            listener.accept()
        assert refused == [client.getsockname()[:2] for client in clients[:RESETS_PER_ACCEPT]]
        listener.admit = lambda peer: True
        connection, _ = listener.accept()
        assert connection.getpeername()[:2] == clients[RESETS_PER_ACCEPT].getsockname()[:2]
        connection.close()
        clients[0].settimeout(5)
        with pytest.raises(ConnectionResetError):
            clients[0].recv(1)
    finally:
        listener.close()
        for client in clients:
            with contextlib.suppress(OSError):
                client.close()


def test_a_port_in_use_raises_eaddrinuse_and_closes_the_half_made_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    closed: list[ScreenedSocket] = []
    close = ScreenedSocket.close

    def spy(self: ScreenedSocket) -> None:
        closed.append(self)
        close(self)

    monkeypatch.setattr(ScreenedSocket, "close", spy)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(OSError) as raised:
            screened_listener("127.0.0.1", taken.getsockname()[1], lambda peer: True)
    assert raised.value.errno == errno.EADDRINUSE
    assert len(closed) == 1 and closed[0].fileno() == -1


def _accepted_from(listener: ScreenedSocket) -> str:
    connection, peer = listener.accept()
    connection.close()
    return str(peer[0])


async def test_the_kernel_drops_a_barred_address_until_its_bar_ends_and_spares_open_connections() -> None:
    """Dropped, not reset: a SYN from the address gets no answer at all,
    so the server never wakes for it; another address, and a connection
    the barred address opened before, carry on."""
    bars = {"127.0.0.2": 30.0}
    listener = screened_listener("127.0.0.1", 0, lambda peer: True, lambda host: bars.get(host, 0.0))
    address = listener.getsockname()
    loop = asyncio.get_running_loop()
    clients: list[socket.socket] = []

    def connect(host: str) -> socket.socket:
        client = socket.socket()
        clients.append(client)
        client.bind((host, 0))
        client.settimeout(DROPPED_SECONDS)
        client.connect(address)
        return client

    try:
        listener.setblocking(True)
        earlier = connect("127.0.0.2")
        opened, _ = listener.accept()
        listener.drop_from("127.0.0.2")
        assert listener.dropping == {"127.0.0.2"}
        with pytest.raises(TimeoutError):
            await loop.run_in_executor(None, connect, "127.0.0.2")
        connect("127.0.0.3")
        assert _accepted_from(listener) == "127.0.0.3"
        opened.sendall(b"x")
        assert earlier.recv(1) == b"x", "a connection made before the bar is untouched"
        opened.close()

        bars.clear()
        deadline = loop.time() + SETTLE_SECONDS
        while listener.dropping:
            assert loop.time() < deadline, "the listener lifts a bar that ended"
            await asyncio.sleep(RECHECK_SECONDS / 10)
        connect("127.0.0.2")
        assert _accepted_from(listener) == "127.0.0.2"
    finally:
        listener.close()
        for client in clients:
            client.close()


def test_every_barred_address_jumps_to_the_drop_and_any_other_falls_through_to_keep() -> None:
    """The jump offsets of the filter, read back: a wrong one drops the
    wrong address (or everyone), which the kernel test of one address
    cannot tell."""
    barred = ["127.0.0.2", "127.0.0.3", "10.1.2.3"]
    code = [struct.unpack("HBBI", raw) for (raw,) in struct.iter_unpack("8s", drop_program(barred))]
    keep, drop = len(code) - 2, len(code) - 1
    assert code[keep] == (RETURN, 0, 0, KEEP_PACKET) and code[drop] == (RETURN, 0, 0, DROP_PACKET)
    for position, address in enumerate(barred, start=1):
        op, if_equal, otherwise, value = code[position]
        assert (op, value) == (JUMP_IF_EQUAL, int(ipaddress.IPv4Address(address)))
        assert position + 1 + if_equal == drop, address
        assert otherwise == 0, "another address goes on to the next test, after the last to keep"
    assert [struct.unpack("HBBI", raw) for (raw,) in struct.iter_unpack("8s", drop_program([]))][1:] == [
        (RETURN, 0, 0, KEEP_PACKET), (RETURN, 0, 0, DROP_PACKET)
    ], "no bar: everything is kept"

