"""Plain HTTP on the WebSocket port: health, metrics and the web client.

websockets hands every request to ``process_request`` before the
handshake; requests that are not WebSocket upgrades are answered here.
Static files are served only from inside the configured directory: the
path is resolved and must stay under the root, so ``..``, symlinks out
and encoded tricks get a 404 rather than a file.

A page load is cheap three times over: a page's stylesheets and module
scripts are served as one file each, built by the server from the files
as they are (``server.transport.pagebundle``; ``?bundle=off`` serves the
page with its separate files), so a first visit is three requests; they
come on a few kept-alive connections (``server.transport.keepalive``);
and a reload asks for the page alone.
The web client's HTML pages are served with their relative ``src`` and ``href`` rewritten under
``/v/<version>/``, where the version is a digest of the names, sizes and
modification times of every file of the site; a file asked for under the
current version is served ``Cache-Control: immutable`` for a year, since
any change to any file makes a new version and so new addresses.  A
reload therefore asks for the page alone (revalidated: 304 when nothing
changed) and takes every module from the browser's cache; only the
first visit, or the first after a change, loads all of them.  The ES
modules import each other by relative paths, so they stay under the
page's version without being rewritten.  A bundle, served from memory,
is gzipped for a browser that takes it (``Vary: Accept-Encoding``), and
its ETag is the version.  A file asked for under an
older version is served as it is now, ``no-cache``: a page loaded just
before a change never pins a new file under its old address.

Other static files carry an ETag (size and modification time, so no file
is read to answer a revalidation) and ``Cache-Control: no-cache``: a
browser may keep them but must ask each time whether they changed, and
an unchanged file costs a 304 without a body.  Only GET and HEAD are
served (405 otherwise), and ``/ws`` without an upgrade says that it
wants one (426).

No request body is ever read: a request that carries one gets the answer
it would get without (a POST its 405), unless the body is over
``MAX_BODY_BYTES`` (413, without reading it) or comes with a WebSocket
upgrade, whose frames would follow it (400).
"""

from __future__ import annotations

import asyncio
import hashlib
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from prometheus_client import CONTENT_TYPE_LATEST
from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from server.transport.keepalive import KeepAliveConnection
from server.transport.pagebundle import BUNDLE_SUFFIXES, PageBundles, accepts_gzip

INDEX = "index.html"
METRICS_CONTENT_TYPE = CONTENT_TYPE_LATEST
METHODS = ("GET", "HEAD")
STATIC_CACHE_CONTROL = "no-cache"
VERSIONED = "/v/"
"""Where the files of one version of the site are served, immutable."""
IMMUTABLE_CACHE_CONTROL = "public, max-age=31536000, immutable"
RELATIVE_REFERENCE = re.compile(rb'\b(src|href)="(?![a-zA-Z][a-zA-Z0-9+.-]*:|/|#)([^"]*)"')
"""A ``src`` or ``href`` attribute whose URL is relative to its page (no
scheme such as ``data:``, no leading ``/``, not a fragment)."""
UNBUNDLED = "bundle=off"
"""The query that asks for a page with its separate files (debugging, and
the baseline of ``bench/web_load.py``)."""
BUNDLES = PageBundles()
"""The pages' bundles of this process, built on first use."""


