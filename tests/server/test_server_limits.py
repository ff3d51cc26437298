"""Limits: oversized frames, flooding, a client that never reads, and
everyone else carrying on meanwhile.

The bounds on round-trip times below are liveness checks (a blocked
server would take forever), far above real latencies; the speed figures
are in ``bench/server.py``.
"""

from __future__ import annotations

import asyncio
import socket
import time
from typing import AsyncIterator

import pytest
from tests.server.arena_wire import WireClient
from tests.server.arena_servers import make_settings
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from protocol import MSGPACK, MSGPACK_SUBPROTOCOL, ErrorCode
from protocol import to_server as ts
from server.transport.app import ArenaServer
from server.net.peer import Peer
from server.storage.memory import MemoryStore

NEVER_BLOCKED_SECONDS = 2.0
HANG_SECONDS = 60.0
"""Bounds a hang only: the wait ends on the event (a peer dropped), however
late a loaded machine's timers fire."""


@pytest.fixture
async def limited() -> AsyncIterator[ArenaServer]:
    settings = make_settings(rate_per_second=50, rate_burst=20, rate_strikes=30, max_frame_bytes=2048)
    async with ArenaServer(settings, store=MemoryStore()) as running:
        yield running


@pytest.fixture
async def small_buffers() -> AsyncIterator[ArenaServer]:
    """Send buffers small enough that a client who stops reading fills them in a few dozen frames."""
    settings = make_settings(
        send_queue=8, send_overflows=2, write_buffer_bytes=4096, kernel_send_buffer_bytes=4096
    )
    async with ArenaServer(settings, store=MemoryStore()) as running:
        yield running


async def _round_trips(client: WireClient, count: int, pause: float) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        reply = await client.request(ts.Ping)
        assert reply.type == "pong", reply
        times.append(time.perf_counter() - started)
        await asyncio.sleep(pause)
    return times


async def test_an_oversized_frame_closes_the_connection_with_1009(limited: ArenaServer) -> None:
    client = await WireClient.open(limited.url)
    await client.send_raw(MSGPACK.encode_data({"type": "hello", "name": "x" * 4000}))
    assert await client.closed() == 1009


async def test_a_flooding_client_is_rate_limited_then_closed_while_others_carry_on(limited: ArenaServer) -> None:
    calm = await WireClient.open(limited.url)
    flooder = await WireClient.open(limited.url)

    async def flood() -> None:
        frame = MSGPACK.encode(ts.Ping())
        try:
            for _ in range(5000):
                await flooder.send_raw(frame)
        except ConnectionClosed:
            pass

    flooding = asyncio.create_task(flood())
    times = await _round_trips(calm, 40, 0.025)
    await flooding
    assert await flooder.closed() == 1008
    codes = [m.code for m in flooder.received if m.type == "error"]
    assert codes and set(codes) == {ErrorCode.RATE_LIMITED}
    assert [m.id for m in flooder.received if m.type == "error"] == [None] * len(codes)
    assert not [m for m in calm.received if m.type == "error"]
    assert max(times) < NEVER_BLOCKED_SECONDS
    await calm.close()


async def test_a_short_burst_is_forgiven(limited: ArenaServer) -> None:
    client = await WireClient.open(limited.url)
    for _ in range(30):
        await client.send(ts.Ping())
    await asyncio.sleep(1.0)
    assert (await client.request(ts.Ping)).type == "pong"
    assert any(m.type == "error" for m in client.received), "30 at once exceed a burst of 20"
    await client.close()


def _small_window_socket(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    sock.connect(("127.0.0.1", port))
    sock.setblocking(False)
    return sock


async def test_a_spectator_that_never_reads_delays_nobody_and_is_dropped(small_buffers: ArenaServer) -> None:
    player = await WireClient.open(small_buffers.url)
    await player.hello()
    started, _ = await player.new_game(deal=5, options={"draw": 3})
    keen = await WireClient.open(small_buffers.url)
    await keen.request(ts.Watch, game_id=started.game_id)
    sleeper = await connect(
        small_buffers.url, subprotocols=[Subprotocol(MSGPACK_SUBPROTOCOL)], sock=_small_window_socket(small_buffers.port), max_queue=2
    )
    await sleeper.send(MSGPACK.encode(ts.Watch(game_id=started.game_id)))
    hub = small_buffers.hub

    def newest() -> Peer:
        return max(hub.peers, key=lambda peer: peer.number)

    while len(hub.peers) < 3 or not newest().watching:
        await asyncio.sleep(0.01)
    slow_peer = newest()

    times, largest_backlog = [], 0
    for _ in range(400):
        moment = time.perf_counter()
        reply = await player.request(ts.Move, game_id=started.game_id, move="draw")
        assert reply.type == "diff"
        times.append(time.perf_counter() - moment)
        largest_backlog = max(largest_backlog, len(slow_peer.backlog))
        if slow_peer.closed:
            break
    assert slow_peer.closed, "the sleeper should have been dropped"
    assert largest_backlog <= small_buffers.settings.send_queue
    overflows = hub.metrics.registry.get_sample_value("arena_send_queue_overflows_total")
    assert overflows is not None and overflows > small_buffers.settings.send_overflows
    assert max(times) < NEVER_BLOCKED_SECONDS
    assert reply.type == "diff", reply
    last = await keen.wait_for(lambda m: m.type == "diff" and m.seq == reply.seq)
    assert [m.seq for m in keen.received if m.type == "diff"] == list(range(1, last.seq + 1))
    with pytest.raises(ConnectionClosed) as closed:
        async with asyncio.timeout(15):
            while True:
                await sleeper.recv()
    assert closed.value.rcvd is None or closed.value.rcvd.code == 1013
    await player.close()
    await keen.close()


async def test_a_client_that_stops_answering_pings_is_dropped() -> None:
    settings = make_settings(ping_interval=0.1, ping_timeout=0.2, close_timeout=0.2)
    async with ArenaServer(settings, store=MemoryStore()) as running:
        reader, writer = await asyncio.open_connection("127.0.0.1", running.port)
        writer.write(
            b"GET /ws HTTP/1.1\r\nHost: arena\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        await writer.drain()
        assert (await reader.readline()).startswith(b"HTTP/1.1 101")
        assert len(running.hub.peers) == 1
        async with asyncio.timeout(HANG_SECONDS):
            while running.hub.peers:
                await asyncio.sleep(0.05)
            while await reader.read(4096):
                pass
        writer.close()
        await writer.wait_closed()
