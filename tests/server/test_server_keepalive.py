"""Plain HTTP on kept-alive connections (``server.transport.keepalive``): files,
revalidations and misses one after another on one TCP connection, then
a WebSocket upgrade on it; the answers that end a connection (one asked
to close, a refusal, a connection past its time); idle connections
closed when the server stops; and each request after a connection's
first costs the TCP flood guard a token, as a new connection would."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import GeneratorType
from typing import AsyncIterator

import pytest
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WireClient
from tests.storage_backends import ManualClock

import server.transport.app
import server.transport.keepalive
from protocol import ErrorCode
from server.net.admission import SocketPeer
from server.transport.app import ArenaServer
from server.transport.keepalive import KeepAliveConnection
from server.storage.memory import MemoryStore

UPGRADE = (
    "GET /ws HTTP/1.1\r\nHost: arena\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)
LIVENESS_SECONDS = 30.0
"""Bounds a hang only: every wait here ends as soon as the server answers."""
STOPPED_SECONDS = 8.0
"""An idle connection notices a stop within ``IDLE_CHECK_SECONDS`` (0.5 s);
without that check websockets would end it only at its ``open_timeout``
(10 s), which this bound stays below."""


@pytest.fixture
async def site(tmp_path: Path) -> AsyncIterator[ArenaServer]:
    web = tmp_path / "web"
    web.mkdir()
    (web / "index.html").write_text("<h1>Arena</h1>", encoding="utf-8")
    (web / "app.js").write_text("console.log(1)", encoding="utf-8")
    async with ArenaServer(make_settings(static_dir=web), store=MemoryStore()) as running:
        yield running


def count_connections(site: ArenaServer) -> list[SocketPeer]:
    accepted: list[SocketPeer] = []
    admit = site.listener.admit

    def counting(peer: SocketPeer) -> bool:
        accepted.append(peer)
        return admit(peer)

    site.listener.admit = counting
    return accepted


class RawHttp:
    """One TCP connection, requests written and answers read in turn."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> RawHttp:
        return cls(*await asyncio.open_connection("127.0.0.1", port))

    async def ask(self, request_line: str, *headers: str, body: bool = True) -> tuple[int, dict[str, str], bytes]:
        self.writer.write("\r\n".join([request_line, "Host: arena", *headers, "", ""]).encode())
        async with asyncio.timeout(LIVENESS_SECONDS):
            head = await self.reader.readuntil(b"\r\n\r\n")
            status_line, *lines = head.decode().removesuffix("\r\n\r\n").split("\r\n")
            fields = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
            length = int(fields.get("content-length", "0")) if body else 0
            return int(status_line.split()[1]), fields, await self.reader.readexactly(length)

    async def ended(self) -> bool:
        """Whether the server closes the connection (it reads an end of file)."""
        async with asyncio.timeout(LIVENESS_SECONDS):
            return await self.reader.read() == b""

    def close(self) -> None:
        self.writer.close()


async def test_files_revalidations_and_misses_share_one_connection_then_it_upgrades(site: ArenaServer) -> None:
    accepted = count_connections(site)
    client = await RawHttp.open(site.port)
    status, headers, body = await client.ask("GET / HTTP/1.1")
    assert (status, body) == (200, b"<h1>Arena</h1>")
    assert "connection" not in headers and headers["keep-alive"].startswith("timeout=")
    assert (await client.ask("GET /app.js HTTP/1.1"))[::2] == (200, b"console.log(1)")
    assert (await client.ask("GET / HTTP/1.1", f"If-None-Match: {headers['etag']}"))[::2] == (304, b"")
    assert (await client.ask("HEAD /app.js HTTP/1.1", body=False))[0] == 200
    assert (await client.ask("GET /missing.js HTTP/1.1"))[0] == 404
    assert (await client.ask("GET /healthz HTTP/1.1"))[::2] == (200, b"ok\n")
    client.writer.write(UPGRADE.encode())
    async with asyncio.timeout(LIVENESS_SECONDS):
        assert (await client.reader.readline()).startswith(b"HTTP/1.1 101")
        while len(site.hub.peers) != 1:
            await asyncio.sleep(0.01)
    assert len(accepted) == 1, "seven requests, one TCP connection"
    client.close()


