"""A peer's frames onto a real websockets connection
(``server.transport.outlet``): what one turn of the event loop hands to a
connection goes out together, in order, with one write to its socket."""

from __future__ import annotations

import asyncio
from typing import AsyncIterator

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, serve

from server.transport.outlet import Batch, WebSocketOutlet

FRAMES = [b"first", b"second", b"third"]


@pytest.fixture
async def pair() -> AsyncIterator[tuple[ServerConnection, ClientConnection]]:
    """A server's side and a client's side of one real connection."""
    accepted: asyncio.Future[ServerConnection] = asyncio.get_running_loop().create_future()

    async def handler(connection: ServerConnection) -> None:
        accepted.set_result(connection)
        await connection.wait_closed()

    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}", compression=None) as client:
            yield await accepted, client


def _written(connection: ServerConnection) -> list[bytes]:
    """What the connection's transport is given to write from now on (the
    writes still reach the socket)."""
    writes: list[bytes] = []
    transport = connection.transport
    write = transport.write

    def recorded(data: bytes | bytearray | memoryview) -> None:
        writes.append(bytes(data))
        write(data)

    transport.write = recorded  # type: ignore[method-assign]
    return writes


async def test_the_frames_of_one_turn_go_out_in_order_with_one_write(pair: tuple[ServerConnection, ClientConnection]) -> None:
    connection, client = pair
    writes = _written(connection)
    outlet = WebSocketOutlet(connection, text=False, write_timeout=None, batch=Batch())
    assert all(outlet.write_now(frame) for frame in FRAMES)
    assert not outlet.idle and writes == [], "written when the turn ends, not before"
    assert [await client.recv() for _ in FRAMES] == FRAMES
    assert len(writes) == 1 and all(frame in writes[0] for frame in FRAMES)
    assert outlet.idle


async def test_a_frame_of_a_later_turn_is_a_write_of_its_own(pair: tuple[ServerConnection, ClientConnection]) -> None:
    connection, client = pair
    writes = _written(connection)
    outlet = WebSocketOutlet(connection, text=True, write_timeout=None, batch=Batch())
    for frame in FRAMES:
        assert outlet.write_now(frame)
        assert await client.recv() == frame.decode()
    assert len(writes) == len(FRAMES)


async def test_frames_handed_over_before_a_close_go_out_before_the_close_frame(
    pair: tuple[ServerConnection, ClientConnection],
) -> None:
    connection, client = pair
    outlet = WebSocketOutlet(connection, text=False, write_timeout=None, batch=Batch())
    assert all(outlet.write_now(frame) for frame in FRAMES)
    outlet.close(4000, "done")
    assert [await client.recv() for _ in FRAMES] == FRAMES
    await client.wait_closed()
    assert client.close_code == 4000
    await outlet.finish()
