"""Retention: what stops mattering expires, what must stay stays.

Finished games expire after their ``keep_seconds``, playing games never;
an identity (token, name, records, Vegas earnings) expires once nobody
used it for ``Retention.identity_seconds``, and every use renews it; a
record outlives the games it counts.  On both back ends (the memory store
by its clock, Redis by its own expiry, so the Redis half waits about a
second), then what only one of them has: the memory store's sweep, the
expiries on the Redis keys themselves, and the sweeper that settles game
ends and measures the store for ``/metrics``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import http_exchange
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families
from redis.asyncio import Redis
from tests.redis_server import RedisServer
from tests.storage.lost_cancellation import LosesCancellation, closes_in_time
from tests.storage_backends import BACKENDS, Backend, ManualClock, open_backend

from server.transport.app import ArenaServer
from server.games.retention import Sweeper
from server.model.records import Action, Finish, GameResult, PlayerRecord, ResultEntry, SessionHeader
from server.runtime.scheduler import LoopScheduler
from server.storage import MemoryStore, Retention, Store
from server.storage.redis import RedisStore

SHORT = Retention(identity_seconds=1)
"""Identities gone after a second: long enough for a test's few calls, short enough to wait for."""
RESULT = GameResult(won=True, moves=40, time_ms=90_000)


@pytest.fixture(params=BACKENDS)
def backend_name(request: pytest.FixtureRequest) -> str:
    """Every test taking ``backend`` or ``kept`` runs once per back end."""
    return str(request.param)


@pytest.fixture
async def backend(backend_name: str, request: pytest.FixtureRequest, redis_namespace: str) -> AsyncIterator[Backend]:
    """A store keeping identities for a second."""
    chosen = open_backend(backend_name, request, redis_namespace, SHORT)
    yield chosen
    await chosen.close()


@pytest.fixture
async def kept(backend_name: str, request: pytest.FixtureRequest, redis_namespace: str) -> AsyncIterator[Backend]:
    """A store keeping identities as long as the default retention."""
    chosen = open_backend(backend_name, request, redis_namespace, Retention())
    yield chosen
    await chosen.close()


def header(game_id: str, owner: str = "p1", **changes: object) -> SessionHeader:
    base = SessionHeader(
        game_id=game_id, game="klondike", deal=3, options={"draw": 1}, owner=owner, created_ms=1_000
    )
    for name, value in changes.items():
        setattr(base, name, value)
    return base


async def finish_game(store: Store, game_id: str, keep_seconds: int, owner: str = "p1") -> None:
    """A game played, resigned and settled, its record going to ``owner``."""
    await store.create_session(header(game_id, owner))
    await store.append(game_id, 0, Action("move", "draw", 2_000))
    await store.append(game_id, 1, Action("resign", "", 3_000), ends=True)
    final = header(game_id, owner, status="resigned", started_ms=2_000, finished_ms=3_000)
    entry = ResultEntry(owner, "klondike/draw-1", RESULT, vegas=-52)
    await store.settle_finish(Finish(final, keep_seconds, entry))


# ---------------------------------------------------------------- both back ends


async def test_a_finished_game_replays_within_retention_then_goes_and_its_record_stays(kept: Backend) -> None:
    store = kept.store
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 0))
    await finish_game(store, "g_done", keep_seconds=1)
    loaded = await store.load_session("g_done")
    assert loaded is not None, "a finished game replays within its retention"
    assert [action.kind for action in loaded[1]] == ["move", "resign"] and loaded[0].status == "resigned"
    await kept.advance(1.5)
    assert await store.load_session("g_done") is None
    assert await store.sessions_of("p1") == []
    assert (await store.records("p1"))["klondike/draw-1"].games == 1, "the record outlives the game"
    assert await store.vegas("p1") == -52
    assert await store.player_by_token_hash("hash-1") is not None


async def test_a_playing_game_outlasts_every_retention(backend: Backend) -> None:
    store = backend.store
    await store.create_session(header("g_live"))
    await store.append("g_live", 0, Action("move", "draw", 2_000))
    await backend.advance(1.5)
    loaded = await store.load_session("g_live")
    assert loaded is not None and len(loaded[1]) == 1
    assert [live.game_id for live in await store.live_sessions()] == ["g_live"]


