"""``settle_pending``, the start-up sweep of open outboxes: a game's end
left open is settled once, a long game replayed in chunks that let other
tasks go; an outbox whose log does not end the game, or a store that
cannot be asked, is logged and left for the next sweep."""

from __future__ import annotations

import logging

import pytest
from tests.server.arena_servers import make_settings
from tests.server.test_pacing import turns_while

from server.games.pacing import CHUNK, Pacing
from server.games.records import settle_pending
from server.model.records import Action, SessionHeader
from server.storage.base import StorageUnavailable
from server.storage.memory import MemoryStore


def _header(game_id: str) -> SessionHeader:
    return SessionHeader(game_id=game_id, game="klondike", deal=3, options={"draw": 1}, owner="p_1", created_ms=0)


async def test_an_end_left_open_is_settled_once() -> None:
    store = MemoryStore()
    await store.create_session(_header("g_ended"))
    await store.append("g_ended", 0, Action("resign", "", 1_000), ends=True)
    assert await settle_pending(store, make_settings()) == 1
    assert await store.open_finishes() == []
    assert await settle_pending(store, make_settings()) == 0


async def _long_games_left_open(chunks: int) -> MemoryStore:
    """A store holding two games of ``chunks`` chunks of draws, each ended
    (resigned) and its outbox left open, as a process that died would."""
    store = MemoryStore()
    for game_id in ("g_first", "g_second"):
        await store.create_session(_header(game_id))
        for seq in range(chunks * CHUNK):
            await store.append(game_id, seq, Action("move", "draw", 1_000 + seq))
        await store.append(game_id, chunks * CHUNK, Action("resign", "", 90_000), ends=True)
    return store


async def test_long_games_left_open_are_replayed_in_chunks_that_let_others_go() -> None:
    chunks = 10
    unpaced = await _long_games_left_open(chunks)
    settled, unpaced_turns = await turns_while(lambda: settle_pending(unpaced, make_settings(), Pacing(slice_seconds=3600)))
    assert settled == 2
    paced = await _long_games_left_open(chunks)
    settled, paced_turns = await turns_while(lambda: settle_pending(paced, make_settings(), Pacing(slice_seconds=0)))
    assert settled == 2 and await paced.open_finishes() == []
    assert paced_turns >= unpaced_turns + 2 * chunks, "each game gave way after each of its chunks"


async def test_an_outbox_whose_log_does_not_end_the_game_is_left_open(caplog: pytest.LogCaptureFixture) -> None:
    store = MemoryStore()
    await store.create_session(_header("g_playing"))
    await store.append("g_playing", 0, Action("move", "draw", 1_000), ends=True)
    with caplog.at_level(logging.WARNING, logger="arena.records"):
        assert await settle_pending(store, make_settings()) == 0
    assert "g_playing is open but its log does not end the game" in caplog.text
    assert await store.open_finishes() == ["g_playing"]


async def test_a_store_that_cannot_list_open_outboxes_settles_nothing(caplog: pytest.LogCaptureFixture) -> None:
    class Unreachable(MemoryStore):
        async def open_finishes(self, limit: int = 100) -> list[str]:
            raise StorageUnavailable("Redis is down")

    with caplog.at_level(logging.WARNING, logger="arena.records"):
        assert await settle_pending(Unreachable(), make_settings()) == 0
    assert "could not look for unsettled game ends: Redis is down" in caplog.text
