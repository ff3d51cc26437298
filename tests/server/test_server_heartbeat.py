"""Keepalive pings (``server.transport.heartbeat``) over real sockets, on a
scheduler the test moves on instead of waiting: a client that never
answers a ping is closed with 1011 once ``ping_timeout`` has passed and
not a tick before (on uvloop too, which ``arena serve`` runs), and cut
off ``close_timeout`` later if it stopped reading with a full buffer;
one that answers stays open through many intervals, its latency measured
as websockets measures it; the connections' pings are spread over the
interval, each pinged once per interval; without ``ping_timeout`` a
silent client is pinged every interval and kept."""

from __future__ import annotations

import asyncio
import json
import socket
from collections import deque
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

import pytest
from tests.server.arena_clock import FakeClock, ManualScheduler
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WireClient
from websockets.asyncio.server import ServerConnection
from websockets.client import ClientProtocol
from websockets.frames import Close, Frame, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

from protocol import to_server as ts
from server.storage.memory import MemoryStore
from server.transport.app import ArenaServer
from server.transport.heartbeat import TIMEOUT_REASON

HANG_SECONDS = 30.0
"""Bounds a hang only: every wait here ends as soon as the frame it waits for comes."""
INTERVAL_MS = 1000
TICK_MS = 250
"""``INTERVAL_MS`` over the wheel's four slots (``SLOT_SECONDS``)."""
TIMEOUT_TICKS = 2
SLOTS = INTERVAL_MS // TICK_MS
SMALL_BUFFER = 4096


@asynccontextmanager
async def serving(ping_timeout: float | None, **changes: Any) -> AsyncIterator[tuple[ArenaServer, ManualScheduler]]:
    clock = FakeClock()
    scheduler = ManualScheduler(clock)
    settings = make_settings(ping_interval=INTERVAL_MS / 1000, ping_timeout=ping_timeout, **changes)
    async with ArenaServer(settings, store=MemoryStore(), clock=clock, scheduler=scheduler) as running:
        assert running.heartbeat.tick_seconds * 1000 == TICK_MS
        yield running, scheduler


@pytest.fixture
async def server() -> AsyncIterator[tuple[ArenaServer, ManualScheduler]]:
    async with serving(ping_timeout=TIMEOUT_TICKS * TICK_MS / 1000) as served:
        yield served


@pytest.fixture
async def unread() -> AsyncIterator[tuple[ArenaServer, ManualScheduler]]:
    """Small kernel buffers, and no write timeout to close a client that
    stops reading first.  The write buffer keeps its size, far above what
    the kernel's buffers can ever take from it, so once full it never drains
    below its low mark again and websockets never bounds the close itself."""
    changes = {"write_timeout_seconds": None, "close_timeout": 0.2, "send_queue": 100_000, "send_overflows": 1_000}
    changes["kernel_send_buffer_bytes"] = SMALL_BUFFER
    async with serving(ping_timeout=TIMEOUT_TICKS * TICK_MS / 1000, **changes) as served:
        yield served


@pytest.fixture
async def unawaited() -> AsyncIterator[tuple[ArenaServer, ManualScheduler]]:
    async with serving(ping_timeout=None) as served:
        yield served


class SilentClient:
    """A WebSocket client that reads every frame and answers none of them:
    websockets' Sans-I/O protocol, whose pongs (and close reply) are
    dropped instead of sent."""

    def __init__(self, protocol: ClientProtocol, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.protocol, self.reader, self.writer = protocol, reader, writer
        self.frames: deque[Frame] = deque()

    @classmethod
    async def open(cls, url: str, receive_buffer: int | None = None) -> SilentClient:
        """Connected, the handshake done; ``receive_buffer`` bounds the
        socket's receive buffer (set before connecting, to bound the window)."""
        uri = parse_uri(url)
        protocol = ClientProtocol(uri)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (uri.host, uri.port))
        client = cls(protocol, *await asyncio.open_connection(sock=sock))
        protocol.send_request(protocol.connect())
        client.writer.write(b"".join(protocol.data_to_send()))
        async with asyncio.timeout(HANG_SECONDS):
            while protocol.state is State.CONNECTING:
                await client._read()
        assert protocol.state is State.OPEN, protocol.handshake_exc
        return client

    async def _read(self) -> None:
        data = await self.reader.read(65536)
        if data:
            self.protocol.receive_data(data)
        else:
            self.protocol.receive_eof()
        self.protocol.data_to_send()
        self.frames.extend(event for event in self.protocol.events_received() if isinstance(event, Frame))

    async def frame(self) -> Frame:
        """The next frame the server sent."""
        async with asyncio.timeout(HANG_SECONDS):
            while not self.frames:
                assert self.protocol.state is not State.CLOSED, "the server closed the connection without a close frame"
                await self._read()
        return self.frames.popleft()

    def ask_for_pong(self) -> None:
        """Ask the server for a ``pong`` message (not a WebSocket pong)."""
        self.protocol.send_text(json.dumps({"type": "ping", "id": 1}).encode())
        self.writer.write(b"".join(self.protocol.data_to_send()))

    async def round_trip(self) -> Frame:
        """Ask for a ``pong`` message and return the first frame after: the
        answer while the connection is open, else its close frame."""
        self.ask_for_pong()
        return await self.frame()

    async def ended(self) -> bool:
        """Whether the server ends the TCP connection."""
        async with asyncio.timeout(HANG_SECONDS):
            return await self.reader.read() == b""

    def close(self) -> None:
        self.writer.close()


def tick(scheduler: ManualScheduler, ticks: int = 1) -> None:
    """Move time on by ``ticks`` of the heartbeat, each its own step (a
    timer set as one fires is due a whole delay after that step)."""
    for _ in range(ticks):
        scheduler.advance(TICK_MS)


