"""The store contract for a player's devices, link codes and attempt
counters, on every back end (the Redis halves marked ``redis``): any
device's token is the player, a revoked or rotated-away token is nobody,
a link code is taken once even by two processes at once, and a player
stored before devices existed is still its token's player, with that
token listed as its first device."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
import pytest
import redis.asyncio as redis
from tests.redis_server import RedisServer
from tests.storage.test_contract import backend
from tests.storage_backends import BACKENDS, Backend, open_backend

from server.model.records import GameResult, PlayerRecord
from server.storage import Retention, SqliteStore, Store
from server.storage.devices_base import Device, first_device
from server.storage.redis import RedisStore
from server.storage.sqlite_schema import MIGRATIONS, open_database

ADA = PlayerRecord("p1", "Ada", "a" * 64, 1_000)
PHONE = Device("d_phone", "phone", 2_000, None, "b" * 64)
LIMIT = 5

__all__ = ["backend"]


@pytest.fixture
async def store(backend: Backend) -> Store:
    await backend.store.create_player(ADA)
    return backend.store


async def test_a_players_own_token_is_its_first_device(store: Store) -> None:
    first = first_device(ADA)
    assert first.device_id == "d_" + "a" * 12
    assert await store.devices("p1") == [first]
    assert await store.device_by_token_hash(ADA.token_hash, None) == (ADA, first)
    assert await store.devices("nobody") == []


async def test_a_linked_devices_token_is_the_same_player(store: Store) -> None:
    assert await store.add_device("p1", PHONE, LIMIT)
    assert await store.player_by_token_hash(PHONE.token_hash) == ADA
    assert await store.player_by_token_hash(ADA.token_hash) == ADA
    assert [device.device_id for device in await store.devices("p1")] == [first_device(ADA).device_id, "d_phone"]
    assert await store.device_by_token_hash(PHONE.token_hash, None) == (ADA, PHONE)
    assert not await store.add_device("nobody", Device("d_x", "", 1, None, "c" * 64), LIMIT)
    assert await store.player_by_token_hash("c" * 64) is None


async def test_a_player_has_at_most_the_limit_of_devices(store: Store) -> None:
    for n in range(LIMIT - 1):
        assert await store.add_device("p1", Device(f"d_{n}", "", 2_000 + n, None, f"{n:064}"), LIMIT)
    assert not await store.add_device("p1", PHONE, LIMIT)
    assert await store.player_by_token_hash(PHONE.token_hash) is None
    assert len(await store.devices("p1")) == LIMIT


async def test_a_sighting_and_a_name_are_kept_per_device(store: Store) -> None:
    await store.add_device("p1", PHONE, LIMIT)
    first = first_device(ADA)
    await store.device_by_token_hash(ADA.token_hash, 7_000)
    await store.rename_device("p1", first.device_id, "laptop")
    await store.rename_device("p1", "d_none", "ghost")
    listed = await store.devices("p1")
    assert listed == [Device(first.device_id, "laptop", 1_000, 7_000, ADA.token_hash), PHONE]


async def test_a_revoked_device_is_nobody_and_the_others_stay(store: Store) -> None:
    await store.add_device("p1", PHONE, LIMIT)
    assert await store.revoke_device("p1", "d_phone")
    assert await store.player_by_token_hash(PHONE.token_hash) is None
    assert await store.player_by_token_hash(ADA.token_hash) == ADA
    assert not await store.revoke_device("p1", "d_phone")
    assert not await store.revoke_device("nobody", "d_phone")
    assert await store.revoke_device("p1", first_device(ADA).device_id)
    assert await store.player_by_token_hash(ADA.token_hash) is None
    assert await store.devices("p1") == []
    assert await store.get_player("p1") == ADA


async def test_a_rotated_token_replaces_the_old_one_on_the_same_device(store: Store) -> None:
    first = first_device(ADA)
    assert await store.rotate_device_token("p1", first.device_id, "e" * 64)
    assert await store.player_by_token_hash(ADA.token_hash) is None
    found = await store.device_by_token_hash("e" * 64, None)
    assert found is not None and found[1].device_id == first.device_id and found[1].token_hash == "e" * 64
    assert not await store.rotate_device_token("p1", "d_none", "f" * 64)
    assert await store.player_by_token_hash("f" * 64) is None


async def test_a_link_code_is_taken_once(backend: Backend, store: Store) -> None:
    await store.put_link_code("code-1", "p1", keep_seconds=600)
    assert await store.take_link_code("code-1") == "p1"
    assert await store.take_link_code("code-1") is None
    assert await store.take_link_code("never") is None


async def test_of_two_processes_taking_one_code_at_once_exactly_one_gets_it(backend: Backend, store: Store) -> None:
    stores = [store, backend.peer()]
    for round_ in range(20):
        await store.put_link_code(f"code-{round_}", "p1", keep_seconds=600)
    taken = await asyncio.gather(*(stores[n % 2].take_link_code(f"code-{n // 2}") for n in range(40)))
    for round_ in range(20):
        assert sorted(map(str, taken[2 * round_ : 2 * round_ + 2])) == ["None", "p1"]


async def test_a_link_code_expires(backend: Backend, store: Store) -> None:
    await store.put_link_code("code-1", "p1", keep_seconds=1)
    await backend.advance(1.2)
    assert await store.take_link_code("code-1") is None
    await backend.store.expire_due()


async def test_attempts_count_within_their_window_and_start_again_after(backend: Backend) -> None:
    """The window that counts is long where the counts must land inside it
    and short only where it must end, so a slow machine cannot make three
    counts straddle a window's end."""
    store, peer = backend.store, backend.peer()
    assert [await (store, peer)[n % 2].count_attempt("redeem:1.2.3.4", 3600) for n in range(3)] == [1, 2, 3]
    assert await store.count_attempt("redeem:5.6.7.8", 3600) == 1
    assert await store.count_attempt("redeem:9.9.9.9", 1) == 1
    await backend.advance(1.2)
    assert await store.count_attempt("redeem:9.9.9.9", 1) == 1
    assert await peer.count_attempt("redeem:1.2.3.4", 3600) == 4


