"""A request with a body gets the answer it would get without one.

websockets' HTTP parser refuses a request that announces a body by
closing the connection unanswered (curl: "empty reply from server"); the
server's own parser (``server.transport.keepalive``) answers it instead,
drops the body unread and ends the connection.  Asked with Python's own
HTTP client against a real server, and with raw bytes where a client
would not send them (a body announced and never sent, a request behind
a body, an upgrade with a body)."""

from __future__ import annotations

import asyncio
import http.client
from typing import AsyncIterator

import pytest
from tests.server.arena_servers import make_settings

from client import ArenaClient
from server.storage.memory import MemoryStore
from server.transport.app import ArenaServer
from server.transport.web import MAX_BODY_BYTES

LIVENESS_SECONDS = 30.0
"""Bounds a hang only: every wait here ends as soon as the server answers."""
UPGRADE_HEADERS = (
    "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
)


@pytest.fixture
async def arena() -> AsyncIterator[ArenaServer]:
    async with ArenaServer(make_settings(), store=MemoryStore()) as running:
        yield running


def ask(port: int, method: str, path: str, body: bytes | None = None, chunked: bool = False) -> tuple[int, dict[str, str], bytes]:
    """One request with ``http.client``: status, headers (lowercase), body."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=LIVENESS_SECONDS)
    try:
        headers = {"Transfer-Encoding": "chunked"} if chunked else {}
        connection.request(method, path, body=iter([body]) if chunked and body else body, headers=headers, encode_chunked=chunked)
        response = connection.getresponse()
        return response.status, {name.lower(): value for name, value in response.getheaders()}, response.read()
    finally:
        connection.close()


async def exchange(port: int, data: bytes) -> bytes:
    """``data`` written on a new connection; all the server sends back until it closes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        async with asyncio.timeout(LIVENESS_SECONDS):
            return await reader.read()
    finally:
        writer.close()


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
async def test_a_body_changes_nothing_in_a_405(arena: ArenaServer, method: str) -> None:
    without = await asyncio.to_thread(ask, arena.port, method, "/healthz")
    with_body = await asyncio.to_thread(ask, arena.port, method, "/healthz", b'{"a": 1}')
    chunked = await asyncio.to_thread(ask, arena.port, method, "/healthz", b"a=1", True)
    assert without[0] == with_body[0] == chunked[0] == 405
    assert without[2] == with_body[2] == chunked[2] == f"{method} is not served here: use GET\n".encode()
    assert with_body[1]["allow"] == chunked[1]["allow"] == "GET, HEAD"
    assert with_body[1]["connection"].lower() == "close", "a request with a body is its connection's last"


async def test_a_get_with_a_body_is_answered_as_without(arena: ArenaServer) -> None:
    status, headers, body = await asyncio.to_thread(ask, arena.port, "GET", "/healthz", b"a=1")
    without = await asyncio.to_thread(ask, arena.port, "GET", "/healthz")
    assert (status, headers["content-type"], body) == (without[0], without[1]["content-type"], without[2]) == (200, "text/plain", b"ok\n")
    assert headers["connection"].lower() == "close" and "keep-alive" in without[1]


async def test_a_body_over_the_limit_is_refused_for_its_size_and_one_at_it_is_not(arena: ArenaServer) -> None:
    at_limit = await asyncio.to_thread(ask, arena.port, "POST", "/", b"x" * MAX_BODY_BYTES)
    over = await asyncio.to_thread(ask, arena.port, "POST", "/", b"x" * (16 * MAX_BODY_BYTES))
    assert at_limit[0] == 405
    assert over[0] == 413 and str(MAX_BODY_BYTES) in over[2].decode()


async def test_a_body_announced_and_never_sent_is_not_waited_for(arena: ArenaServer) -> None:
    answer = await exchange(arena.port, b"POST /healthz HTTP/1.1\r\nHost: arena\r\nContent-Length: 1000\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 405 ")


async def test_a_request_behind_a_body_is_dropped_with_the_body(arena: ArenaServer) -> None:
    smuggled = b"GET /metrics HTTP/1.1\r\nHost: arena\r\n\r\n"
    answer = await exchange(
        arena.port, b"POST / HTTP/1.1\r\nHost: arena\r\nContent-Length: 3\r\n\r\nabc" + smuggled,
    )
    assert answer.startswith(b"HTTP/1.1 405 ") and answer.count(b"HTTP/1.1 ") == 1


async def test_an_upgrade_with_a_body_is_refused_and_opens_no_websocket(arena: ArenaServer) -> None:
    head = f"GET /ws HTTP/1.1\r\nHost: arena\r\n{UPGRADE_HEADERS}Content-Length: 2\r\n\r\n".encode()
    answer = await exchange(arena.port, head + b"\x81\x80")
    assert answer.startswith(b"HTTP/1.1 400 ") and b"no body" in answer
    assert not arena.hub.peers
    async with ArenaClient(arena.url, identify=False) as watcher:
        assert await watcher.list_games() == [], "the server still serves WebSockets"