def served_connection(running: ArenaServer) -> ServerConnection:
    assert running._server is not None
    (connection,) = running._server.connections
    return connection


def pinged(connections: list[ServerConnection]) -> list[ServerConnection]:
    return [connection for connection in connections if connection.pending_pings]


async def pongs(connections: list[ServerConnection]) -> list[float]:
    """The latencies of the pings these connections wait on, once their pongs come."""
    waiters = [waiter for connection in connections for waiter, _ in list(connection.pending_pings.values())]
    async with asyncio.timeout(HANG_SECONDS):
        return list(await asyncio.gather(*waiters))


def is_pong_message(frame: Frame) -> bool:
    return frame.opcode is Opcode.TEXT and json.loads(bytes(frame.data))["type"] == "pong"


async def test_a_client_that_never_answers_a_ping_is_closed_with_1011_once_the_timeout_has_passed(
    server: tuple[ArenaServer, ManualScheduler],
) -> None:
    await silent_client_closed(*server)


def test_on_uvloop_as_arena_serve_runs_a_silent_client_is_closed_all_the_same() -> None:
    uvloop = pytest.importorskip("uvloop")

    async def scenario() -> None:
        async with serving(ping_timeout=TIMEOUT_TICKS * TICK_MS / 1000) as served:
            await silent_client_closed(*served)

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(scenario())


async def silent_client_closed(running: ArenaServer, scheduler: ManualScheduler) -> None:
    client = await SilentClient.open(running.url)
    try:
        assert is_pong_message(await client.round_trip()), "the handler runs: the connection has joined the heartbeat"
        connection = served_connection(running)
        for _ in range(SLOTS):
            tick(scheduler)
            if connection.pending_pings:
                break
        ping = await client.frame()
        assert (ping.opcode, len(ping.data)) == (Opcode.PING, 4)
        tick(scheduler, TIMEOUT_TICKS - 1)
        assert is_pong_message(await client.round_trip()), "still open a tick before the timeout"
        tick(scheduler)
        closing = await client.frame()
        assert closing.opcode is Opcode.CLOSE
        assert Close.parse(closing.data) == Close(1011, TIMEOUT_REASON)
        assert await client.ended()
    finally:
        client.close()


async def test_a_client_that_stops_reading_with_a_full_buffer_is_cut_off_after_the_timeout(
    unread: tuple[ArenaServer, ManualScheduler],
) -> None:
    running, scheduler = unread
    client = await SilentClient.open(running.url, receive_buffer=SMALL_BUFFER)
    try:
        assert is_pong_message(await client.round_trip())
        connection = served_connection(running)
        transport = client.writer.transport
        assert isinstance(transport, asyncio.Transport)
        transport.pause_reading()
        async with asyncio.timeout(HANG_SECONDS):
            while not connection.drain_waiters:  # the replies' writer waits for a drain that never comes
                for _ in range(100):
                    client.ask_for_pong()
                await client.writer.drain()
                await asyncio.sleep(0.01)
        tick(scheduler, SLOTS)
        assert connection.pending_pings, "the ping waits behind the replies the client does not read"
        tick(scheduler, TIMEOUT_TICKS)
        async with asyncio.timeout(HANG_SECONDS):
            await connection.wait_closed()
        assert connection.protocol.close_sent == Close(1011, TIMEOUT_REASON)
    finally:
        client.close()


async def test_a_client_that_answers_stays_open_through_many_intervals(server: tuple[ArenaServer, ManualScheduler]) -> None:
    running, scheduler = server
    client = await WireClient.open(running.url, ping_interval=None)
    try:
        assert (await client.request(ts.Ping)).type == "pong"
        connection = served_connection(running)
        latencies: list[float] = []
        for _ in range(5 * SLOTS + TIMEOUT_TICKS):
            tick(scheduler)
            latencies += await pongs([connection])
        assert len(latencies) == 5, "one ping an interval"
        assert connection.latency == latencies[-1] > 0
        assert connection.protocol.state is State.OPEN
        assert (await client.request(ts.Ping)).type == "pong"
    finally:
        await client.close()


async def test_the_pings_are_spread_over_the_interval_each_connection_pinged_once(
    server: tuple[ArenaServer, ManualScheduler],
) -> None:
    running, scheduler = server
    clients = [await WireClient.open(running.url, ping_interval=None) for _ in range(2 * SLOTS)]
    try:
        for client in clients:
            assert (await client.request(ts.Ping)).type == "pong"
        assert running._server is not None
        connections = list(running._server.connections)
        per_tick = []
        for _ in range(2 * SLOTS):
            tick(scheduler)
            per_tick.append(pinged(connections))
            await pongs(connections)
        assert [len(tick) for tick in per_tick] == [2] * (2 * SLOTS)
        assert sorted(map(id, sum(per_tick[:SLOTS], []))) == sorted(map(id, connections)), "each once an interval"
        assert per_tick[:SLOTS] == per_tick[SLOTS:], "and at the same point of every interval"
    finally:
        for client in clients:
            await client.close()


async def test_without_a_timeout_a_silent_client_is_pinged_every_interval_and_kept(
    unawaited: tuple[ArenaServer, ManualScheduler],
) -> None:
    running, scheduler = unawaited
    client = await SilentClient.open(running.url)
    try:
        assert is_pong_message(await client.round_trip())
        for _ in range(3):
            tick(scheduler, SLOTS)
            assert (await client.frame()).opcode is Opcode.PING
        assert is_pong_message(await client.round_trip())
        assert len(served_connection(running).pending_pings) == 3, "each ping still awaits its pong, as websockets keeps them"
    finally:
        client.close()
