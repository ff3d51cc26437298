"""HTTP answers beyond a plain GET: methods other than GET and HEAD (405),
``/ws`` without an upgrade (426), and static files that a browser may keep
and revalidate (ETag, Cache-Control, If-None-Match and 304)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import AsyncIterator

import pytest
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import http_exchange

from server.transport.app import ArenaServer
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


PAGE = '<link rel="icon" href="data:,"><link href="style.css"><script src="js/main.js"></script><a href="#lobby"></a><img src="/logo.png">'


@pytest.fixture
async def versioned(tmp_path: Path) -> AsyncIterator[ArenaServer]:
    web = tmp_path / "web"
    (web / "js").mkdir(parents=True)
    (web / "index.html").write_text(PAGE, encoding="utf-8")
    (web / "style.css").write_text("body {}", encoding="utf-8")
    (web / "js" / "main.js").write_text('import "./board.js";', encoding="utf-8")
    (web / "js" / "board.js").write_text("export {};", encoding="utf-8")
    async with ArenaServer(make_settings(static_dir=web), store=MemoryStore()) as running:
        yield running


def _references(page: bytes) -> list[str]:
    return re.findall(r'(?:src|href)="([^"]*)"', page.decode())


async def test_a_page_names_its_files_under_the_sites_version_and_revalidates_by_it(versioned: ArenaServer) -> None:
    status, headers, page = await http_exchange(versioned.port, "GET / HTTP/1.1")
    assert status == 200 and headers["cache-control"] == "no-cache"
    version = headers["etag"].strip('"')
    assert _references(page) == ["data:,", f"/v/{version}/style.css", f"/v/{version}/js/main.js", "#lobby", "/logo.png"]
    assert int(headers["content-length"]) == len(page)
    status, _, body = await http_exchange(versioned.port, "GET /index.html HTTP/1.1", f"If-None-Match: {headers['etag']}")
    assert (status, body) == (304, b"")

    board = versioned.settings.static_dir / "js" / "board.js"
    board.write_text("export const changed = 1;", encoding="utf-8")
    os.utime(board, ns=(board.stat().st_atime_ns, board.stat().st_mtime_ns + 1_000_000_000))
    status, changed, page = await http_exchange(versioned.port, "GET / HTTP/1.1", f"If-None-Match: {headers['etag']}")
    assert status == 200 and changed["etag"] != headers["etag"], "a change to any file is a new version"
    assert f"/v/{changed['etag'].strip(chr(34))}/js/main.js" in _references(page)


async def test_a_file_under_the_current_version_is_immutable_and_under_another_is_revalidated(versioned: ArenaServer) -> None:
    _, headers, _ = await http_exchange(versioned.port, "GET / HTTP/1.1")
    version = headers["etag"].strip('"')
    status, current, body = await http_exchange(versioned.port, f"GET /v/{version}/js/board.js HTTP/1.1", unique=True)
    assert (status, body) == (200, b"export {};")
    assert current["cache-control"] == "public, max-age=31536000, immutable"
    assert current["content-type"].startswith("text/javascript") or current["content-type"].startswith("application/javascript")
    status, stale, body = await http_exchange(versioned.port, "GET /v/0123456789abcdef/js/board.js HTTP/1.1")
    assert (status, body, stale["cache-control"]) == (200, b"export {};", "no-cache"), "an old page gets today's file, not pinned"
    status, plain, _ = await http_exchange(versioned.port, "GET /js/board.js HTTP/1.1")
    assert (status, plain["cache-control"]) == (200, "no-cache")
    assert (await http_exchange(versioned.port, f"GET /v/{version}/js/missing.js HTTP/1.1"))[0] == 404
    assert (await http_exchange(versioned.port, f"GET /v/{version}/../secret HTTP/1.1"))[0] == 404