async def test_an_unused_identity_goes_with_its_token_record_and_earnings(backend: Backend) -> None:
    store = backend.store
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 0))
    await store.add_result("p1", "klondike/draw-1", RESULT)
    await store.add_vegas("p1", 52)
    assert await store.get_player("p1") is not None
    await backend.advance(1.5)
    assert await store.player_by_token_hash("hash-1") is None
    assert await store.get_player("p1") is None
    assert await store.records("p1") == {}
    assert await store.vegas("p1") == 0


async def test_a_game_settled_after_its_owner_expired_starts_a_new_record(backend: Backend) -> None:
    store = backend.store
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 0))
    await store.add_result("p1", "klondike/draw-1", RESULT)
    await backend.advance(1.5)
    await finish_game(store, "g_late", keep_seconds=600)
    assert (await store.records("p1"))["klondike/draw-1"].games == 1


async def test_a_document_index_lives_as_long_as_its_longest_lived_document(backend: Backend) -> None:
    store = backend.store
    await store.put_document("race", "r_short", {"race_id": "r_short"}, keep_seconds=1)
    await store.index_document("race", "player/p1", "r_short", 1.0)
    await backend.advance(1.5)
    assert await store.list_documents("race", "player/p1") == []
    await store.put_document("race", "r_kept", {"race_id": "r_kept"})
    await store.index_document("race", "player/p1", "r_kept", 2.0)
    await backend.advance(1.5)
    assert await store.list_documents("race", "player/p1") == [{"race_id": "r_kept"}]


# ---------------------------------------------------------------- memory store


async def test_every_use_of_a_token_renews_the_identity_by_the_clock() -> None:
    clock = ManualClock()
    store = MemoryStore(clock=clock.ms, retention=Retention(identity_seconds=100))
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 0))
    clock.now += 60
    assert await store.player_by_token_hash("hash-1") is not None
    clock.now += 60
    assert await store.player_by_token_hash("hash-1") is not None, "renewed 60 s ago, 120 s after creation"
    clock.now += 60
    await store.add_vegas("p1", 5)
    clock.now += 99
    assert await store.get_player("p1") is not None, "a write renews it too"
    clock.now += 1
    assert await store.get_player("p1") is None


async def test_the_sweep_drops_what_is_due_at_the_clocks_time() -> None:
    clock = ManualClock()
    store = MemoryStore(clock=clock.ms, retention=Retention(identity_seconds=100))
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 0))
    await finish_game(store, "g_done", keep_seconds=10)
    await store.create_session(header("g_live", owner="p2"))
    await store.submit("klondike/draw-1/2024-05-01", "p1", 90_000, 40, 0, keep_seconds=10)
    await store.put_document("race", "r1", {"race_id": "r1"}, keep_seconds=10)
    await store.index_document("race", "player/p1", "r1", 1.0)
    await store.setting("ranked/p1", "g_done", keep_seconds=10)
    before = await store.size()
    assert (before.sessions, before.identities, before.live_games) == (2, 1, 1)
    clock.now += 50
    assert await store.size() == before, "nothing expired is dropped before it is read or swept"
    assert await store.expire_due() == 5, "the finished game, board, document, index and setting"
    assert ((await store.size()).sessions, (await store.size()).identities) == (1, 1)
    clock.now += 50
    assert (await store.size()).identities == 1
    assert await store.expire_due() == 1, "the identity, 100 s after its last use"
    after = await store.size()
    assert (after.sessions, after.identities, after.live_games) == (1, 0, 1)
    assert after.keys == 2, "the live game's header and log are all that is left"
    assert await store.expire_due() == 0


# ---------------------------------------------------------------- Redis keys


@pytest.fixture
async def raw(redis_server: RedisServer) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_server.url)
    yield client
    await client.aclose()


async def ttls(raw: Redis, namespace: str) -> dict[str, int]:
    return {key.decode(): await raw.ttl(key) async for key in raw.scan_iter(f"{namespace}:*")}


def of_identity(found: dict[str, int], namespace: str) -> dict[str, int]:
    return {key: ttl for key, ttl in found.items() if key.startswith((f"{namespace}:player:", f"{namespace}:token:"))}


@pytest.fixture(params=[5000, None], ids=["kept 5000 s", "kept for ever"])
def identity_seconds(request: pytest.FixtureRequest) -> int | None:
    return request.param