@dataclass(frozen=True)
class StaticFile:
    path: Path
    content_type: str
    etag: str
    size: int


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``etag`` (weak or strong
    alike, as RFC 9110 asks for this header, or ``*``)."""
    if if_none_match is None:
        return False
    tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return "*" in tags or etag in tags


def find_static(root: Path, url_path: str) -> StaticFile | None:
    """The file under ``root`` that ``url_path`` names, or None."""
    relative = unquote(url_path).lstrip("/")
    if "\x00" in relative or "\\" in relative or any(part == ".." for part in relative.split("/")):
        return None
    base = root.resolve()
    try:
        candidate = (base / relative).resolve()
        if candidate.is_dir():
            candidate = candidate / INDEX
        if not candidate.is_relative_to(base) or not candidate.is_file():
            return None
        status = candidate.stat()
    except OSError:
        return None  # a name too long for the file system, say: no such file
    etag = f'"{status.st_size:x}-{status.st_mtime_ns:x}"'
    content_type = mimetypes.guess_type(candidate.name)[0] or "application/octet-stream"
    if content_type.startswith("text/") or content_type in ("application/javascript", "application/json"):
        content_type += "; charset=utf-8"
    return StaticFile(candidate, content_type, etag, status.st_size)


MAX_BODY_BYTES = 1 << 16
"""The largest request body answered as if it were not there (a form, a
JSON document sent by mistake); a larger one is refused for its size."""


def body_refusal(connection: ServerConnection, request: Request) -> Response | None:
    """The refusal of the body ``request`` announced, or None (no body,
    or one answered as if absent)."""
    body = connection.body if isinstance(connection, KeepAliveConnection) else None
    if body is None:
        return None
    if "Upgrade" in request.headers:
        return respond(connection, 400, "a WebSocket handshake has no body\n", "text/plain")
    if body.length is not None and body.length > MAX_BODY_BYTES:
        return respond(connection, 413, f"this server reads no request body, and refuses one over {MAX_BODY_BYTES} bytes\n", "text/plain")
    return None


def respond(connection: ServerConnection, status: int, body: bytes | str, content_type: str) -> Response:
    """An HTTP response with ``body`` (websockets closes the connection after it)."""
    data = body.encode() if isinstance(body, str) else body
    response = connection.respond(status, "")
    response.body = data
    headers = response.headers
    del headers["Content-Length"], headers["Content-Type"]
    headers["Content-Length"] = str(len(data))
    headers["Content-Type"] = content_type
    return response


async def static_response(connection: ServerConnection, request: Request, found: StaticFile) -> Response:
    """``found`` for a GET (its bytes), a HEAD (its length only) or a
    revalidation whose ETag still matches (304, no body)."""
    if (response := unchanged(connection, request, found.etag)) is not None:
        return response
    if request.method == "HEAD":
        response = respond(connection, 200, b"", found.content_type)
        del response.headers["Content-Length"]
        response.headers["Content-Length"] = str(found.size)
    else:
        response = respond(connection, 200, await asyncio.to_thread(found.path.read_bytes), found.content_type)
    response.headers["ETag"] = found.etag
    response.headers["Cache-Control"] = STATIC_CACHE_CONTROL
    return response


def site_version(root: Path) -> str:
    """A digest of the path, size and modification time of every file
    under ``root``: any change to the site changes it (a stat per file,
    no file read)."""
    base = root.resolve()
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(base.rglob("*")):
        if path.is_file():
            status = path.stat()
            digest.update(f"{path.relative_to(base)}\0{status.st_size}\0{status.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def versioned_page(html: bytes, prefix: str) -> bytes:
    """``html`` with its relative ``src`` and ``href`` under ``prefix``."""
    return RELATIVE_REFERENCE.sub(lambda match: match[1] + b'="' + prefix.encode() + match[2] + b'"', html)


async def site_response(connection: ServerConnection, request: Request, root: Path, url_path: str) -> Response:
    """The site's file at ``url_path`` (see the module docstring): an HTML
    page with its references under the current version, a file under the
    current version immutable, anything else as ``static_response``."""
    tag = None
    if url_path.startswith(VERSIONED):
        tag, _, rest = url_path.removeprefix(VERSIONED).partition("/")
        url_path = "/" + rest
    found = find_static(root, url_path)
    if found is not None and found.content_type.startswith("text/html"):
        return await page_response(connection, request, root, found)
    if found is not None:
        response = await static_response(connection, request, found)
    elif (bundled := await bundle_response(connection, request, root, url_path)) is not None:
        response = bundled
    else:
        return respond(connection, 404, "not found\n", "text/plain")
    if tag is not None and tag == await asyncio.to_thread(site_version, root):
        del response.headers["Cache-Control"]
        response.headers["Cache-Control"] = IMMUTABLE_CACHE_CONTROL
    return response


def unchanged(connection: ServerConnection, request: Request, etag: str) -> Response | None:
    """A 304 if the request's ``If-None-Match`` names ``etag``, else None."""
    if not etag_matches(request.headers.get("If-None-Match"), etag):
        return None
    response = respond(connection, 304, b"", "")
    del response.headers["Content-Type"]
    response.headers["ETag"] = etag
    response.headers["Cache-Control"] = STATIC_CACHE_CONTROL
    return response


def made_response(connection: ServerConnection, request: Request, body: bytes, content_type: str, etag: str) -> Response:
    """``body``, made in memory, for a GET (a HEAD gets its length only)."""
    response = respond(connection, 200, b"" if request.method == "HEAD" else body, content_type)
    del response.headers["Content-Length"]
    response.headers["Content-Length"] = str(len(body))
    response.headers["ETag"] = etag
    response.headers["Cache-Control"] = STATIC_CACHE_CONTROL
    return response


async def bundle_response(connection: ServerConnection, request: Request, root: Path, url_path: str) -> Response | None:
    """One of a page's bundles (``server.transport.pagebundle``), gzipped
    if the browser takes it, or None if ``url_path`` names none.  Its
    ETag is the version: the bundle is made of the site's files."""
    suffix = next((suffix for suffix in BUNDLE_SUFFIXES if url_path.endswith(suffix)), None)
    page = find_static(root, url_path.removesuffix(suffix) + ".html") if suffix else None
    if suffix is None or page is None:
        return None
    version = await asyncio.to_thread(site_version, root)
    built = await BUNDLES.get(root, page.path, version)
    asset = built.assets.get(url_path.rpartition("/")[2]) if built else None
    if asset is None:
        return None
    gzipped = accepts_gzip(request.headers.get("Accept-Encoding"))
    etag = f'"{version}{"-gzip" if gzipped else ""}"'
    response = unchanged(connection, request, etag)
    if response is None:
        response = made_response(connection, request, asset.gzipped if gzipped else asset.body, BUNDLE_SUFFIXES[suffix], etag)
        if gzipped:
            response.headers["Content-Encoding"] = "gzip"
    response.headers["Vary"] = "Accept-Encoding"
    return response


async def page_response(connection: ServerConnection, request: Request, root: Path, found: StaticFile) -> Response:
    """An HTML page of the site, its references under the current version,
    loading its bundles unless the query says ``bundle=off``.  Its ETag is
    the version (which covers the page itself) and how it loads."""
    version = await asyncio.to_thread(site_version, root)
    unbundled = UNBUNDLED in urlsplit(request.path).query.split("&")
    built = None if unbundled else await BUNDLES.get(root, found.path, version)
    etag = f'"{version}"' if built else f'"{version}-modules"'
    if (response := unchanged(connection, request, etag)) is not None:
        return response
    folder = found.path.parent.relative_to(root.resolve()).as_posix().removeprefix(".")
    prefix = f"{VERSIONED}{version}/" + (f"{folder}/" if folder else "")
    html = built.page if built else await asyncio.to_thread(found.path.read_bytes)
    return made_response(connection, request, versioned_page(html, prefix), found.content_type, etag)
