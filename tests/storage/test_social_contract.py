"""What the store keeps of friends, notifications and challenges
(``server.storage.social``), on every back end (memory, SQLite, Redis and
a Redis Cluster): each is one key per write, so the same calls behave
alike on all, another process (``peer``) reads what one wrote, and an
export carries it to another back end.
"""

from __future__ import annotations

import io
import time
from typing import AsyncIterator

import pytest
from tests.storage.test_transfer import no_progress
from tests.storage_backends import BACKENDS, Backend, open_backend

from server.storage import MemoryStore
from server.storage.social import SocialRecords
from server.storage.transfer import export_store, import_store, read_export


@pytest.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest, redis_namespace: str) -> AsyncIterator[Backend]:
    chosen = open_backend(request.param, request, redis_namespace)
    yield chosen
    await chosen.close()


async def test_each_side_keeps_its_own_edge_and_another_process_reads_it(backend: Backend) -> None:
    records, elsewhere = SocialRecords(backend.store), SocialRecords(backend.peer())
    await records.put_edge("p_ann", "p_bob", "request_sent", 1_000, 3600)
    await records.put_edge("p_bob", "p_ann", "request_received", 1_000, 3600)
    await records.put_edge("p_ann", "p_cat", "friend", 2_000, None)
    assert [edge["other"] for edge in await elsewhere.edges("p_ann", 10)] == ["p_cat", "p_bob"]
    assert (await elsewhere.edge("p_bob", "p_ann") or {}).get("state") == "request_received"
    await elsewhere.drop_edge("p_ann", "p_bob")
    assert await records.edge("p_ann", "p_bob") is None
    assert [edge["other"] for edge in await records.edges("p_ann", 10)] == ["p_cat"]


async def test_a_request_lapses_and_a_friendship_does_not(backend: Backend) -> None:
    records = SocialRecords(backend.store)
    await records.put_edge("p_ann", "p_bob", "request_sent", 1_000, 1)
    await records.put_edge("p_ann", "p_cat", "friend", 1_000, None)
    await backend.advance(1.5)
    assert await records.edge("p_ann", "p_bob") is None
    assert [edge["other"] for edge in await records.edges("p_ann", 10)] == ["p_cat"]


async def test_a_code_belongs_to_one_player_and_a_reissued_one_names_nobody(backend: Backend) -> None:
    records, elsewhere = SocialRecords(backend.store), SocialRecords(backend.peer())
    assert await records.claim_code("p_ann", "AAAA1111")
    assert not await elsewhere.claim_code("p_bob", "AAAA1111")
    assert await elsewhere.player_of_code("AAAA1111") == "p_ann"
    assert await records.claim_code("p_ann", "BBBB2222")
    assert await elsewhere.player_of_code("AAAA1111") is None
    assert await elsewhere.player_of_code("BBBB2222") == "p_ann"
    assert await elsewhere.code_of("p_ann") == "BBBB2222"
    assert await records.claim_code("p_bob", "AAAA1111")
    assert await records.player_of_code("AAAA1111") == "p_bob"


async def test_the_inbox_keeps_the_newest_up_to_its_size_even_within_a_millisecond_and_marks_read(backend: Backend) -> None:
    records = SocialRecords(backend.store)
    for number in range(5):
        entry = {"notification_id": f"n_{number}", "kind": "friend_request", "at_ms": 1_000 + number // 2}
        await records.add_notification("p_ann", entry, 3600, 3, tiebreak=number)
    kept = await SocialRecords(backend.peer()).notifications("p_ann", 10)
    assert [entry["notification_id"] for entry in kept] == ["n_4", "n_3", "n_2"]
    if backend.redis_url is not None:
        assert len(await backend.store.index_entries("notification", "p_ann")) <= 4, "Redis forgets dropped names"
    await records.mark_read("p_ann", kept[0], 3600)
    assert [entry.get("read", False) for entry in await records.notifications("p_ann", 10)] == [True, False, False]


async def test_a_challenge_is_kept_until_dropped(backend: Backend) -> None:
    records = SocialRecords(backend.store)
    await records.put_challenge("n_1", {"challenger": "p_ann", "friend": "p_bob"}, 3600)
    assert (await SocialRecords(backend.peer()).challenge("n_1") or {}).get("friend") == "p_bob"
    await records.drop_challenge("n_1")
    assert await records.challenge("n_1") is None


async def test_a_window_counts_what_happened_within_its_lifetime(backend: Backend) -> None:
    records = SocialRecords(backend.store)
    for number in range(3):
        await records.count("lookups/p_ann", f"e{number}", 1_000 + number, 1)
    assert await records.recent("lookups/p_ann", 10) == 3
    assert await records.recent("lookups/p_ann", 2) == 2
    await backend.advance(1.5)
    assert await records.recent("lookups/p_ann", 10) == 0


async def test_an_export_carries_friends_codes_and_inboxes(backend: Backend) -> None:
    records = SocialRecords(backend.store)
    await records.put_edge("p_ann", "p_bob", "friend", 1_000, None)
    await records.claim_code("p_ann", "CCCC3333")
    await records.add_notification("p_ann", {"notification_id": "n_1", "kind": "friend_accepted", "at_ms": 5}, 3600, 10)
    now_ms = backend.clock.ms() if backend.clock is not None else int(time.time() * 1000)
    copy, out = MemoryStore(clock=lambda: now_ms), io.StringIO()
    await export_store(backend.store, out, now_ms, no_progress)
    await import_store(copy, read_export(out.getvalue().splitlines(keepends=True)), now_ms, no_progress)
    copied = SocialRecords(copy)
    assert [edge["other"] for edge in await copied.edges("p_ann", 10)] == ["p_bob"]
    assert await copied.player_of_code("CCCC3333") == "p_ann"
    assert [entry["notification_id"] for entry in await copied.notifications("p_ann", 10)] == ["n_1"]