@pytest.fixture
async def played(identity_seconds: int | None, redis_server: RedisServer, redis_namespace: str) -> AsyncIterator[RedisStore]:
    """A Redis store keeping identities 5000 s (or for ever), after a player's finished game."""
    store = RedisStore(redis_server.url, namespace=redis_namespace, retention=Retention(identity_seconds))
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 0))
    await finish_game(store, "g_done", keep_seconds=600)
    yield store
    await store.close()


@pytest.mark.redis
async def test_every_redis_key_gets_its_lifetime_in_the_write_that_makes_it(
    played: RedisStore, raw: Redis, identity_seconds: int | None
) -> None:
    store = played
    await store.create_session(header("g_live"))
    await store.append("g_live", 0, Action("move", "draw", 2_000))
    await store.add_result("p1", "wordlink/draw-3", RESULT)
    await store.put_document("race", "r1", {"race_id": "r1"}, keep_seconds=900)
    await store.index_document("race", "player/p1", "r1", 1.0)
    await store.setting("epoch", "e")
    ns = store.namespace
    found = await ttls(raw, ns)
    permanent = {f"{ns}:session:{{g_live}}", f"{ns}:session:{{g_live}}:log", f"{ns}:sessions:live", f"{ns}:setting:epoch"}
    identity = of_identity(found, ns)
    assert len(identity) == 8, "player, token, games, records, two records, Vegas, settled marks"
    if identity_seconds is None:
        permanent |= set(identity)
    else:
        assert all(4990 <= ttl <= 5000 for ttl in identity.values()), f"the identity's lifetime, not a game's: {identity}"
    assert {key for key, ttl in found.items() if ttl == -1} == permanent, "live games and shared facts only"
    for key in (f"{ns}:session:{{g_done}}", f"{ns}:session:{{g_done}}:log"):
        assert 590 <= found[key] <= 600, key
    assert 890 <= found[f"{ns}:index:race:player/p1"] <= 900


@pytest.mark.redis
async def test_using_a_token_renews_every_key_of_the_identity(
    played: RedisStore, raw: Redis, identity_seconds: int | None
) -> None:
    identity = of_identity(await ttls(raw, played.namespace), played.namespace)
    for key in identity:
        await raw.expire(key, 10)
    assert await played.player_by_token_hash("hash-1") == PlayerRecord("p1", "Ada", "hash-1", 0)
    renewed = of_identity(await ttls(raw, played.namespace), played.namespace)
    assert len(renewed) == 9, "the 7, and the first device written at the token's first use (devices, device_tokens)"
    if identity_seconds is None:
        assert set(renewed.values()) == {-1}, "kept for ever: the expiry is taken off"
    else:
        assert all(4990 <= ttl <= 5000 for ttl in renewed.values()), renewed


# ---------------------------------------------------------------- the sweeper


async def wait_for(condition: Callable[[], Awaitable[bool]], seconds: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not await condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.02)


@pytest.mark.redis
async def test_the_periodic_sweep_settles_an_end_left_open_without_a_restart(
    redis_server: RedisServer, redis_namespace: str
) -> None:
    store = RedisStore(redis_server.url, namespace=redis_namespace)
    sweeper = Sweeper(store, make_settings(retention_sweep_seconds=0.05), CollectorRegistry(), LoopScheduler())
    try:
        await store.create_session(header("g_open"))
        await store.append("g_open", 0, Action("resign", "", 3_000), ends=True)
        sweeper.start()

        async def recorded() -> bool:
            return [record.games for record in (await store.records("p1")).values()] == [1]

        await wait_for(recorded)
        assert await store.open_finishes() == []
        loaded = await store.load_session("g_open")
        assert loaded is not None and loaded[0].status == "resigned"
    finally:
        await sweeper.close()
        await store.close()


def samples(text: str) -> dict[str, float]:
    return {
        sample.name: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name.startswith(("arena_store_", "arena_sweep_")) and not sample.name.endswith("_created")
    }


async def scrape(server: ArenaServer) -> dict[str, float]:
    status, _, body = await http_exchange(server.port, "GET /metrics HTTP/1.1")
    assert status == 200
    return samples(body.decode())


