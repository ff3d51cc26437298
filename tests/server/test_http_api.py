"""The HTTP API through a real socket: every answer matches the OpenAPI
document, caching (ETag, 304, Cache-Control by what can still change),
HEAD, CORS and its preflight, the methods refused, the per-address rate
limit, and the same export from a Redis store."""

from __future__ import annotations

import asyncio
import random
import string
from typing import Any, AsyncIterator

import pytest
from tests.races.arena_races import DAY, DEAL_1_DRAW_1_WIN, noon_clock, play_line, player
from tests.server.api_http import BOARD, REVEALED_MS, Reply, api, check_documented, day_server
from tests.server.arena_clock import FakeClock
from tests.server.arena_fixtures import server
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import RecordingClient, http_exchange
from tests.redis_server import RedisServer
from tests.storage_backends import ManualClock

from protocol import to_server as ts
from protocol.http_api import API_PREFIX
from server.storage.memory import MemoryStore
from server.storage.redis import RedisStore
from server.transport.app import ArenaServer

__all__ = ["day_server", "noon_clock", "server"]


async def _winner(day_server: ArenaServer, name: str, clock: FakeClock | None = None) -> RecordingClient:
    """A player who won the day's WordLink draw-1 deal, in a minute if
    ``clock`` is given (else in no time on the server's clock)."""
    client = await player(day_server.url, name)
    game_id = (await client.new_game(deal="daily", options={"draw": 1}))[0].game_id
    if clock is not None:
        clock.ms += 60_000
    await play_line(client, game_id, DEAL_1_DRAW_1_WIN)
    return client


async def _resigned(client: RecordingClient, **fields: Any) -> str:
    """A game resigned after one draw: one resigned before its first
    action is kept only ``unplayed_retention_seconds``."""
    game_id = (await client.new_game(**fields))[0].game_id
    await client.request(ts.Move, game_id=game_id, move="draw")
    await client.request(ts.Resign, game_id=game_id)
    return game_id


async def test_every_answer_matches_the_openapi_document(day_server: ArenaServer, clock: FakeClock) -> None:
    """Each endpoint's 200 (JSON, or each NDJSON line) and its refusals
    validate against the schemas the document gives them."""
    winner = await _winner(day_server, "ann")
    game_id = await _resigned(winner, deal=3)
    asked = [
        "/daily/today?game=klondike", f"{BOARD}/today?playing=true", f"{BOARD}/today?board=bots",
        f"/players/{winner.player_id}", f"/players/{winner.player_id}/games?limit=5", f"/games/{game_id}",
        "/daily/someday", f"{BOARD}/today?limit=0", "/leaderboards/klondike/draw=2/today", "/leaderboards/nogame/x/today",
        f"{BOARD}/today?sort=name", "/players/p_nobody", "/players/p_nobody/games", "/games/g_nothing", "/daily/2999-01-01",
    ]
    clock.ms = REVEALED_MS
    asked += [f"/daily/{DAY}", f"{BOARD}/{DAY}?offset=0&limit=1", f"/players/{winner.player_id}/games"]
    statuses = set()
    for path in asked:
        reply = await api(day_server.port, path)
        check_documented(path, reply)
        statuses.add(reply.status)
    assert statuses == {200, 400, 404}
    revealed = (await api(day_server.port, f"/players/{winner.player_id}/games")).lines()
    assert [game["game_id"] for game in revealed][0] == game_id and len(revealed) == 2
    await winner.close()


