"""Rebuilding a long log lets the event loop serve the others between
chunks (``server.games.pacing``): loading a stored game, building a
replay page, and reading the attempts a board shows.  With a slice of 0
a rebuild gives way after every chunk, so these tests count the other
tasks' turns, not time, and pass at any machine speed."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from tests.server.arena_memory import MemoryArena
from tests.server.arena_servers import make_settings

from protocol import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL
from protocol import to_client as tc
from protocol import to_server as ts
from protocol.codec import codec_for
from server.games.pacing import CHUNK, Pacing
from server.games.replayed import ReplayedSessions
from server.model.session import Session

DRAWS = 6 * CHUNK


async def turns_while(work: Callable[[], Awaitable[Any]]) -> tuple[Any, int]:
    """What ``work`` gave and how many turns another task had meanwhile."""
    turns = 0
    done = False

    async def other() -> None:
        nonlocal turns
        while not done:
            await asyncio.sleep(0)
            turns += 1

    ticking = asyncio.create_task(other())
    try:
        return await work(), turns
    finally:
        done = True
        await ticking


async def long_game(arena: MemoryArena) -> str:
    """A finished game of ``DRAWS`` draws and a resignation, held by nobody."""
    player = await arena.client()
    await player.hello(name="ann")
    started, _ = await player.new_game(deal=1, options={"draw": 3})
    for _ in range(DRAWS):
        await player.request(ts.Move, game_id=started.game_id, move="draw")
    await player.request(ts.Resign, game_id=started.game_id)
    await player.close()
    assert started.game_id not in arena.hub.tables.rooms, "nobody holds it: the next reader loads it"
    return started.game_id


@pytest.mark.parametrize("subprotocol", [JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL])
async def test_loading_a_game_and_building_its_replay_page_give_way_and_change_nothing(subprotocol: str) -> None:
    async with MemoryArena(make_settings()) as arena:
        game_id = await long_game(arena)
        reader = await arena.client(subprotocol)
        await reader.hello(name="bob")
        whole, unpaced_turns = await turns_while(lambda: reader.request(ts.Replay, game_id=game_id))

        arena.hub.tables.pacing.slice_seconds = 0
        paced, paced_turns = await turns_while(lambda: reader.request(ts.Replay, game_id=game_id))
        assert isinstance(paced, tc.ReplayReply) and paced.model_dump(exclude={"id"}) == whole.model_dump(exclude={"id"})
        assert unpaced_turns < CHUNK, "unpaced, the rebuild gave way only at its reads"
        assert paced_turns >= len(paced.diffs) + (DRAWS + 1) // CHUNK, "paced, after each chunk of the load and each diff"

        codec = codec_for(subprotocol)
        unnumbered_request = codec.encode_data({"type": "replay", "game_id": game_id})
        await reader.send_raw(unnumbered_request.decode() if codec.text else unnumbered_request)
        unnumbered = await reader.wait_for(lambda message: message.type == "replay" and message.id is None)
        assert unnumbered.model_dump() == paced.model_dump(exclude={"id"}), "a request without an id gets the page without one"
        for frame in reader.raw[-2:]:
            sent = frame.encode() if isinstance(frame, str) else frame
            assert sent == codec.encode(tc.ReplayReply.model_validate(codec.decode_reply(frame).model_dump())), (
                "the page sent as plain data is the model's very encoding, with or without an id"
            )


async def test_a_watch_that_loads_a_long_game_gives_way_and_sees_the_same_game() -> None:
    async with MemoryArena(make_settings()) as arena:
        game_id = await long_game(arena)
        arena.hub.tables.pacing.slice_seconds = 0
        watcher = await arena.client()
        snapshot, turns = await turns_while(lambda: watcher.request(ts.Watch, game_id=game_id))
        assert isinstance(snapshot, tc.Snapshot) and snapshot.seq == DRAWS + 1 and snapshot.status == "resigned"
        assert turns >= (DRAWS + 1) // CHUNK
        stored = await arena.store.load_session(game_id)
        assert stored is not None and arena.hub.tables.rooms[game_id].session.view == Session.replay(*stored).view


async def test_a_board_reading_stored_attempts_gives_way_and_reads_them_whole() -> None:
    async with MemoryArena(make_settings()) as arena:
        game_id = await long_game(arena)
        replayed = ReplayedSessions(arena.store, Pacing(0))
        sessions, turns = await turns_while(lambda: replayed.sessions([game_id]))
        assert turns >= (DRAWS + 1) // CHUNK
        assert len(sessions[game_id].log) == DRAWS + 1 and sessions[game_id].status == "resigned"


async def test_a_board_of_many_short_attempts_gives_way_across_them_not_per_attempt() -> None:
    """Each attempt alone fits in a slice; a hundred of them would not, so
    one read of many logs keeps one pace.  The clock here moves a
    millisecond each time it is read, and a slice is 2.5 of them."""
    readings = iter(range(1_000_000))
    async with MemoryArena(make_settings()) as arena:
        player = await arena.client()
        await player.hello(name="ann")
        games = []
        for deal in range(1, 11):
            started, _ = await player.new_game(deal=deal, options={"draw": 3})
            await player.request(ts.Move, game_id=started.game_id, move="draw")
            games.append(started.game_id)
        unpaced = ReplayedSessions(arena.store, Pacing(float("inf")))
        _, reads_turns = await turns_while(lambda: unpaced.sessions(games))
        replayed = ReplayedSessions(arena.store, Pacing(0.0025, lambda: next(readings) / 1000))
        sessions, turns = await turns_while(lambda: replayed.sessions(games))
        assert sorted(sessions) == sorted(games)
        assert turns >= reads_turns + 10 // 3, "gave way every few attempts, though none is a chunk long"
