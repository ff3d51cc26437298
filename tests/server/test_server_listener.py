"""The listening socket's own screening, without a server around it."""

from __future__ import annotations

import contextlib
import errno
import socket

import pytest

from server.admission import SocketPeer
from server.listener import RESETS_PER_ACCEPT, ScreenedSocket, screened_listener


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