@pytest.mark.parametrize("backend_name", BACKENDS)
async def test_devices_go_with_their_identity(
    backend_name: str, request: pytest.FixtureRequest, redis_namespace: str
) -> None:
    backend = open_backend(backend_name, request, redis_namespace, Retention(identity_seconds=3))
    try:
        store = backend.store
        await store.create_player(ADA)
        await store.add_device("p1", PHONE, LIMIT)
        await backend.advance(1.5)
        assert await store.player_by_token_hash(ADA.token_hash) == ADA
        await backend.advance(1.8)
        assert await store.player_by_token_hash(PHONE.token_hash) == ADA, "the use of one token renews every device"
        await backend.advance(3.3)
        await store.expire_due()
        assert await store.player_by_token_hash(PHONE.token_hash) is None
        assert await store.player_by_token_hash(ADA.token_hash) is None
        assert await store.devices("p1") == []
    finally:
        await backend.close()


@pytest.mark.redis
async def test_a_player_stored_in_redis_before_devices_keeps_its_token(
    redis_server: RedisServer, redis_namespace: str
) -> None:
    raw = redis.Redis.from_url(redis_server.url)
    await raw.hset(f"{redis_namespace}:player:{{p1}}", mapping={
        "display_name": "Ada", "token_hash": ADA.token_hash, "created_ms": 1_000, "bot": 0})
    await raw.set(f"{redis_namespace}:token:{ADA.token_hash}", "p1")
    await raw.aclose()
    store = RedisStore(redis_server.url, namespace=redis_namespace)
    try:
        assert await store.devices("p1") == [first_device(ADA)]
        assert await store.player_by_token_hash(ADA.token_hash) == ADA
        await store.add_result("p1", "klondike/draw-3", GameResult(won=True, moves=90, time_ms=60_000))
        assert await store.add_device("p1", PHONE, LIMIT)
        assert [device.device_id for device in await store.devices("p1")] == [first_device(ADA).device_id, "d_phone"]
        assert await store.player_by_token_hash(ADA.token_hash) == ADA
    finally:
        await store.close()


async def test_a_player_of_a_sqlite_file_written_before_devices_keeps_its_token(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old = open_database(path, MIGRATIONS[:1])
    old.execute("INSERT INTO players VALUES (?, ?, ?, ?, ?, ?)", ("p1", "Ada", ADA.token_hash, 1_000, 0, None))
    old.execute("INSERT INTO tokens VALUES (?, ?)", (ADA.token_hash, "p1"))
    old.execute("INSERT INTO identities VALUES (?, ?)", ("p1", 1.0))
    old.close()
    store = SqliteStore(path, clock=lambda: 2_000)
    try:
        assert await store.devices("p1") == [first_device(ADA)]
        assert await store.player_by_token_hash(ADA.token_hash) == ADA
        assert await store.add_device("p1", PHONE, LIMIT)
        assert await store.player_by_token_hash(ADA.token_hash) == ADA
    finally:
        await store.close()
    assert sqlite3.connect(path).execute("SELECT count(*) FROM devices").fetchone()[0] == 2