async def test_metrics_show_the_memory_stores_size() -> None:
    store = MemoryStore()
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 0))
    await finish_game(store, "g_done", keep_seconds=600)
    await store.create_session(header("g_live"))
    await store.create_session(header("g_open"))
    await store.append("g_open", 0, Action("resign", "", 3_000), ends=True)
    async with ArenaServer(make_settings(), store=store) as server:
        figures = await scrape(server)
    assert figures == {
        "arena_store_keys": figures["arena_store_keys"],
        "arena_store_live_games": 1,
        "arena_store_open_finishes": 0,
        "arena_store_sessions": 3,
        "arena_store_identities": 1,
        "arena_sweep_settled_total": 1,
        "arena_sweep_expired_total": 0,
    }, "the start-up sweep settled g_open, then measured"
    assert figures["arena_store_keys"] >= 8


async def test_a_store_too_slow_to_measure_drops_its_size_until_a_sweep_measures_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The size is awaited for ``SIZE_TIMEOUT_SECONDS`` at most: a store
    that hangs there is no size, as one that fails is."""
    store = MemoryStore()
    sweeper = Sweeper(store, make_settings(), CollectorRegistry(), LoopScheduler())
    await sweeper.sweep()
    assert sweeper.size is not None
    measure = store.size

    async def hanging() -> None:
        await asyncio.Event().wait()

    monkeypatch.setattr("server.games.retention.SIZE_TIMEOUT_SECONDS", 0.05)
    monkeypatch.setattr(store, "size", hanging)
    await sweeper.sweep()
    assert sweeper.size is None
    monkeypatch.setattr(store, "size", measure)
    await sweeper.sweep()
    assert sweeper.size is not None


@pytest.mark.redis
async def test_metrics_show_redis_size_and_drop_it_while_redis_is_away(own_redis_server: RedisServer) -> None:
    store = RedisStore(own_redis_server.url, socket_timeout=0.5, connect_timeout=0.5)
    try:
        await store.create_session(header("g_live"))
        async with ArenaServer(make_settings(), store=store) as server:
            figures = await scrape(server)
            assert figures["arena_store_keys"] >= 3 and figures["arena_store_live_games"] == 1
            assert figures["arena_store_memory_bytes"] > 100_000, "Redis's used_memory"
            assert "arena_store_sessions" not in figures, "Redis would need a scan to count them"
            own_redis_server.stop()
            await server.sweeper.sweep()
            assert set(await scrape(server)) == {"arena_sweep_settled_total", "arena_sweep_expired_total"}
            own_redis_server.start()
            await server.sweeper.sweep()
            assert "arena_store_keys" in await scrape(server), "back with the next sweep"
    finally:
        await store.close()


async def test_a_sweep_that_raises_a_bug_is_logged_once_and_the_sweeps_go_on(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Not a store outage (``sweep`` handles those) but an error no store
    should raise: the sweeper used to die of it without a word."""
    store = MemoryStore()
    sweeper = Sweeper(store, make_settings(retention_sweep_seconds=0.01), CollectorRegistry(), LoopScheduler())
    expire = store.expire_due
    failures = 3

    async def failing() -> int:
        nonlocal failures
        if failures:
            failures -= 1
            raise ValueError("a bug in the sweep")
        return await expire()

    monkeypatch.setattr(store, "expire_due", failing)
    sweeper.start()
    try:

        async def measured() -> bool:
            return sweeper.size is not None

        await wait_for(measured)
    finally:
        await sweeper.close()
    logged = [record for record in caplog.records if record.name == "arena.retention" and record.levelname == "ERROR"]
    assert len(logged) == 1, "the same failure three sweeps running is logged once"
    assert logged[0].exc_info is not None and "a bug in the sweep" in str(logged[0].exc_info[1])


async def test_closing_the_sweeper_ends_it_even_when_a_store_call_loses_the_cancellation() -> None:
    store = LosesCancellation("expire_due")
    sweeper = Sweeper(store, make_settings(retention_sweep_seconds=0.01), CollectorRegistry(), LoopScheduler())
    sweeper.start()
    await store.waiting("expire_due")
    closing = asyncio.create_task(sweeper.close())
    assert await closes_in_time(closing, {"retention sweeper"}, store), "close() waited on a sweeper that went on sweeping"
