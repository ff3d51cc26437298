"""HTTP answers beyond a plain GET: methods other than GET and HEAD (405),
``/ws`` without an upgrade (426), and static files that a browser may keep
and revalidate (ETag, Cache-Control, If-None-Match and 304)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import AsyncIterator

import pytest
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import http_exchange

from server.app import ArenaServer
from server.storage.memory import MemoryStore


@pytest.fixture
async def site(tmp_path: Path) -> AsyncIterator[ArenaServer]:
    web = tmp_path / "web"
    web.mkdir()
    (web / "index.html").write_text("<h1>Arena</h1>", encoding="utf-8")
    async with ArenaServer(make_settings(static_dir=web), store=MemoryStore()) as running:
        yield running


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
async def test_methods_other_than_get_and_head_are_not_allowed(site: ArenaServer, method: str) -> None:
    status, headers, _ = await http_exchange(site.port, f"{method} / HTTP/1.1", "Content-Length: 0")
    assert status == 405 and headers["allow"] == "GET, HEAD"


async def test_the_websocket_path_without_an_upgrade_asks_for_one(site: ArenaServer) -> None:
    status, headers, body = await http_exchange(site.port, "GET /ws HTTP/1.1")
    assert status == 426 and headers["upgrade"] == "websocket"
    assert b"WebSocket" in body


async def test_a_static_file_carries_an_etag_and_is_revalidated_with_304(site: ArenaServer) -> None:
    status, headers, body = await http_exchange(site.port, "GET /index.html HTTP/1.1")
    assert (status, body) == (200, b"<h1>Arena</h1>")
    etag = headers["etag"]
    assert etag.startswith('"') and headers["cache-control"] == "no-cache"

    status, again, body = await http_exchange(site.port, "GET / HTTP/1.1", f"If-None-Match: W/{etag}, \"other\"")
    assert (status, body, again["etag"]) == (304, b"", etag)

    index = site.settings.static_dir / "index.html"
    index.write_text("<h1>Arena, new</h1>", encoding="utf-8")
    os.utime(index, ns=(index.stat().st_atime_ns, index.stat().st_mtime_ns + 1_000_000_000))
    status, changed, body = await http_exchange(site.port, "GET / HTTP/1.1", f"If-None-Match: {etag}")
    assert (status, body) == (200, b"<h1>Arena, new</h1>") and changed["etag"] != etag


async def test_head_gives_the_length_without_the_body(site: ArenaServer) -> None:
    status, headers, body = await http_exchange(site.port, "HEAD /index.html HTTP/1.1")
    assert (status, body, headers["content-length"]) == (200, b"", str(len("<h1>Arena</h1>")))
