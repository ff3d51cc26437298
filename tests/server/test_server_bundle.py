"""A page served with its bundles (``server.transport.pagebundle``): the
stylesheets and module scripts it links replaced by one of each, served
from memory under the site's version, immutable, gzipped when the
browser takes it; ``?bundle=off`` for the separate files; a new bundle
when any file changes; and a page whose files break the bundler's rules
served with its separate files, the reason logged with file and line."""

from __future__ import annotations

import gzip
import logging
import os
import re
from pathlib import Path
from typing import AsyncIterator

import pytest
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import http_exchange

from server.transport.app import ArenaServer
from server.transport.pagebundle import accepts_gzip
from server.storage.memory import MemoryStore

PAGE = """<!doctype html>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="style.css">
  <link rel="stylesheet" href="theme/dark.css" media="(prefers-color-scheme: dark)">
<link rel="stylesheet" href="alternate.css" title="high contrast">
<script type="module" src="js/main.js"></script>
<script type="module" src="js/extra.js"></script>
<link rel="stylesheet">
<p>Arena</p>
"""
FILES = {
    "index.html": PAGE,
    "style.css": "body { color: black; }\n",
    "theme/dark.css": "body { color: white; }\n",
    "alternate.css": "body { color: yellow; }\n",
    "js/main.js": 'import { greeting } from "./words.js";\nconsole.log(greeting);\n',
    "js/words.js": 'export const greeting = "hello";\n',
    "js/extra.js": 'import { greeting } from "./words.js";\nconsole.log(greeting.length);\n',
}
IMMUTABLE = "public, max-age=31536000, immutable"


@pytest.fixture
async def site(tmp_path: Path) -> AsyncIterator[ArenaServer]:
    web = tmp_path / "web"
    for name, text in FILES.items():
        (web / name).parent.mkdir(parents=True, exist_ok=True)
        (web / name).write_text(text, encoding="utf-8")
    async with ArenaServer(make_settings(static_dir=web), store=MemoryStore()) as running:
        yield running


def references(page: bytes) -> list[str]:
    return re.findall(r'(?:src|href)="([^"]*)"', page.decode())


