"""Requests to the HTTP API of a real server (``server.transport.http_api``),
and the check that an answer is what the OpenAPI document says it is.

A plain module shared by the API's tests.  Each request is a raw HTTP/1.1
exchange on its own connection (``arena_wire.http_exchange``), so a test
sends exactly the path it means, encoded tricks included."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, AsyncIterator

import jsonschema
import pytest
from tests.races.arena_races import DAY, KLONDIKE_DRAW_1, PUBLIC_BOARD_RULES_OFF, pin_daily_deal, race_settings
from tests.server.arena_clock import FakeClock
from tests.server.arena_memory import thread_workers
from tests.server.arena_wire import http_exchange

from protocol.http_api import API_PREFIX, NDJSON, ApiErrorCode
from server.commands.schema import default_openapi
from server.deals.daily import day_start_ms
from server.storage.memory import MemoryStore
from server.transport.app import ArenaServer
from server.transport.http_api import route

DOCUMENT = default_openapi()

GRACE_SECONDS = 3600
DRAW_3 = "draw=3,scoring=standard"
NONCE = "a" * 32
"""The pinned records' nonce (``pin_daily_deal``): secret until the reveal."""
REVEALED_MS = day_start_ms(DAY + timedelta(days=1)) + GRACE_SECONDS * 1000
BOARD = f"/leaderboards/klondike/{KLONDIKE_DRAW_1}"


@pytest.fixture
async def day_server(clock: FakeClock) -> AsyncIterator[ArenaServer]:
    """A server at noon of ``DAY`` whose WordLink dailies of that day and
    the next are pinned (so nothing asked of it sets it proving a deal);
    the rules of who ranks publicly are off (every player here is new, on loopback)."""
    settings = race_settings(daily_grace_seconds=GRACE_SECONDS, **PUBLIC_BOARD_RULES_OFF)
    store = MemoryStore(clock)
    for day in (DAY, DAY + timedelta(days=1)):
        for variant in (KLONDIKE_DRAW_1, DRAW_3):
            await pin_daily_deal(store, day, variant=variant)
    async with ArenaServer(settings, store=store, clock=clock, workers=thread_workers(settings)) as running:
        yield running


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def lines(self) -> list[Any]:
        """An NDJSON body's objects, each line ending with a newline."""
        assert not self.body or self.body.endswith(b"\n"), self.body[-40:]
        return [json.loads(line) for line in self.body.splitlines()]

    @property
    def error_code(self) -> str:
        body = self.json()
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
        assert body["error"]["code"] in set(ApiErrorCode), body
        return str(body["error"]["code"])


async def api(port: int, path: str, *headers: str, method: str = "GET") -> Reply:
    """One request to ``API_PREFIX + path``; a body's length is always its Content-Length."""
    status, fields, body = await http_exchange(port, f"{method} {API_PREFIX}{path} HTTP/1.1", *headers, unique=True)
    if method != "HEAD" and "content-length" in fields:
        assert int(fields["content-length"]) == len(body), (path, fields)
    return Reply(status, fields, body)


def _schema_of(path: str, status: int, media_type: str) -> dict[str, Any]:
    found = route(path.partition("?")[0])
    assert found is not None, f"{path} is no endpoint of the document"
    endpoint = found[0]
    operation = DOCUMENT["paths"][API_PREFIX + endpoint.path]["get"]
    assert str(status) in operation["responses"], f"the document names no {status} for {endpoint.path}"
    content = operation["responses"][str(status)]["content"]
    assert media_type in content, f"the document names no {media_type} answer {status} for {endpoint.path}"
    return {"$ref": content[media_type]["schema"]["$ref"], "components": DOCUMENT["components"]}


def check_documented(path: str, reply: Reply) -> None:
    """``reply`` (to ``API_PREFIX + path``) validates against the schema the
    OpenAPI document gives that endpoint's status and media type: each
    line of an NDJSON export, or the JSON body."""
    media_type = reply.headers["content-type"].partition(";")[0]
    schema = _schema_of(API_PREFIX + path, reply.status, media_type)
    validator = jsonschema.Draft202012Validator(schema)
    documents = reply.lines() if media_type == NDJSON else [reply.json()]
    for document in documents:
        validator.validate(document)
