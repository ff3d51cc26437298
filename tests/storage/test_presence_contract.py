"""The presence half of the store contract (``server.storage.presence``),
on every back end: leases, live entries, last seen, appearing offline,
and reaping a dead process's lease exactly once."""

from __future__ import annotations

import asyncio

import pytest
from tests.storage.test_contract import backend, store
from tests.storage_backends import BACKENDS, Backend, open_backend

from server.storage import Retention, Store
from server.storage.presence import DeadLease, LivePresence, StoredPresence

NOW = 1_700_000_000_000
LEASE = 15_000
LOBBY = LivePresence(False, {"kind": "lobby"}, NOW)
FIXTURES = (backend, store)
"""The contract suite's store on every back end."""


async def test_a_player_never_seen_has_no_presence(store: Store) -> None:
    assert await store.presence(["nobody"], NOW) == {"nobody": StoredPresence()}


async def test_a_held_player_is_live_while_its_process_lease_holds(store: Store) -> None:
    await store.renew_presence_lease("a", NOW, LEASE)
    await store.put_presence("a", "p1", LOBBY, NOW)
    assert await store.presence(["p1"], NOW + LEASE - 1) == {"p1": StoredPresence({"a": LOBBY}, NOW)}
    assert await store.presence(["p1"], NOW + LEASE) == {"p1": StoredPresence({}, NOW)}
    await store.renew_presence_lease("a", NOW + 5_000, LEASE)
    assert (await store.presence(["p1"], NOW + LEASE))["p1"].live == {"a": LOBBY}


async def test_a_player_on_two_processes_has_two_live_entries_and_leaves_each(store: Store) -> None:
    playing = LivePresence(True, {"kind": "game", "game": "klondike", "game_id": "g_1"}, NOW + 10)
    for origin in ("a", "b"):
        await store.renew_presence_lease(origin, NOW, LEASE)
    await store.put_presence("a", "p1", LOBBY, NOW)
    await store.put_presence("b", "p1", playing, NOW + 10)
    assert (await store.presence(["p1"], NOW + 20))["p1"].live == {"a": LOBBY, "b": playing}
    await store.put_presence("a", "p1", None, NOW + 30)
    assert await store.presence(["p1", "p2"], NOW + 40) == {
        "p1": StoredPresence({"b": playing}, NOW + 30), "p2": StoredPresence(),
    }


async def test_appearing_offline_is_kept_until_it_is_undone(store: Store) -> None:
    await store.renew_presence_lease("a", NOW, LEASE)
    await store.put_presence("a", "p1", LOBBY, NOW)
    await store.hide_presence("p1", NOW - 60_000)
    assert (await store.presence(["p1"], NOW + 1))["p1"] == StoredPresence({"a": LOBBY}, NOW, NOW - 60_000)
    await store.hide_presence("p1", None)
    assert (await store.presence(["p1"], NOW + 1))["p1"].hidden_seen_ms is None


async def test_a_dead_lease_is_reaped_once_with_its_players_last_seen_at_its_last_renewal(backend: Backend) -> None:
    store, other = backend.store, backend.peer()
    await store.renew_presence_lease("a", NOW, LEASE)
    await store.renew_presence_lease("b", NOW, LEASE)
    for player_id in ("p1", "p2"):
        await store.put_presence("a", player_id, LOBBY, NOW - 1_000)
    await store.put_presence("b", "p3", LOBBY, NOW)
    await store.renew_presence_lease("a", NOW + 3_000, LEASE)
    await store.renew_presence_lease("b", NOW + 20_000, LEASE)
    assert await store.reap_presence_leases(NOW + LEASE) == []
    due = NOW + 3_000 + LEASE
    first, second = await asyncio.gather(store.reap_presence_leases(due), other.reap_presence_leases(due))
    assert sorted([*first, *second], key=lambda lease: lease.origin) == [DeadLease("a", NOW + 3_000, ["p1", "p2"])]
    assert await store.reap_presence_leases(due) == []
    found = await store.presence(["p1", "p2", "p3"], due)
    assert found["p1"] == found["p2"] == StoredPresence({}, NOW + 3_000)
    assert found["p3"].live == {"b": LOBBY}


async def test_a_process_renewing_again_after_it_was_reaped_holds_only_what_it_writes_again(store: Store) -> None:
    await store.renew_presence_lease("a", NOW, LEASE)
    await store.put_presence("a", "p1", LOBBY, NOW)
    assert [lease.origin for lease in await store.reap_presence_leases(NOW + LEASE)] == ["a"]
    await store.renew_presence_lease("a", NOW + LEASE + 1, LEASE)
    assert (await store.presence(["p1"], NOW + LEASE + 2))["p1"].live == {}


@pytest.mark.parametrize("name", BACKENDS)
async def test_last_seen_and_appear_offline_last_as_long_as_an_identity(
    name: str, request: pytest.FixtureRequest, redis_namespace: str
) -> None:
    chosen = open_backend(name, request, redis_namespace, Retention(identity_seconds=1))
    try:
        await chosen.store.put_presence("a", "p1", None, NOW)
        await chosen.store.hide_presence("p1", NOW)
        assert (await chosen.store.presence(["p1"], NOW))["p1"] == StoredPresence({}, NOW, NOW)
        await chosen.advance(1.5)
        await chosen.store.expire_due()
        assert (await chosen.store.presence(["p1"], NOW))["p1"] == StoredPresence()
    finally:
        await chosen.close()
