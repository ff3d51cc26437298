"""Plain HTTP on the WebSocket port: health, metrics, the web client's files."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import AsyncIterator

import pytest
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WireClient, http_exchange
from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.parser import text_string_to_metric_families
from tests.redis_server import RedisServer
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from protocol import to_server as ts
from server.transport.app import ArenaServer
from server.runtime.version import arena_version
from server.storage.memory import MemoryStore
from server.storage.redis import RedisStore

STALLED_STORE_SOCKET_TIMEOUT = 600.0
HEALTH_CHECK_PATIENCE = 60.0
"""Far less than the store's socket timeout, so an answer in time is the
health check's own timeout at work; far more than it needs (0.2 s), so
a loaded machine cannot run out of it (4.5 s beside a 5 s socket timeout
left too little room)."""


async def http_get(port: int, path: str) -> tuple[int, dict[str, str], bytes]:
    """One raw HTTP/1.1 GET, byte for byte what is sent (no client-side path cleaning)."""
    status, headers, body = await http_exchange(port, f"GET {path} HTTP/1.1", unique=True)
    assert int(headers["content-length"]) == len(body)
    return status, headers, body


@pytest.fixture
async def site(tmp_path: Path) -> AsyncIterator[ArenaServer]:
    web = tmp_path / "web"
    (web / "js").mkdir(parents=True)
    (web / "index.html").write_text("<h1>Arena</h1>", encoding="utf-8")
    (web / "js" / "app.js").write_text("console.log(1)", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("the daily secret", encoding="utf-8")
    (web / "escape").symlink_to(tmp_path / "secret.txt")
    async with ArenaServer(make_settings(static_dir=web), store=MemoryStore()) as running:
        yield running


async def test_healthz_says_ok(site: ArenaServer) -> None:
    status, _, body = await http_get(site.port, "/healthz")
    assert (status, body) == (200, b"ok\n")


async def test_metrics_parse_as_prometheus_text_with_histograms_counters_and_build_info(site: ArenaServer) -> None:
    client = await WireClient.open(site.url)
    await client.hello()
    started, snapshot = await client.new_game(deal=3)
    assert snapshot.legal, "the owner's snapshot lists the legal moves"
    moved = await client.request(ts.Move, game_id=started.game_id, move=snapshot.legal[0])
    undone = await client.request(ts.Undo, game_id=started.game_id)
    assert moved.type != "error" and undone.type != "error"
    await client.request(ts.Undo, game_id="g_missing")
    status, headers, body = await http_get(site.port, "/metrics")
    assert status == 200 and headers["content-type"] == CONTENT_TYPE_LATEST
    families = {family.name: family for family in text_string_to_metric_families(body.decode())}
    assert not [line for line in body.decode().splitlines() if "_created" in line], "no *_created series"
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in families.values()
        for sample in family.samples
    }
    assert families["arena_actions"].type == "counter" and samples["arena_actions_total", ()] == 2
    assert samples["arena_errors_total", (("code", "game_not_found"),)] == 1
    assert samples["arena_errors_total", (("code", "rate_limited"),)] == 0, "every code is there before its first use"
    assert samples["arena_send_queue_overflows_total", ()] == 0
    assert samples["arena_race_events_total", (("event", "created"),)] == 0
    for name in ("arena_action_seconds", "arena_broadcast_seconds", "arena_broadcast_lag_seconds"):
        assert families[name].type == "histogram", name
        buckets = [sample for sample in families[name].samples if sample.name == f"{name}_bucket"]
        counts = [sample.value for sample in buckets]
        assert counts == sorted(counts) and buckets[-1].labels["le"] == "+Inf", name
        assert counts[-1] == samples[f"{name}_count", ()] == 2, name
        assert 0 <= samples[f"{name}_sum", ()] < 60, name
    assert samples["arena_action_seconds_sum", ()] > 0
    for name in ("arena_finish_search_seconds", "arena_analysis_seconds"):
        assert families[name].type == "histogram" and samples[f"{name}_count", ()] == 0, name
    gauges = {"arena_connections": 1, "arena_live_games": 1, "arena_watchers": 1, "arena_send_queue_frames": 0}
    for name, value in gauges.items():
        assert families[name].type == "gauge" and samples[name, ()] == value, name
    assert samples["arena_races", (("phase", "lobby"),)] == 0
    assert samples["arena_build_info", (("version", arena_version()),)] == 1
    assert samples["process_resident_memory_bytes", ()] > 0 and samples["process_cpu_seconds_total", ()] > 0
    await client.close()


async def test_the_web_client_is_served_from_its_directory(site: ArenaServer) -> None:
    status, headers, body = await http_get(site.port, "/")
    assert (status, body) == (200, b"<h1>Arena</h1>") and headers["content-type"] == "text/html; charset=utf-8"
    status, headers, body = await http_get(site.port, "/js/app.js")
    assert status == 200 and body == b"console.log(1)" and "javascript" in headers["content-type"]


@pytest.mark.parametrize(
    "path",
    ["/../secret.txt", "/%2e%2e/secret.txt", "/js/..%2f..%2fsecret.txt", "/escape", "/nothing.html", "/%00", "/" + "a" * 300],
)
async def test_no_path_leads_outside_the_web_directory(site: ArenaServer, path: str) -> None:
    status, _, body = await http_get(site.port, path)
    assert status == 404 and b"secret" not in body


async def test_websockets_are_accepted_only_at_the_endpoint(site: ArenaServer) -> None:
    with pytest.raises(InvalidStatus) as refused:
        await connect(f"ws://127.0.0.1:{site.port}/elsewhere")
    assert refused.value.response.status_code == 404


async def test_a_client_offering_no_subprotocol_speaks_json(site: ArenaServer) -> None:
    client = await WireClient.open(site.url, None)
    assert client.connection.subprotocol is None
    assert (await client.request(ts.Ping)).type == "pong"
    assert isinstance(client.raw[-1], str)
    await client.close()


async def test_healthz_answers_503_promptly_while_redis_is_stalled(own_redis_server: RedisServer) -> None:
    """A stalled Redis (SIGSTOP) answers nothing and the store's socket
    timeout is 10 minutes; /healthz gives up after its own
    health_timeout_seconds."""
    store = RedisStore(own_redis_server.url, socket_timeout=STALLED_STORE_SOCKET_TIMEOUT)
    settings = make_settings(redis_url=own_redis_server.url, health_timeout_seconds=0.2)
    try:
        async with ArenaServer(settings, store=store) as running:
            assert (await http_get(running.port, "/healthz"))[0] == 200
            os.kill(own_redis_server.pid, signal.SIGSTOP)
            try:
                async with asyncio.timeout(HEALTH_CHECK_PATIENCE):
                    status, _, body = await http_get(running.port, "/healthz")
            finally:
                os.kill(own_redis_server.pid, signal.SIGCONT)
            assert (status, body) == (503, b"storage unavailable\n")
            assert (await http_get(running.port, "/healthz"))[0] == 200
    finally:
        await store.close()
