"""The read-only HTTP API under ``/api/v1/`` (docs/http-api.md), answered
on the WebSocket's port: routing, query parameters, rate limits, CORS,
caching and the error bodies.  What each endpoint says is
``server.transport.api_routes``'s.

Decisions made here, and why:
- Every request costs its client address a token of its own bucket
  (``api_rate_per_second``, ``api_burst``), a preflight included; a
  request without one gets 429, ``Retry-After`` and the ``rate_limited``
  error body, before anything is read from the store.
- Any origin may read the API (``Access-Control-Allow-Origin: *``, on
  errors too, so a page can read why): it is read-only and needs no
  credentials, so no origin gains anything another lacks.
- A query parameter the endpoint does not take, or one given twice, is
  refused (400) rather than ignored: a misspelt ``limit`` would otherwise
  answer with the default and look like a bug of the server.
- Every 200 carries a strong ETag (a digest of its body) and answers a
  matching ``If-None-Match`` with 304, so a poller of today's board pays
  for a body only when it changed.
- A failure of the store is 503 ``storage_unavailable``; nothing here
  answers 500.
"""

from __future__ import annotations

import hashlib
import math
import re
from typing import Any, Callable
from urllib.parse import parse_qs, unquote, urlsplit

from pydantic import BaseModel
from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from protocol.http_api import API_PREFIX, ENDPOINTS, JSON_TYPE, NDJSON, ApiError, ApiErrorCode, ApiErrorDetail, Endpoint
from protocol.http_api import Parameter
from server.core import Hub
from server.net.ratelimit import BucketTable
from server.storage.base import StorageError
from server.transport.api_routes import Answer, ApiRefusal, ApiRoutes, Handler
from server.transport.web import etag_matches, respond

API_METHODS = ("GET", "HEAD", "OPTIONS")
PREFLIGHT_MAX_AGE = 86400
INTEGER = re.compile(r"^[0-9]{1,9}$")
BOOLEANS = {"true": True, "false": False}


