"""Many keys in one read (``server.storage.reads_base``), on every back end
(memory, SQLite, Redis and a Redis Cluster, whose keys lie in many
slots): each answers what the single reads answer, key for key, leaving
out what they would answer None for (unknown, expired, dropped), once per
key however often it is asked, and another process reads what one wrote.
"""

from __future__ import annotations

from typing import AsyncIterator

import pytest
from tests.storage_backends import BACKENDS, Backend, open_backend

from server.model.records import PlayerRecord
from server.storage import Retention

SHORT = Retention(identity_seconds=1)
"""Identities gone after a second: the Redis halves really wait for it."""


@pytest.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest, redis_namespace: str) -> AsyncIterator[Backend]:
    chosen = open_backend(request.param, request, redis_namespace, SHORT)
    yield chosen
    await chosen.close()


def player(number: int) -> PlayerRecord:
    return PlayerRecord(f"p_{number}", f"Player {number}", f"hash_{number}", 1_000 + number, number % 2 == 0,
                        f"192.0.2.{number}")


async def test_players_are_read_together_as_one_by_one(backend: Backend) -> None:
    store, elsewhere = backend.store, backend.peer()
    for number in range(30):
        await store.create_player(player(number))
    asked = [f"p_{number}" for number in (3, 29, 3, 0, 99, 12)]
    found = await elsewhere.get_players(asked)
    assert list(found) == ["p_3", "p_29", "p_0", "p_12"], "once each, in the order asked, the unknown one left out"
    for player_id, record in found.items():
        assert record == await elsewhere.get_player(player_id)
    assert found["p_12"] == player(12)
    assert await elsewhere.get_players([]) == {}


async def test_an_identity_gone_is_left_out_like_a_player_never_made(backend: Backend) -> None:
    store = backend.store
    await store.create_player(player(1))
    await backend.advance(0.4)
    await store.create_player(player(2))
    await backend.advance(0.7)
    assert await store.get_player("p_1") is None
    assert list(await store.get_players(["p_1", "p_2"])) == ["p_2"]


async def test_settings_are_read_together_as_one_by_one(backend: Backend) -> None:
    store, elsewhere = backend.store, backend.peer()
    for number in range(20):
        assert await store.setting(f"claim:{number}", f"g_{number}") == f"g_{number}"
    await store.setting("short", "soon gone", keep_seconds=1)
    found = await elsewhere.get_settings(["claim:7", "none", "claim:0", "claim:7", "short"])
    assert found == {"claim:7": "g_7", "claim:0": "g_0", "short": "soon gone"}
    await backend.advance(1.2)
    assert await elsewhere.get_settings(["short", "claim:19"]) == {"claim:19": "g_19"}
    assert await elsewhere.get_settings([]) == {}


async def test_documents_are_read_together_as_one_by_one(backend: Backend) -> None:
    store, elsewhere = backend.store, backend.peer()
    for number in range(20):
        await store.put_document("friend", f"p_{number}/p_me", {"other": "p_me", "state": "friend", "since_ms": number})
    await store.put_document("friend", "p_5/p_me", {}, 0)
    await store.put_document("friend", "p_6/p_me", {"other": "p_me", "state": "request_sent", "since_ms": 6}, 1)
    await store.put_document("race", "p_7/p_me", {"kind": "not a friend edge"})
    keys = [f"p_{number}/p_me" for number in (4, 5, 6, 4, 7, 42)]
    found = await elsewhere.get_documents("friend", keys)
    assert list(found) == ["p_4/p_me", "p_6/p_me", "p_7/p_me"], "once each; a dropped edge and an unknown key left out"
    assert found["p_7/p_me"]["state"] == "friend", "a document of another kind under the same key is not this one"
    for key, document in found.items():
        assert document == await elsewhere.get_document("friend", key)
    await backend.advance(1.2)
    assert list(await elsewhere.get_documents("friend", keys)) == ["p_4/p_me", "p_7/p_me"]
    assert await elsewhere.get_documents("friend", []) == {}