async def test_caching_headers_etags_and_head(day_server: ArenaServer, clock: FakeClock) -> None:
    port = day_server.port
    first = await _winner(day_server, "ann")
    today = await api(port, f"{BOARD}/today")
    assert today.status == 200 and today.headers["cache-control"] == "public, max-age=10"
    etag = today.headers["etag"]
    unchanged = await api(port, f"{BOARD}/today", f"If-None-Match: {etag}")
    assert (unchanged.status, unchanged.body, unchanged.headers["etag"]) == (304, b"", etag)
    assert "content-type" not in unchanged.headers
    head = await api(port, f"{BOARD}/today", method="HEAD")
    assert head.status == 200 and head.body == b"" and head.headers["content-length"] == str(len(today.body))
    assert head.headers["etag"] == etag
    missing, head_missing = await api(port, "/games/g_nothing"), await api(port, "/games/g_nothing", method="HEAD")
    assert (head_missing.status, head_missing.body) == (404, b"")
    assert head_missing.headers["content-length"] == str(len(missing.body)) and missing.error_code == "game_not_found"
    second = await _winner(day_server, "bob", clock)
    changed = await api(port, f"{BOARD}/today", f"If-None-Match: {etag}")
    assert changed.status == 200 and changed.headers["etag"] != etag
    assert [entry["name"] for entry in changed.json()["entries"]] == ["ann", "bob"]
    assert (await api(port, f"/players/{first.player_id}")).headers["cache-control"] == "public, max-age=60"
    assert (await api(port, f"/daily/{DAY}?game=klondike")).headers["cache-control"] == "public, max-age=10"
    clock.ms = REVEALED_MS
    closed = await api(port, f"{BOARD}/{DAY}")
    assert closed.json()["closed"] and closed.headers["cache-control"] == "public, max-age=3600"
    assert (await api(port, f"/daily/{DAY}?game=klondike")).headers["cache-control"] == "public, max-age=86400"
    page = (await api(port, f"{BOARD}/{DAY}?limit=1")).json()
    assert (page["total"], page["next_offset"], [e["name"] for e in page["entries"]]) == (2, 1, ["ann"])
    last = (await api(port, f"{BOARD}/{DAY}?limit=1&offset=1")).json()
    assert (last["next_offset"], [e["name"] for e in last["entries"]]) == (None, ["bob"])
    for client in (first, second):
        await client.close()


async def test_any_origin_may_read_and_only_get_head_and_options_are_served(server: ArenaServer) -> None:
    port = server.port
    preflight = await api(port, "/daily/today", "Origin: https://example.org", "Access-Control-Request-Method: GET",
                          method="OPTIONS")
    assert preflight.status == 204 and preflight.body == b""
    assert preflight.headers["access-control-allow-origin"] == "*"
    assert preflight.headers["access-control-allow-methods"] == "GET, HEAD, OPTIONS"
    assert int(preflight.headers["access-control-max-age"]) > 0
    missing = await api(port, "/nothing/here", "Origin: https://example.org")
    assert missing.status == 404 and missing.error_code == "not_found"
    assert missing.headers["access-control-allow-origin"] == "*", "a page can read why"
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        for answer in (await http_exchange(port, f"{method} {API_PREFIX}/daily/today HTTP/1.1"), await _with_body(port, method)):
            reply = Reply(*answer)
            assert reply.status == 405 and reply.error_code == "method_not_allowed", method
            assert reply.headers["allow"] == "GET, HEAD, OPTIONS"


