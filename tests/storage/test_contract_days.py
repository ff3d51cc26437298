"""The store contract for a player's days (``DayStore``), on every back
end, a Redis Cluster included: the first day written under a key stays,
a game's end writes its day once however often it is settled and by
however many processes at once, and days go with their identity."""

from __future__ import annotations

import asyncio

import pytest
from tests.storage.test_contract import backend, header, move
from tests.storage_backends import BACKENDS, Backend, open_backend

from server.model.records import DayResult, Finish, GameResult, PlayerRecord, ResultEntry
from server.storage import Retention, Store

ADA = PlayerRecord("p1", "Ada", "a" * 64, 1_000)
DAY_MS = 1_714_521_600_000  # 2024-05-01T00:00:00Z
MAY_1 = DayResult("klondike/draw-1/2024-05-01", True, 61_000, 90, DAY_MS + 70_000)
MAY_2 = DayResult("klondike/draw-1/2024-05-02", False, 9_000, 12, DAY_MS + 90_000_000)

__all__ = ["backend"]


@pytest.fixture
async def store(backend: Backend) -> Store:
    await backend.store.create_player(ADA)
    return backend.store


def daily_finish(game_id: str, day: DayResult) -> Finish:
    final = header(game_id, status="won" if day.won else "lost", finished_ms=day.finished_ms)
    result = GameResult(day.won, day.actions, day.time_ms)
    return Finish(final, 600, ResultEntry("p1", "klondike/draw-1", result, None, day))


async def test_the_first_day_written_under_a_key_stays_and_days_come_by_key(store: Store) -> None:
    assert await store.days("p1") == []
    assert await store.add_day("p1", MAY_2)
    assert await store.add_day("p1", MAY_1)
    assert not await store.add_day("p1", DayResult(MAY_1.key, False, 1, 1, 1)), "a second attempt changes nothing"
    assert await store.days("p1") == [MAY_1, MAY_2]
    assert await store.days("p2") == []


async def test_the_days_of_many_players_are_read_together_as_one_by_one(backend: Backend) -> None:
    store, elsewhere = backend.store, backend.peer()
    for number in range(12):
        await store.create_player(PlayerRecord(f"p{number}", f"Player {number}", f"{number:064}", 1_000))
        for day in (MAY_2, MAY_1)[: number % 3]:
            assert await store.add_day(f"p{number}", day)
    asked = ["p5", "p0", "p_unknown", "p5", "p11", "p1"]
    found = await elsewhere.days_of(asked)
    assert list(found) == ["p5", "p0", "p_unknown", "p11", "p1"], "once each, in the order asked"
    for player_id, days in found.items():
        assert days == await elsewhere.days(player_id)
    assert found["p5"] == [MAY_1, MAY_2] and found["p1"] == [MAY_2] and found["p_unknown"] == []
    assert await elsewhere.days_of([]) == {}


async def test_an_end_settled_again_or_in_two_processes_at_once_writes_its_day_once(backend: Backend) -> None:
    stores = [backend.store, backend.peer()]
    await stores[0].create_player(ADA)
    for game_id in ("g1", "g2"):
        await stores[0].create_session(header(game_id))
        await stores[0].append(game_id, 0, move("win", 9_000), ends=True)
    await stores[0].settle_finish(daily_finish("g1", MAY_1))
    await stores[1].settle_finish(daily_finish("g1", MAY_1))
    await asyncio.gather(*(stores[n % 2].settle_finish(daily_finish("g2", MAY_2)) for n in range(6)))
    assert await stores[1].days("p1") == [MAY_1, MAY_2]
    assert (await stores[0].records("p1"))["klondike/draw-1"].games == 2
    assert await stores[1].open_finishes() == []


@pytest.mark.parametrize("backend_name", BACKENDS)
async def test_days_go_with_their_identity(
    backend_name: str, request: pytest.FixtureRequest, redis_namespace: str
) -> None:
    short_lived = open_backend(backend_name, request, redis_namespace, Retention(identity_seconds=1))
    store = short_lived.store
    await store.create_player(ADA)
    try:
        for day in (MAY_1, MAY_2):
            await store.add_day("p1", day)
            await short_lived.advance(0.6)
        assert await store.days("p1") == [MAY_1, MAY_2], "writing a day renews the identity"
        await short_lived.advance(1.3)
        await store.expire_due()
        assert await store.days("p1") == []
    finally:
        await short_lived.close()