@pytest.mark.parametrize(
    "request_line, headers, status, lifetime",
    [
        ("GET / HTTP/1.1", ("Connection: close",), 200, None),
        ("POST / HTTP/1.1", ("Content-Length: 0",), 405, None),
        ("GET /ws HTTP/1.1", (), 426, None),
        ("GET / HTTP/1.1", (), 200, 0.0),
    ],
    ids=["asked to close", "refused", "asked to upgrade", "past its time"],
)
async def test_an_answer_ends_the_connection_when_asked_when_it_refuses_or_when_its_time_is_up(
    site: ArenaServer,
    monkeypatch: pytest.MonkeyPatch,
    request_line: str,
    headers: tuple[str, ...],
    status: int,
    lifetime: float | None,
) -> None:
    if lifetime is not None:
        monkeypatch.setattr(server.transport.keepalive, "KEEP_ALIVE_SECONDS", lifetime)
    client = await RawHttp.open(site.port)
    answered, fields, _ = await client.ask(request_line, *headers)
    assert answered == status and fields["connection"].lower() in ("close", "upgrade")
    assert await client.ended()
    client.close()


async def test_an_idle_connection_is_closed_when_the_server_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server.transport.keepalive, "KEEP_ALIVE_SECONDS", 3600.0)
    (tmp_path / "index.html").write_text("<h1>Arena</h1>", encoding="utf-8")
    running = ArenaServer(make_settings(static_dir=tmp_path), store=MemoryStore())
    await running.start()
    client = await RawHttp.open(running.port)
    assert (await client.ask("GET / HTTP/1.1"))[0] == 200
    stopping = asyncio.create_task(running.shutdown())
    async with asyncio.timeout(STOPPED_SECONDS):
        assert await client.reader.read() == b"", "closed, not left waiting for a next request"
    await stopping
    client.close()


async def test_each_further_request_costs_the_tcp_flood_guard_what_a_connection_would(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<h1>Arena</h1>", encoding="utf-8")
    settings = make_settings(static_dir=tmp_path, tcp_connection_burst=3, tcp_connection_rate_per_second=0.5)
    async with ArenaServer(settings, store=MemoryStore(), monotonic=ManualClock()) as running:
        client = await RawHttp.open(running.port)
        for _ in range(3):
            assert (await client.ask("GET / HTTP/1.1"))[0] == 200, "the connection's token, then two more"
        status, headers, body = await client.ask("GET / HTTP/1.1")
        assert (status, headers["connection"], headers["retry-after"]) == (429, "close", "2")
        assert json.loads(body)["code"] == ErrorCode.COOLING_DOWN
        assert await client.ended()
        client.close()
        with pytest.raises((ConnectionResetError, asyncio.IncompleteReadError)):
            reset = await RawHttp.open(running.port)
            try:
                await reset.ask("GET / HTTP/1.1")
            finally:
                reset.close()
        assert running.hub.metrics.registry.get_sample_value("arena_connections_reset_total") == 1, "told once, then reset"


async def test_a_failing_answer_is_a_logged_500_that_ends_the_connection(
    site: ArenaServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def failing(*arguments: object) -> None:
        raise OSError("File name too long")

    monkeypatch.setattr(server.transport.app, "site_response", failing)
    client = await RawHttp.open(site.port)
    assert (await client.ask("GET /healthz HTTP/1.1"))[0] == 200
    status, headers, _ = await client.ask("GET /index.html HTTP/1.1")
    assert (status, headers["connection"]) == (500, "close")
    assert await client.ended()
    assert "process_request failed" in caplog.text
    client.close()


async def test_an_open_websocket_keeps_neither_its_handshake_headers_nor_the_keep_alive_parser(site: ArenaServer) -> None:
    client = await WireClient.open(site.url)
    try:
        assert site._server is not None
        (connection,) = site._server.connections
        assert connection.request is not None and not connection.request.headers and connection.response is None
        parser = connection.protocol.parser
        assert isinstance(parser, GeneratorType) and parser.gi_code is not KeepAliveConnection._parse_request.__code__
        welcome = await client.hello()
        assert welcome.player_id, "frames after the handshake are read as frames, not as a request"
    finally:
        await client.close()