async def _with_body(port: int, method: str) -> tuple[int, dict[str, str], bytes]:
    """A request carrying a small JSON body, which is answered as if it had none."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    payload = b'{"a":1}'
    head = f"{method} {API_PREFIX}/daily/today HTTP/1.1\r\nHost: arena\r\nContent-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
    writer.write(head.encode() + payload)
    data = await reader.read()
    writer.close()
    await writer.wait_closed()
    head_text, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head_text.decode().split("\r\n")
    fields = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), fields, body


async def test_random_paths_and_queries_get_a_stable_code_never_a_500(server: ArenaServer) -> None:
    """Seeded random segments and query strings under every endpoint's
    shape: each answer is a 200 or an error body with a stable code.
    (No ``today``: today's deals would set this server proving them.)"""
    chooser = random.Random(33)
    alphabet = string.ascii_letters + string.digits + "-_.~%/?&=+,;:@!$'()*[]"
    pieces = ["2020-01-01", "2026-03-14", "klondike", "draw=1,scoring=standard", "%ff", "%2F", "%00", "..", "-1", "0", "99999999999"]

    def word() -> str:
        return chooser.choice(pieces) if chooser.random() < 0.5 else "".join(chooser.choices(alphabet, k=chooser.randrange(1, 12)))

    shapes = ["/daily/{}", "/leaderboards/{}/{}/{}", "/players/{}", "/players/{}/games", "/games/{}", "/{}"]
    for _ in range(120):
        shape = chooser.choice(shapes)
        path = shape.format(*(word() for _ in range(shape.count("{}"))))
        if chooser.random() < 0.6:
            names = ["limit", "offset", "board", "playing", "game", word()]
            path += "?" + "&".join(f"{chooser.choice(names)}={word()}" for _ in range(chooser.randrange(1, 4)))
        reply = await api(server.port, path)
        assert reply.status in (200, 400, 404), (path, reply)
        if reply.status != 200:
            assert reply.error_code, path


@pytest.fixture
async def limited() -> AsyncIterator[tuple[ArenaServer, ManualClock]]:
    """A server allowing 3 API requests at once and one every 2 s per
    address, the address read from X-Forwarded-For, on a manual clock."""
    clock = ManualClock()
    settings = make_settings(api_burst=3, api_rate_per_second=0.5, forwarded_for_header="X-Forwarded-For")
    async with ArenaServer(settings, store=MemoryStore(), monotonic=clock) as running:
        yield running, clock


async def test_each_address_has_its_own_rate_limit(limited: tuple[ArenaServer, ManualClock]) -> None:
    server, clock = limited
    path = "/daily/2020-01-01"
    first = "X-Forwarded-For: 192.0.2.7"
    assert [(await api(server.port, path, first)).status for _ in range(3)] == [200, 200, 200]
    refused = await api(server.port, path, first)
    assert refused.status == 429 and refused.error_code == "rate_limited"
    assert refused.headers["retry-after"] == "2" and refused.headers["access-control-allow-origin"] == "*"
    check_documented(path, refused)
    assert (await api(server.port, path, "X-Forwarded-For: 192.0.2.8")).status == 200, "another address is not limited"
    assert (await api(server.port, path, first, method="OPTIONS")).status == 429, "a preflight costs a token too"
    clock.now += 2
    assert (await api(server.port, path, first)).status == 200
    assert (await api(server.port, path, first)).status == 429


async def test_a_redis_store_serves_profiles_and_exports(redis_server: Any, redis_namespace: str) -> None:
    """The store calls of an export (a player's sessions, a log) through
    the Redis back end's own code."""
    store = RedisStore(redis_server.url, namespace=redis_namespace)
    try:
        async with ArenaServer(make_settings(), store=store) as running:
            client = await player(running.url, "ann")
            first, second = await _resigned(client, deal=3), await _resigned(client, deal=5)
            live = (await client.new_game(deal=6))[0].game_id
            exported = (await api(running.port, f"/players/{client.player_id}/games")).lines()
            assert [game["game_id"] for game in exported] == [second, first] and live not in str(exported)
            assert [game["deal"] for game in exported] == [5, 3]
            profile = (await api(running.port, f"/players/{client.player_id}")).json()
            assert profile["name"] == "ann" and profile["records"][0]["games"] == 2
            await client.close()
    finally:
        await store.close()


async def test_a_store_that_does_not_answer_is_a_503_with_its_code(own_redis_server: RedisServer) -> None:
    store = RedisStore(own_redis_server.url)
    try:
        async with ArenaServer(make_settings(redis_url=own_redis_server.url), store=store) as running:
            client = await player(running.url, "ann")
            assert (await api(running.port, f"/players/{client.player_id}")).status == 200
            own_redis_server.stop(kill=True)
            for path in (f"/players/{client.player_id}", f"/players/{client.player_id}/games", f"{BOARD}/2020-01-01"):
                reply = await api(running.port, path)
                assert reply.status == 503 and reply.error_code == "storage_unavailable", (path, reply)
                check_documented(path, reply)
            await client.close()
    finally:
        await store.close()