def touch(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` with a modification time a second later,
    so the site's version changes whatever the file system's clock grain."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(before + 1_000_000_000, before + 1_000_000_000))


async def page_version(site: ArenaServer, query: str = "") -> tuple[str, list[str]]:
    status, headers, page = await http_exchange(site.port, f"GET /{query} HTTP/1.1")
    assert status == 200, page
    return headers["etag"].strip('"'), references(page)


async def test_the_page_links_one_stylesheet_and_one_script_in_place_of_its_own(site: ArenaServer) -> None:
    version, found = await page_version(site)
    v = f"/v/{version}"
    assert found == ["data:,", f"{v}/index.bundle.css", f"{v}/alternate.css", f"{v}/index.bundle.js"]
    _, _, page = await http_exchange(site.port, "GET / HTTP/1.1")
    assert f'\n<link rel="stylesheet" href="{v}/index.bundle.css">\n<link rel="stylesheet" href="{v}/alternate.css" title' in page.decode()

    status, headers, css = await http_exchange(site.port, f"GET {v}/index.bundle.css HTTP/1.1", unique=True)
    assert (status, headers["cache-control"], headers["content-type"]) == (200, IMMUTABLE, "text/css; charset=utf-8")
    assert css.decode() == (
        "/* style.css */\nbody { color: black; }\n\n"
        "/* theme/dark.css */\n@media (prefers-color-scheme: dark) {\nbody { color: white; }\n\n}\n"
    )
    status, headers, script = await http_exchange(site.port, f"GET {v}/index.bundle.js HTTP/1.1")
    assert (status, headers["cache-control"], headers["content-type"]) == (200, IMMUTABLE, "application/javascript; charset=utf-8")
    assert script.decode().count("// js/") == 3 and script.decode().index("// js/words.js") < script.decode().index("// js/main.js")
    assert "content-encoding" not in headers and headers["vary"] == "Accept-Encoding"


async def test_the_bundles_are_gzipped_for_a_browser_that_takes_gzip(site: ArenaServer) -> None:
    version, _ = await page_version(site)
    _, plain, body = await http_exchange(site.port, f"GET /v/{version}/index.bundle.js HTTP/1.1")
    status, zipped, packed = await http_exchange(site.port, f"GET /v/{version}/index.bundle.js HTTP/1.1", "Accept-Encoding: gzip, br")
    assert (status, zipped["content-encoding"], zipped["cache-control"]) == (200, "gzip", IMMUTABLE)
    assert gzip.decompress(packed) == body and int(zipped["content-length"]) == len(packed)
    assert zipped["etag"] != plain["etag"]
    _, refused, same = await http_exchange(site.port, f"GET /v/{version}/index.bundle.js HTTP/1.1", "Accept-Encoding: gzip;q=0, br")
    assert "content-encoding" not in refused and same == body
    status, head, empty = await http_exchange(site.port, f"HEAD /v/{version}/index.bundle.js HTTP/1.1", "Accept-Encoding: gzip")
    assert (status, empty, head["content-length"]) == (200, b"", str(len(packed)))


async def test_a_bundle_outside_the_current_version_is_revalidated_by_its_etag(site: ArenaServer) -> None:
    status, headers, body = await http_exchange(site.port, "GET /index.bundle.js HTTP/1.1")
    assert (status, headers["cache-control"]) == (200, "no-cache")
    status, _, empty = await http_exchange(site.port, "GET /index.bundle.js HTTP/1.1", f"If-None-Match: {headers['etag']}")
    assert (status, empty) == (304, b"")
    status, old, same = await http_exchange(site.port, "GET /v/0123456789abcdef/index.bundle.js HTTP/1.1")
    assert (status, old["cache-control"], same) == (200, "no-cache", body)
    assert (await http_exchange(site.port, "GET /other.bundle.js HTTP/1.1"))[0] == 404
    assert (await http_exchange(site.port, "GET /js/main.bundle.js HTTP/1.1"))[0] == 404
    assert (await http_exchange(site.port, "GET /index.bundle.css/x HTTP/1.1"))[0] == 404


async def test_bundle_off_serves_the_page_with_its_separate_files_which_stay_served(site: ArenaServer) -> None:
    bundled, _ = await page_version(site)
    version, found = await page_version(site, "?bundle=off")
    v = f"/v/{bundled}"
    assert version == f"{bundled}-modules"
    assert found == ["data:,", f"{v}/style.css", f"{v}/theme/dark.css", f"{v}/alternate.css", f"{v}/js/main.js", f"{v}/js/extra.js"]
    status, headers, body = await http_exchange(site.port, f"GET {v}/js/words.js HTTP/1.1")
    assert (status, headers["cache-control"], body) == (200, IMMUTABLE, FILES["js/words.js"].encode())


async def test_a_changed_module_makes_a_new_version_and_a_new_bundle(site: ArenaServer) -> None:
    version, _ = await page_version(site)
    touch(site.settings.static_dir / "js" / "words.js", 'export const greeting = "goodbye";\n')
    changed, found = await page_version(site)
    assert changed != version and f"/v/{changed}/index.bundle.js" in found
    _, _, script = await http_exchange(site.port, f"GET /v/{changed}/index.bundle.js HTTP/1.1")
    assert '"goodbye"' in script.decode() and '"hello"' not in script.decode()


@pytest.mark.parametrize(
    ("name", "text", "logged"),
    [
        ("js/words.js", "export default 1;\n", "js/words.js:1: export default is not bundled"),
        ("style.css", "/* @import in a comment is fine */\nbody {}\n@import url(other.css);\n", "style.css:3: @import is not bundled"),
        ("theme/dark.css", "\nbody { background: url(stars.png); }\n", "theme/dark.css:2: a relative url() outside the page's folder"),
        ("index.html", PAGE + '<link rel="stylesheet" href="gone.css">\n', "index.html:10: references gone.css, which the site does not have"),
    ],
)
async def test_a_page_that_cannot_be_bundled_is_served_with_its_separate_files(
    site: ArenaServer, caplog: pytest.LogCaptureFixture, name: str, text: str, logged: str
) -> None:
    touch(site.settings.static_dir / name, text)
    with caplog.at_level(logging.ERROR, logger="arena.web"):
        version, found = await page_version(site)
        await page_version(site)
    assert version.endswith("-modules") and f"/v/{version.removesuffix('-modules')}/js/main.js" in found
    errors = [record.getMessage() for record in caplog.records if record.name == "arena.web"]
    assert len(errors) == 1 and logged in errors[0], errors
    assert (await http_exchange(site.port, "GET /index.bundle.js HTTP/1.1"))[0] == 404


async def test_a_file_named_like_the_bundle_keeps_the_page_unbundled(site: ArenaServer, caplog: pytest.LogCaptureFixture) -> None:
    touch(site.settings.static_dir / "index.bundle.js", "console.log('mine');\n")
    with caplog.at_level(logging.ERROR, logger="arena.web"):
        version, _ = await page_version(site)
    assert version.endswith("-modules") and "index.bundle.js is the name of the page's bundle" in caplog.text
    assert (await http_exchange(site.port, "GET /index.bundle.js HTTP/1.1"))[2] == b"console.log('mine');\n"


@pytest.mark.parametrize(
    ("header", "takes"),
    [
        (None, False),
        ("", False),
        ("gzip", True),
        ("deflate, gzip;q=0.5", True),
        ("GZIP", True),
        ("gzip;q=0", False),
        ("gzip; q=0.0, br", False),
        ("*", True),
        ("*;q=0", False),
        ("br, *;q=0.1", True),
        ("gzip;q=0, *", False),
        ("gzip;q=nonsense", False),
        ("identity", False),
    ],
)
def test_accept_encoding_is_read_as_rfc_9110_says(header: str | None, takes: bool) -> None:
    assert accepts_gzip(header) is takes
