"""Plain HTTP on the WebSocket port: health, metrics and the web client.

websockets hands every request to ``process_request`` before the
handshake; requests that are not WebSocket upgrades are answered here.
Static files are served only from inside the configured directory: the
path is resolved and must stay under the root, so ``..``, symlinks out
and encoded tricks get a 404 rather than a file.

Static files carry an ETag (size and modification time, so no file is
read to answer a revalidation) and ``Cache-Control: no-cache``: the web
client's modules have no content hashes in their names, so a browser may
keep them but must ask each time whether they changed, and an unchanged
file costs a 304 without a body.  Only GET and HEAD are served (405
otherwise), and ``/ws`` without an upgrade says that it wants one (426).
"""

from __future__ import annotations

import asyncio
import mimetypes
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from prometheus_client import CONTENT_TYPE_LATEST
from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

INDEX = "index.html"
METRICS_CONTENT_TYPE = CONTENT_TYPE_LATEST
METHODS = ("GET", "HEAD")
STATIC_CACHE_CONTROL = "no-cache"


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
    candidate = (base / relative).resolve()
    if candidate.is_dir():
        candidate = candidate / INDEX
    if not candidate.is_relative_to(base) or not candidate.is_file():
        return None
    status = candidate.stat()
    etag = f'"{status.st_size:x}-{status.st_mtime_ns:x}"'
    content_type = mimetypes.guess_type(candidate.name)[0] or "application/octet-stream"
    if content_type.startswith("text/") or content_type in ("application/javascript", "application/json"):
        content_type += "; charset=utf-8"
    return StaticFile(candidate, content_type, etag, status.st_size)


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
    if etag_matches(request.headers.get("If-None-Match"), found.etag):
        response = respond(connection, 304, b"", found.content_type)
        del response.headers["Content-Type"]
    elif request.method == "HEAD":
        response = respond(connection, 200, b"", found.content_type)
        del response.headers["Content-Length"]
        response.headers["Content-Length"] = str(found.size)
    else:
        response = respond(connection, 200, await asyncio.to_thread(found.path.read_bytes), found.content_type)
    response.headers["ETag"] = found.etag
    response.headers["Cache-Control"] = STATIC_CACHE_CONTROL
    return response
