"""What the store keeps of leagues (``server.storage.leagues``), on every
back end (memory, SQLite, Redis and a Redis Cluster): one key per write,
so the same calls behave alike on all, another process (``peer``) reads
what one wrote, and an export carries it to another back end.
"""

from __future__ import annotations

import io
import time
from typing import AsyncIterator

import pytest
from tests.storage.test_transfer import no_progress
from tests.storage_backends import BACKENDS, Backend, open_backend

from server.storage import MemoryStore
from server.storage.leagues import MEMBERSHIP, LeagueRecords
from server.storage.transfer import export_store, import_store, read_export

LEAGUE = {"league_id": "l_one", "name": "Lunch", "owner": "p_ann", "variants": [["klondike", "draw=1"]],
          "code": "AAAA1111", "created_ms": 1_000}


@pytest.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest, redis_namespace: str) -> AsyncIterator[Backend]:
    chosen = open_backend(request.param, request, redis_namespace)
    yield chosen
    await chosen.close()


async def test_a_league_its_members_and_their_mirrors_are_read_by_another_process(backend: Backend) -> None:
    records, elsewhere = LeagueRecords(backend.store), LeagueRecords(backend.peer())
    await records.put_league(LEAGUE)
    await records.add_member("l_one", "p_ann", 1_000)
    await records.add_member("l_one", "p_bob", 2_000)
    assert (await elsewhere.league("l_one") or {}).get("name") == "Lunch"
    assert [found["player_id"] for found in await elsewhere.members("l_one", 10)] == ["p_bob", "p_ann"]
    assert [found["league_id"] for found in await elsewhere.leagues_of("p_bob", 10)] == ["l_one"]
    assert (await elsewhere.member("l_one", "p_bob") or {}).get("joined_ms") == 2_000
    await elsewhere.drop_member("l_one", "p_bob")
    assert await records.member("l_one", "p_bob") is None
    assert [found["player_id"] for found in await records.members("l_one", 10)] == ["p_ann"]
    assert await records.leagues_of("p_bob", 10) == []
    await records.drop_league("l_one")
    assert await elsewhere.league("l_one") is None


async def test_a_member_without_its_mirror_is_no_member(backend: Backend) -> None:
    records = LeagueRecords(backend.store)
    await records.add_member("l_one", "p_bob", 2_000)
    await backend.store.put_document(MEMBERSHIP, "p_bob/l_one", {}, 0)
    assert await records.member("l_one", "p_bob") is None


async def test_a_code_belongs_to_one_league_and_a_reissued_one_names_none(backend: Backend) -> None:
    records, elsewhere = LeagueRecords(backend.store), LeagueRecords(backend.peer())
    assert await records.claim_code("l_one", "AAAA1111")
    await records.put_league(LEAGUE)
    assert not await elsewhere.claim_code("l_two", "AAAA1111")
    assert (await elsewhere.league_of_code("AAAA1111") or {}).get("league_id") == "l_one"
    assert await records.claim_code("l_one", "BBBB2222")
    await records.put_league(LEAGUE | {"code": "BBBB2222"})
    assert await elsewhere.league_of_code("AAAA1111") is None, "dead once the league names another code"
    await records.release_code("l_one", "AAAA1111")
    assert await elsewhere.claim_code("l_two", "AAAA1111")
    assert (await elsewhere.league_of_code("BBBB2222") or {}).get("league_id") == "l_one"


async def test_finished_weeks_are_kept_newest_first_for_their_lifetime(backend: Backend) -> None:
    records = LeagueRecords(backend.store)
    await records.put_week("l_one", "2026-W47", 1_000, {"week": "2026-W47", "rows": []}, 3600)
    await records.put_week("l_one", "2026-W48", 2_000, {"week": "2026-W48", "rows": []}, 1)
    assert [week["week"] for week in await LeagueRecords(backend.peer()).weeks("l_one", 10)] == ["2026-W48", "2026-W47"]
    await backend.advance(1.5)
    assert [week["week"] for week in await records.weeks("l_one", 10)] == ["2026-W47"]
    assert await records.week("l_one", "2026-W48") is None


async def test_an_export_carries_leagues_members_codes_and_weeks(backend: Backend) -> None:
    records = LeagueRecords(backend.store)
    await records.claim_code("l_one", "AAAA1111")
    await records.put_league(LEAGUE)
    await records.add_member("l_one", "p_ann", 1_000)
    await records.put_week("l_one", "2026-W47", 1_000, {"week": "2026-W47", "rows": []}, 3600)
    now_ms = backend.clock.ms() if backend.clock is not None else int(time.time() * 1000)
    copy, out = MemoryStore(clock=lambda: now_ms), io.StringIO()
    await export_store(backend.store, out, now_ms, no_progress)
    await import_store(copy, read_export(out.getvalue().splitlines(keepends=True)), now_ms, no_progress)
    copied = LeagueRecords(copy)
    assert (await copied.league_of_code("AAAA1111") or {}).get("league_id") == "l_one"
    assert await copied.member("l_one", "p_ann") is not None
    assert [week["week"] for week in await copied.weeks("l_one", 10)] == ["2026-W47"]
