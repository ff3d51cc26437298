"""What only the Redis back end has: outages, key layout, expiry on the
keys themselves, several deployments on one server."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import AsyncIterator, Awaitable, Callable

import pytest
from redis.asyncio import Redis
from redis.typing import EncodableT, FieldT
from tests.redis_server import RedisServer

from server.model.records import Action, GameResult, PlayerRecord, Record, SessionHeader
from server.storage import LogConflict, MemoryStore, StorageUnavailable, Store, Subscription, open_store
from server.storage.redis import RedisStore
from server.storage.redis_pubsub import FIRST_BACKOFF_SECONDS

pytestmark = pytest.mark.redis

DOCS = Path(__file__).parents[2] / "docs" / "storage.md"


def header(game_id: str, owner: str = "p1") -> SessionHeader:
    return SessionHeader(game_id=game_id, game="wordlink", deal=3, options={}, owner=owner, created_ms=1_000)


@pytest.fixture
async def raw(redis_server: RedisServer) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_server.url)
    yield client
    await client.aclose()


@pytest.fixture
async def store(redis_server: RedisServer, redis_namespace: str) -> AsyncIterator[RedisStore]:
    chosen = RedisStore(redis_server.url, namespace=redis_namespace)
    yield chosen
    await chosen.close()


async def exercise_every_method(store: Store) -> None:
    """Touch every kind of key the store writes."""
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 0))
    await store.create_session(header("g1"))
    await store.append("g1", 0, Action("move", "7H>F1", 10))
    await store.create_session(header("g2"))
    await store.finish_session(header("g2"), keep_seconds=600)
    await store.add_result("p1", "wordlink/draw-3", GameResult(True, 90, 60_000, score=700))
    await store.add_vegas("p1", 52)
    await store.submit("wordlink/draw-3/2024-05-01", "p1", 60_000, 90, 0, keep_seconds=600)
    await store.setting("daily-secret", "s")
    await store.put_document("race", "r1", {"id": "r1"}, keep_seconds=600)
    await store.index_document("race", "player:p1", "r1", 1.0)
    await store.check_writable()


async def next_message(subscription: Subscription, timeout: float) -> bytes:
    return await asyncio.wait_for(anext(aiter(subscription)), timeout)


async def wait_for(condition: Callable[[], Awaitable[bool]], seconds: float) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not await condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.05)


# ---------------------------------------------------------------- key layout


async def test_every_key_is_in_the_namespace_and_documented(own_redis_server: RedisServer) -> None:
    store = RedisStore(own_redis_server.url, namespace="layout")
    raw = Redis.from_url(own_redis_server.url)
    try:
        await exercise_every_method(store)
        keys = [key.decode() async for key in raw.scan_iter()]
    finally:
        await store.close()
        await raw.aclose()
    assert keys and all(key.startswith("layout:") for key in keys), keys
    documented = set(re.findall(r"`arena:([a-z]+)[:`]", DOCS.read_text()))
    families = {key.split(":")[1] for key in keys}
    assert families <= documented, f"undocumented key families: {families - documented}"
    assert {"player", "token", "session", "sessions", "board", "setting", "doc", "index"} <= families


async def test_two_namespaces_on_one_redis_share_nothing(redis_server: RedisServer, store: RedisStore) -> None:
    other = RedisStore(redis_server.url, namespace=store.namespace + "-other")
    try:
        await exercise_every_method(store)
        assert await other.load_session("g1") is None
        assert await other.records("p1") == {}
        assert await other.setting("daily-secret", "mine") == "mine"
        subscription = await other.subscribe("game:g1")
        await store.publish("game:g1", b"elsewhere")
        await other.publish("game:g1", b"here")
        assert await next_message(subscription, 5) == b"here"
        await subscription.close()
    finally:
        await other.close()


async def test_a_record_stored_with_a_repairs_field_reads_its_repairs_back(store: RedisStore, raw: Redis) -> None:
    """Before a game's own sums were ``counter:<name>`` fields, a record hash
    kept Broken Deck's repairs as ``repairs`` (every other game's as 0):
    such a record reads back with its repairs, and later games add to them."""
    broken, wordlink = "broken-deck/difficulty=relaxed", "klondike/draw=1,scoring=standard"
    prefix = f"{store.namespace}:player:{{p1}}:"
    old: dict[FieldT, EncodableT] = {"games": 2, "wins": 1, "moves": 300, "time_ms": 500_000, "hints": 3, "undos": 4,
                                     "repairs": 9, "best_moves": 140, "best_time_ms": 400_000}
    await raw.sadd(prefix + "records", broken, wordlink)
    await raw.hset(prefix + "record:" + broken, mapping=old)
    await raw.hset(prefix + "record:" + wordlink, mapping={**old, "repairs": 0})
    records = await store.records("p1")
    assert records[broken] == Record(games=2, wins=1, moves=300, time_ms=500_000, hints=3, undos=4,
                                     counters={"repairs": 9}, best_moves=140, best_time_ms=400_000)
    assert records[wordlink].counters == {}, "a game that never repaired anything shows no repairs"

    await store.add_result("p1", broken, GameResult(False, 50, 60_000, counters={"repairs": 2}))
    assert (await store.records("p1"))[broken].counters == {"repairs": 11}
    assert await raw.hmget(prefix + "record:" + broken, ["repairs", "counter:repairs", "games"]) == [b"9", b"2", b"3"]


async def test_finished_sessions_carry_an_expiry_and_live_ones_none(store: RedisStore, raw: Redis) -> None:
    await exercise_every_method(store)
    ns = store.namespace
    assert await raw.ttl(f"{ns}:session:{{g1}}") == -1
    assert await raw.ttl(f"{ns}:session:{{g1}}:log") == -1
    await store.append("g2", 0, Action("resign", "", 20))
    for key in (f"{ns}:session:{{g2}}", f"{ns}:session:{{g2}}:log"):
        assert 590 <= await raw.ttl(key) <= 600
    for key in (f"{ns}:board:{{wordlink/draw-3/2024-05-01}}", f"{ns}:doc:race:r1"):
        assert 590 <= await raw.ttl(key) <= 600


async def test_scripts_are_loaded_again_after_redis_forgets_them(store: RedisStore, raw: Redis) -> None:
    await store.create_session(header("g1"))
    await store.append("g1", 0, Action("move", "a", 1))
    await raw.script_flush()
    assert await store.append("g1", 1, Action("move", "b", 2)) == 2


async def test_appends_sent_together_keep_their_own_length_checks(store: RedisStore) -> None:
    """Appends of one event-loop turn share a pipeline; each is still checked."""
    for number in range(20):
        await store.create_session(header(f"g{number}"))
    outcomes = await asyncio.gather(
        *(store.append(f"g{number}", 0, Action("move", "a", 1)) for number in range(20)),
        store.append("g0", 0, Action("move", "rival", 1)),
        return_exceptions=True,
    )
    assert outcomes[:20] == [1] * 20
    assert isinstance(outcomes[20], LogConflict) and outcomes[20].actual_length == 1


async def test_a_batch_of_appends_survives_redis_forgetting_the_script(store: RedisStore, raw: Redis) -> None:
    for number in range(10):
        await store.create_session(header(f"g{number}"))
    await raw.script_flush()
    lengths = await asyncio.gather(*(store.append(f"g{n}", 0, Action("move", "a", 1)) for n in range(10)))
    assert lengths == [1] * 10
    loaded = await store.load_session("g9")
    assert loaded is not None and loaded[1] == [Action("move", "a", 1)]


# ---------------------------------------------------------------- the factory


async def test_open_store_chooses_the_back_end_by_url(redis_server: RedisServer) -> None:
    assert isinstance(open_store(), MemoryStore)
    assert isinstance(open_store("memory://"), MemoryStore)
    chosen = open_store(redis_server.url, namespace="factory")
    try:
        assert isinstance(chosen, RedisStore) and chosen.namespace == "factory"
        await chosen.ping()
    finally:
        await chosen.close()
    with pytest.raises(ValueError, match="unknown storage URL"):
        open_store("postgres://localhost/arena")


# ---------------------------------------------------------------- outages


def every_call(store: Store) -> list[Callable[[], Awaitable[object]]]:
    return [
        store.ping,
        lambda: store.create_player(PlayerRecord("p9", "Zed", "hash-9", 0)),
        lambda: store.player_by_token_hash("hash-1"),
        lambda: store.get_player("p1"),
        lambda: store.get_players(["p1", "p2"]),
        lambda: store.set_display_name("p1", "Ada"),
        lambda: store.create_session(header("g9")),
        lambda: store.append("g1", 1, Action("move", "x", 3)),
        lambda: store.load_session("g1"),
        lambda: store.update_session(header("g1")),
        lambda: store.live_sessions(),
        lambda: store.sessions_of("p1"),
        lambda: store.finish_session(header("g1"), keep_seconds=60),
        lambda: store.add_result("p1", "wordlink/draw-3", GameResult(False, 1, 1)),
        lambda: store.records("p1"),
        lambda: store.days_of(["p1", "p2"]),
        lambda: store.add_vegas("p1", 1),
        lambda: store.submit("b", "p1", 1, 1, 1, keep_seconds=60),
        lambda: store.leaderboard("b"),
        lambda: store.rank("b", "p1"),
        lambda: store.setting("s", "v"),
        lambda: store.get_settings(["s", "t"]),
        lambda: store.put_document("race", "r", {}),
        lambda: store.get_document("race", "r"),
        lambda: store.get_documents("race", ["r", "q"]),
        lambda: store.list_documents("race", "all"),
        lambda: store.index_document("race", "all", "r", 1.0),
        lambda: store.publish("game:g1", b"x"),
        lambda: store.subscribe("game:g1"),
    ]


async def test_every_method_reports_storage_unavailable_then_recovers(own_redis_server: RedisServer) -> None:
    store = RedisStore(own_redis_server.url, namespace="outage")
    try:
        await exercise_every_method(store)
        own_redis_server.stop()
        for call in every_call(store):
            with pytest.raises(StorageUnavailable):
                await call()
        own_redis_server.start()
        await exercise_every_method(store)
        assert await store.append("g1", 1, Action("move", "after", 4)) == 2
    finally:
        await store.close()


async def test_the_first_command_after_a_redis_restart_succeeds(own_redis_server: RedisServer) -> None:
    """Pooled connections that Redis closed are replaced, not used."""
    store = RedisStore(own_redis_server.url, namespace="restart")
    try:
        await asyncio.gather(*(store.setting(f"s{n}", "v") for n in range(8)))
        own_redis_server.stop()
        await asyncio.sleep(0.1)
        own_redis_server.start()
        assert await asyncio.gather(*(store.setting(f"s{n}", "w") for n in range(8))) == ["w"] * 8
    finally:
        await store.close()


async def test_nothing_acknowledged_is_lost_across_a_redis_restart(redis_server_factory: Callable[..., RedisServer]) -> None:
    server = redis_server_factory(persistent=True)
    store = RedisStore(server.url, namespace="durable")
    try:
        await store.create_session(header("g1"))
        acknowledged = [Action("move", f"m{n}", n) for n in range(20)]
        for length, action in enumerate(acknowledged):
            await store.append("g1", length, action)
        server.stop(kill=True)
        with pytest.raises(StorageUnavailable):
            await store.append("g1", 20, Action("move", "refused", 99))
        server.start()
        assert await store.load_session("g1") == (header("g1"), acknowledged)
    finally:
        await store.close()


def heard_after(speaker: Store, subscription: Subscription) -> Callable[[], Awaitable[bool]]:
    """Whether ``subscription`` hears an ``after`` that ``speaker`` publishes
    on ``game:g1`` now: messages sent before the listener has subscribed
    again are lost (Redis pub/sub keeps nothing), so a test keeps asking
    until it hears."""

    async def delivered() -> bool:
        await speaker.publish("game:g1", b"after")
        try:
            return await next_message(subscription, 0.2) == b"after"
        except TimeoutError:
            return False

    return delivered


async def test_a_subscription_keeps_delivering_after_redis_restarts(own_redis_server: RedisServer) -> None:
    listener = RedisStore(own_redis_server.url, namespace="resume")
    speaker = RedisStore(own_redis_server.url, namespace="resume")
    try:
        subscription = await listener.subscribe("game:g1")
        await speaker.publish("game:g1", b"before")
        assert await next_message(subscription, 5) == b"before"
        own_redis_server.stop()
        await asyncio.sleep(0.3)
        own_redis_server.start()

        await wait_for(heard_after(speaker, subscription), seconds=10)
        await speaker.publish("game:g1", b"and again")
        while (payload := await next_message(subscription, 5)) == b"after":
            pass
        assert payload == b"and again"
        await subscription.close()
    finally:
        await listener.close()
        await speaker.close()


class HeldTimer:
    def __init__(self, held: HeldScheduler, callback: Callable[[], None]) -> None:
        self.held, self.callback = held, callback

    def cancel(self) -> None:
        if self in self.held.timers:
            self.held.timers.remove(self)


class HeldScheduler:
    """A ``Scheduler`` whose timers fire only when the test releases them."""

    def __init__(self) -> None:
        self.delays: list[float] = []
        self.timers: list[HeldTimer] = []

    def call_later(self, delay_seconds: float, callback: Callable[[], None]) -> HeldTimer:
        self.delays.append(delay_seconds)
        timer = HeldTimer(self, callback)
        self.timers.append(timer)
        return timer

    def release(self) -> None:
        timers, self.timers = self.timers, []
        for timer in timers:
            timer.callback()


async def test_the_pubsub_reconnection_waits_on_the_stores_scheduler(own_redis_server: RedisServer) -> None:
    """The pause before reconnecting is the scheduler's, like the server's
    other background loops: held, the subscriber stays away; released,
    it subscribes again and delivers."""
    held = HeldScheduler()
    listener = RedisStore(own_redis_server.url, namespace="held", scheduler=held)
    speaker = RedisStore(own_redis_server.url, namespace="held")
    raw = Redis.from_url(own_redis_server.url)
    try:
        subscription = await listener.subscribe("game:g1")
        await speaker.publish("game:g1", b"before")
        assert await next_message(subscription, 5) == b"before"
        assert await raw.execute_command("CLIENT", "KILL", "TYPE", "pubsub") == 1

        async def pausing() -> bool:
            return bool(held.timers)

        await wait_for(pausing, seconds=10)
        assert held.delays == [FIRST_BACKOFF_SECONDS]
        assert await raw.client_list(_type="pubsub") == [], "no reconnection while the scheduler holds the pause"
        held.release()

        await wait_for(heard_after(speaker, subscription), seconds=10)
        assert held.delays == [FIRST_BACKOFF_SECONDS], "one pause: the first reconnection worked"
        await subscription.close()
    finally:
        await raw.aclose()
        await listener.close()
        await speaker.close()


async def test_subscribing_while_redis_is_down_is_unavailable_then_works(own_redis_server: RedisServer) -> None:
    store = RedisStore(own_redis_server.url, namespace="down")
    try:
        own_redis_server.stop()
        with pytest.raises(StorageUnavailable):
            await store.subscribe("game:g1")
        own_redis_server.start()
        subscription = await store.subscribe("game:g1")
        await store.publish("game:g1", b"hello")
        assert await next_message(subscription, 5) == b"hello"
        await subscription.close()
    finally:
        await store.close()
