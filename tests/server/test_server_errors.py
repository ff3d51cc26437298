"""Every error code, each from a real request on a connection to the hub
(in memory: the adapter hands frames to the hub as they come, so what a
bad frame or request is answered with is the hub's rule); after every
error the connection stays open and nothing has changed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import AsyncIterator

import msgpack
import pytest
from tests.server.arena_memory import MemoryArena
from tests.server.arena_stores import FaultyStore
from tests.server.arena_wire import RecordingClient, json_frame
from tests.server.arena_servers import make_settings

from protocol import JSON_SUBPROTOCOL, MSGPACK, MSGPACK_SUBPROTOCOL, ErrorCode
from protocol import to_server as ts
from server.storage.base import StorageUnavailable


@pytest.fixture
async def arena() -> AsyncIterator[MemoryArena]:
    async with MemoryArena(make_settings(), store=FaultyStore()) as running:
        yield running


async def _still_open(client: RecordingClient) -> None:
    assert (await client.request(ts.Ping)).type == "pong"


JSON_GARBAGE = [
    ("not json", None),
    ("[1, 2]", None),
    ('{"id": 4}', 4),
    ('{"type": "fly", "id": "x"}', "x"),
    ('{"type": "move", "id": 5, "game_id": "g"}', 5),
    ('{"type": "ping", "id": 6, "extra": true}', 6),
    ('{"type": "new_game", "id": 7, "game": "klondike", "deal": "5"}', 7),
    ('{"type": "auto_move", "id": 8, "game_id": "g", "src": "t1", "count": 0}', 8),
    (b"\xff\xfe", None),
    ("[" * 5000 + "]" * 5000, None),
]


@pytest.mark.parametrize(("frame", "request_id"), JSON_GARBAGE)
async def test_a_malformed_json_frame_gets_bad_message_and_the_connection_stays(
    arena: MemoryArena, frame: str | bytes, request_id: object
) -> None:
    client = await arena.client(JSON_SUBPROTOCOL)
    await client.send_raw(frame)
    error = await client.next_of("error")
    assert error.code == ErrorCode.BAD_MESSAGE and error.id == request_id and error.message
    await _still_open(client)


MSGPACK_GARBAGE = [
    "a text frame",
    b"\xc1",
    msgpack.packb([1, 2]),
    msgpack.packb({"type": "watch"}),
    msgpack.packb({"type": "ping"}) + b"\x00",
    msgpack.packb({1: 2}),
]


@pytest.mark.parametrize("frame", MSGPACK_GARBAGE)
async def test_a_malformed_msgpack_frame_gets_bad_message_and_the_connection_stays(
    arena: MemoryArena, frame: str | bytes
) -> None:
    client = await arena.client(MSGPACK_SUBPROTOCOL)
    await client.send_raw(frame)
    assert (await client.next_of("error")).code == ErrorCode.BAD_MESSAGE
    await _still_open(client)


async def test_acting_before_hello_is_refused(arena: MemoryArena) -> None:
    client = await arena.client()
    refusal = await client.request(ts.NewGame, game="klondike")
    assert refusal.type == "error" and refusal.code == ErrorCode.HELLO_REQUIRED


async def test_hello_twice_is_forbidden(arena: MemoryArena) -> None:
    client = await arena.client()
    await client.hello()
    refusal = await client.request(ts.Hello)
    assert refusal.type == "error" and refusal.code == ErrorCode.FORBIDDEN


async def test_an_unknown_game_lists_the_games(arena: MemoryArena) -> None:
    client = await arena.client()
    await client.hello()
    refusal = await client.request(ts.NewGame, game="poker")
    assert refusal.type == "error" and refusal.code == ErrorCode.UNKNOWN_GAME and "klondike" in refusal.message


@pytest.mark.parametrize(
    "fields",
    [{"options": {"draw": 2}}, {"options": {"colour": "red"}}, {"deal": 0}, {"deal": -3}],
)
async def test_bad_options_and_deals_are_refused(arena: MemoryArena, fields: dict[str, object]) -> None:
    client = await arena.client()
    await client.hello()
    refusal = await client.request(ts.NewGame, game="klondike", **fields)
    assert refusal.type == "error" and refusal.code == ErrorCode.BAD_OPTION and refusal.message
    listed = await client.request(ts.ListGames)
    assert listed.type == "games" and listed.games == []


async def test_unparsable_move_text_is_bad_notation(arena: MemoryArena) -> None:
    client = await arena.client()
    await client.hello()
    started, _ = await client.new_game(deal=2)
    for text in ("zz-t1", "t1-", "t1-t2xq", "jump"):
        refusal = await client.request(ts.Move, game_id=started.game_id, move=text)
        assert refusal.type == "error" and refusal.code == ErrorCode.BAD_NOTATION, (text, refusal)
    bad_position = await client.request(ts.NewGame, game="klondike", position="klondike deal=1\nnonsense")
    assert bad_position.type == "error" and bad_position.code == ErrorCode.BAD_NOTATION


async def test_undo_with_nothing_to_undo_and_spent_hints_are_unavailable(arena: MemoryArena) -> None:
    client = await arena.client()
    await client.hello()
    started, _ = await client.new_game(deal=2, options={"hint_limit": 0})
    undo = await client.request(ts.Undo, game_id=started.game_id)
    assert undo.type == "error" and (undo.code, undo.reason) == (ErrorCode.UNAVAILABLE, "nothing_to_undo")
    hint = await client.request(ts.Hint, game_id=started.game_id)
    assert hint.type == "error" and (hint.code, hint.reason) == (ErrorCode.UNAVAILABLE, "hint_limit")


async def test_an_unknown_game_id_is_not_found(arena: MemoryArena) -> None:
    client = await arena.client()
    await client.hello()
    for kind in (ts.Watch, ts.Resync, ts.Undo):
        refusal = await client.request(kind, game_id="g_nothing_here")
        assert refusal.type == "error" and refusal.code == ErrorCode.GAME_NOT_FOUND and refusal.game_id == "g_nothing_here"


async def test_positions_are_forbidden_unless_the_server_allows_them() -> None:
    async with MemoryArena(make_settings(allow_positions=False), store=FaultyStore()) as strict:
        client = await strict.client()
        await client.hello()
        refusal = await client.request(ts.NewGame, game="klondike", position="klondike deal=1\nmoves=0\n")
        assert refusal.type == "error" and refusal.code == ErrorCode.FORBIDDEN


@pytest.mark.parametrize(
    ("failure", "code"),
    [(StorageUnavailable("redis is down"), ErrorCode.STORAGE_UNAVAILABLE), (RuntimeError("a bug"), ErrorCode.INTERNAL_ERROR)],
    ids=["storage_unavailable", "unexpected"],
)
async def test_a_failing_store_acknowledges_nothing_and_the_game_goes_on_once_it_recovers(
    arena: MemoryArena, failure: Exception, code: ErrorCode
) -> None:
    """An unexpected failure says no more than ``internal_error``: its
    message is for the logs, not the player."""
    client = await arena.client()
    await client.hello()
    started, snapshot = await client.new_game(deal=2)
    store = arena.store
    assert isinstance(store, FaultyStore)
    assert snapshot.legal, "the owner's snapshot lists the legal moves"
    store.failure = failure
    refusal = await client.request(ts.Move, game_id=started.game_id, move=snapshot.legal[0])
    assert refusal.type == "error" and refusal.code == code and "bug" not in refusal.message
    store.failure = None
    unchanged = await client.request(ts.Resync, game_id=started.game_id)
    assert unchanged.type == "snapshot" and unchanged.seq == 0 and unchanged.view == snapshot.view and unchanged.counters == snapshot.counters
    moved = await client.request(ts.Move, game_id=started.game_id, move=snapshot.legal[0])
    assert moved.type == "diff" and moved.seq == 1
    stored = await store.load_session(started.game_id)
    assert stored is not None and len(stored[1]) == 1


def test_every_error_code_is_provoked_by_some_server_test() -> None:
    tests = Path(__file__).parents[1]
    sources = " ".join(path.read_text(encoding="utf-8") for path in [*tests.glob("server/test_*.py"), *tests.glob("races/test_*.py")])
    used = set(re.findall(r"ErrorCode\.([A-Z_]+)", sources))
    missing = [code.name for code in ErrorCode if code.name not in used]
    assert not missing, f"no server test provokes: {missing}"


async def test_json_frames_of_any_object_decode_the_same_as_models(arena: MemoryArena) -> None:
    client = await arena.client(JSON_SUBPROTOCOL)
    await client.send_raw(json_frame({"type": "ping", "id": "raw"}))
    assert (await client.wait_for(lambda m: m.id == "raw")).type == "pong"


@pytest.mark.parametrize("name", ["", "   ", "tab\there", "x" * 33])
async def test_a_display_name_must_be_printable_and_short(arena: MemoryArena, name: str) -> None:
    client = await arena.client()
    await client.send_raw(MSGPACK.encode_data({"type": "hello", "id": 1, "name": name}))
    assert (await client.next_of("error")).code == ErrorCode.BAD_MESSAGE
    assert (await client.hello(name=" spaced ")).name == "spaced"
