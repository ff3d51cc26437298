"""Plain HTTP on the WebSocket port: health, metrics and the web client.

websockets hands every request to ``process_request`` before the
handshake; requests that are not WebSocket upgrades are answered here.
Static files are served only from inside the configured directory: the
path is resolved and must stay under the root, so ``..``, symlinks out
and encoded tricks get a 404 rather than a file.
"""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Response

INDEX = "index.html"
METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


@dataclass(frozen=True)
class StaticFile:
    path: Path
    content_type: str


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
    content_type = mimetypes.guess_type(candidate.name)[0] or "application/octet-stream"
    if content_type.startswith("text/") or content_type in ("application/javascript", "application/json"):
        content_type += "; charset=utf-8"
    return StaticFile(candidate, content_type)


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