def _route_pattern(endpoint: Endpoint) -> re.Pattern[str]:
    """The path template as a pattern: a ``{name}`` is one path segment."""
    return re.compile("^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(API_PREFIX + endpoint.path)) + "$")


ROUTES = [(endpoint, _route_pattern(endpoint)) for endpoint in ENDPOINTS]


def route(path: str) -> tuple[Endpoint, dict[str, str]] | None:
    """The endpoint ``path`` names and its path parameters, each decoded
    on its own (so an encoded ``/`` stays inside its segment), or None."""
    for endpoint, pattern in ROUTES:
        match = pattern.match(path)
        if match is not None:
            try:
                return endpoint, {name: unquote(value, errors="strict") for name, value in match.groupdict().items()}
            except UnicodeDecodeError:
                return None
    return None


def cors(response: Response) -> Response:
    """``response`` readable by a page of any origin, and never sniffed
    into another type than the one it says."""
    response.headers["Access-Control-Allow-Origin"] = "*"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def error_response(connection: ServerConnection, status: int, code: ApiErrorCode, message: str) -> Response:
    """The error body every refusal of the API carries."""
    body = ApiError(error=ApiErrorDetail(code=code, message=message)).model_dump_json()
    response = cors(respond(connection, status, body, f"{JSON_TYPE}; charset=utf-8"))
    response.headers["Cache-Control"] = "no-store"
    return response


def _value(parameter: Parameter, text: str) -> Any:
    """A query parameter's value by its schema, or ``ApiRefusal``."""
    schema = parameter.schema
    kind = schema.get("type")
    if kind == "integer":
        number = int(text) if INTEGER.match(text) else None
        if number is None or not schema["minimum"] <= number <= schema["maximum"]:
            raise ApiRefusal(
                400, ApiErrorCode.BAD_PARAMETER,
                f"{parameter.name}: a whole number from {schema['minimum']} to {schema['maximum']}, not {text!r}",
            )
        return number
    if kind == "boolean":
        if text not in BOOLEANS:
            raise ApiRefusal(400, ApiErrorCode.BAD_PARAMETER, f"{parameter.name}: true or false, not {text!r}")
        return BOOLEANS[text]
    if "enum" in schema and text not in schema["enum"]:
        raise ApiRefusal(400, ApiErrorCode.BAD_PARAMETER, f"{parameter.name}: one of {', '.join(schema['enum'])}, not {text!r}")
    if len(text) > schema.get("maxLength", 64) or not text:
        raise ApiRefusal(400, ApiErrorCode.BAD_PARAMETER, f"{parameter.name}: 1 to {schema.get('maxLength', 64)} characters")
    return text


def query_values(endpoint: Endpoint, query: str) -> dict[str, Any]:
    """The endpoint's query parameters from ``query``, defaults filled in
    (None where a parameter has no default and is absent)."""
    try:
        given = parse_qs(query, keep_blank_values=True, strict_parsing=bool(query), errors="strict", max_num_fields=20)
    except ValueError:
        raise ApiRefusal(400, ApiErrorCode.BAD_PARAMETER, "the query string does not parse: name=value pairs joined by &") from None
    known = endpoint.query
    unknown = sorted(set(given) - set(known))
    if unknown:
        offered = ", ".join(known) or "none"
        raise ApiRefusal(400, ApiErrorCode.UNKNOWN_PARAMETER, f"no parameter {unknown[0]!r} here; this endpoint takes: {offered}")
    values: dict[str, Any] = {}
    for name, parameter in known.items():
        texts = given.get(name)
        if texts is not None and len(texts) > 1:
            raise ApiRefusal(400, ApiErrorCode.BAD_PARAMETER, f"{name}: given {len(texts)} times")
        values[name] = _value(parameter, texts[0]) if texts is not None else parameter.schema.get("default")
    return values


def body_of(answer: Answer, media_type: str) -> bytes:
    """The bytes of ``answer``: one JSON object, or an export's lines."""
    if isinstance(answer.body, BaseModel):
        return answer.body.model_dump_json().encode()
    assert media_type == NDJSON, "only an export answers with several objects"
    return b"".join(line.model_dump_json().encode() + b"\n" for line in answer.body)


class HttpApi:
    """Answers every request under ``API_PREFIX``; see the module docstring.
    ``address`` names a request's client address (the trusted proxy header
    considered), ``monotonic`` is the rate limits' clock."""

    def __init__(self, handlers: dict[str, Handler], rate: float, burst: int, monotonic: Callable[[], float]) -> None:
        assert set(handlers) == {endpoint.name for endpoint in ENDPOINTS}, "every endpoint has its handler"
        self._handlers = handlers
        self._monotonic = monotonic
        self._buckets = BucketTable(burst, rate, monotonic())

    @classmethod
    def of(cls, hub: Hub) -> HttpApi:
        """The API of ``hub``'s store and settings, on its clocks (read at
        each request: a test may replace the hub's clock while it runs)."""
        settings = hub.settings
        routes = ApiRoutes(settings, hub.store, lambda: hub.clock(), hub.keeper.today, hub.races.ledgers.race_facts, hub.lobby.leaderboards)
        return cls(routes.handlers(), settings.api_rate_per_second, settings.api_burst, hub.monotonic)

    async def answer(self, connection: ServerConnection, request: Request, address: str) -> Response:
        """The answer to ``request`` from ``address``; to a HEAD, the GET's
        status and headers (its Content-Length included) without the body,
        errors as well."""
        response = await self._answer(connection, request, address)
        if request.method == "HEAD":
            response.body = b""
        return response

    async def _answer(self, connection: ServerConnection, request: Request, address: str) -> Response:
        wait = self._buckets.take(address, self._monotonic())
        if wait is not None:
            response = error_response(
                connection, 429, ApiErrorCode.RATE_LIMITED, "too many requests to the API from this address; wait and ask again"
            )
            response.headers["Retry-After"] = str(max(1, math.ceil(wait)))
            return response
        if request.method not in API_METHODS:
            response = error_response(connection, 405, ApiErrorCode.METHOD_NOT_ALLOWED, f"{request.method} is not served: the API is read-only")
            response.headers["Allow"] = ", ".join(API_METHODS)
            return response
        parts = urlsplit(request.path)
        found = route(parts.path)
        if found is None:
            return error_response(connection, 404, ApiErrorCode.NOT_FOUND, "no such resource; docs/http-api.md lists them")
        if request.method == "OPTIONS":
            return self._preflight(connection)
        endpoint, values = found
        try:
            answer = await self._handlers[endpoint.name](values, query_values(endpoint, parts.query))
        except ApiRefusal as refusal:
            return error_response(connection, refusal.status, refusal.code, refusal.message)
        except StorageError:
            return error_response(connection, 503, ApiErrorCode.STORAGE_UNAVAILABLE, "the store did not answer; try again soon")
        return self._ok(connection, request, answer, endpoint.media_type)

    def _ok(self, connection: ServerConnection, request: Request, answer: Answer, media_type: str) -> Response:
        body = body_of(answer, media_type)
        etag = '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'
        content_type = f"{media_type}; charset=utf-8"
        if etag_matches(request.headers.get("If-None-Match"), etag):
            response = respond(connection, 304, b"", content_type)
            del response.headers["Content-Type"]
        else:
            response = respond(connection, 200, body, content_type)
        response.headers["ETag"] = etag
        response.headers["Cache-Control"] = answer.cache_control
        return cors(response)

    @staticmethod
    def _preflight(connection: ServerConnection) -> Response:
        response = cors(respond(connection, 204, b"", "text/plain"))
        del response.headers["Content-Type"], response.headers["Content-Length"]
        response.headers["Access-Control-Allow-Methods"] = ", ".join(API_METHODS)
        response.headers["Access-Control-Allow-Headers"] = "If-None-Match"
        response.headers["Access-Control-Max-Age"] = str(PREFLIGHT_MAX_AGE)
        return response
