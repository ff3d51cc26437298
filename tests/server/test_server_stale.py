"""Stale and repeated actions: an action carrying a ``seq`` that is not the
game's is refused (``stale_state``) and changes nothing.

In memory over both codecs (``tests.server.arena_memory``): the refusal
is the hub's rule; the client library's own use of ``seq`` is checked
against a real server through its own connections.  "Nothing changed"
is checked where it would show: the store's log, and a fresh snapshot
compared with the one before the refusal.  The two tabs are two
connections of one player (the second says hello with the first's token).
"""

from __future__ import annotations

from tests.server.arena_memory import MemoryArena

import asyncio
from typing import Any

from tests.server.arena_wire import RecordingClient

from client import ArenaClient, StaleState
from protocol import ErrorCode, ServerMessage
from protocol import to_client as tc
from protocol import to_server as ts
from server.transport.app import ArenaServer
from server.storage.base import Store

ACTIONS: tuple[tuple[type[ts.GameAction], dict[str, Any]], ...] = (
    (ts.Move, {"move": "draw"}),
    (ts.AutoMove, {"src": "t1"}),
    (ts.Undo, {}),
    (ts.Redo, {}),
    (ts.Hint, {}),
    (ts.Finish, {}),
    (ts.Restart, {}),
    (ts.Resign, {}),
)


def _other(subprotocol: str) -> str:
    return "arena.v1.json" if subprotocol == "arena.v1.msgpack" else "arena.v1.msgpack"


async def _log_length(store: Store, game_id: str) -> int:
    loaded = await store.load_session(game_id)
    assert loaded is not None
    return len(loaded[1])


async def _state(client: RecordingClient, game_id: str) -> dict[str, Any]:
    """The game as a fresh snapshot shows it, without the clock's reading."""
    snapshot = await client.request(ts.Resync, game_id=game_id)
    assert snapshot.type == "snapshot", snapshot
    return snapshot.model_dump(exclude={"id": True, "clock": {"elapsed_ms"}})


async def _playing(arena: MemoryArena, subprotocol: str) -> tuple[RecordingClient, str]:
    """A player and the id of its new WordLink game (deal 1, draw 1) at seq 0."""
    player = await arena.client(subprotocol)
    await player.hello()
    started, snapshot = await player.new_game(deal=1, options={"draw": 1})
    assert snapshot.seq == 0
    return player, started.game_id


def _stale(reply: ServerMessage, game_id: str) -> tc.Error:
    """``reply`` checked to be the stale-state refusal, for more checks."""
    assert reply.type == "error" and reply.code == ErrorCode.STALE_STATE, reply
    assert reply.game_id == game_id and "nothing was done" in reply.message
    return reply


async def test_every_action_with_an_old_seq_is_refused_and_changes_nothing(
    arena: MemoryArena, subprotocol: str
) -> None:
    player, game_id = await _playing(arena, subprotocol)
    drawn = await player.request(ts.Move, game_id=game_id, move="draw", seq=0)
    assert drawn.type == "diff" and drawn.seq == 1, drawn
    before = await _state(player, game_id)

    for kind, fields in ACTIONS:
        _stale(await player.request(kind, game_id=game_id, seq=0, **fields), game_id)

    assert await _state(player, game_id) == before
    assert await _log_length(arena.store, game_id) == 1
    assert not [m for m in player.received if m.type in ("hint", "game_over", "finish")]


async def test_a_seq_ahead_of_the_game_is_refused_the_same_way(
    arena: MemoryArena, subprotocol: str
) -> None:
    player, game_id = await _playing(arena, subprotocol)
    before = await _state(player, game_id)
    refusal = _stale(await player.request(ts.Move, game_id=game_id, move="draw", seq=5), game_id)
    assert "never reached" in refusal.message and "at seq 0" in refusal.message
    assert await _state(player, game_id) == before
    assert await _log_length(arena.store, game_id) == 0


async def test_two_tabs_drawing_at_once_draw_once(arena: MemoryArena, subprotocol: str) -> None:
    first, game_id = await _playing(arena, subprotocol)
    second = await arena.client(_other(subprotocol))
    await second.hello(token=first.token)
    seen = await second.wait_for(lambda m: m.type == "snapshot" and m.game_id == game_id)
    assert seen.seq == 0

    tabs = (first, second)
    ids = [tab.next_id() for tab in tabs]
    await asyncio.gather(
        *(tab.send(ts.Move(id=request_id, game_id=game_id, move="draw", seq=0)) for tab, request_id in zip(tabs, ids))
    )
    replies = [await tab.wait_for(lambda m, r=request_id: m.id == r) for tab, request_id in zip(tabs, ids)]

    assert sorted(reply.type for reply in replies) == ["diff", "error"], replies
    loser = tabs[[reply.type for reply in replies].index("error")]
    error = replies[tabs.index(loser)]
    _stale(error, game_id)
    applied = next(m for m in loser.received if m.type == "diff" and m.seq == 1)
    assert loser.received.index(applied) < loser.received.index(error), "the diff the loser lacked comes first"
    assert await _log_length(arena.store, game_id) == 1
    assert (await _state(first, game_id))["counters"]["moves"] == 1


async def test_a_retried_move_after_a_lost_connection_applies_nothing(
    arena: MemoryArena, subprotocol: str
) -> None:
    player, game_id = await _playing(arena, subprotocol)
    acknowledged = await player.request(ts.Move, game_id=game_id, move="draw", seq=0)
    assert acknowledged.type == "diff" and acknowledged.seq == 1
    await player.close()

    again = await arena.client(subprotocol)
    await again.hello(token=player.token)
    await again.wait_for(lambda m: m.type == "snapshot" and m.game_id == game_id and m.seq == 1)
    before = await _state(again, game_id)
    _stale(await again.request(ts.Move, game_id=game_id, move="draw", seq=0), game_id)
    assert await _state(again, game_id) == before
    assert await _log_length(arena.store, game_id) == 1


async def test_actions_at_the_current_seq_and_without_seq_apply(
    arena: MemoryArena, subprotocol: str
) -> None:
    player, game_id = await _playing(arena, subprotocol)
    seq = 0
    for kind, fields in ((ts.Move, {"move": "draw"}), (ts.Undo, {}), (ts.Redo, {}), (ts.Restart, {})):
        reply = await player.request(kind, game_id=game_id, seq=seq, **fields)
        assert reply.type == "diff" and reply.seq == seq + 1, reply
        seq = reply.seq
    hint = await player.request(ts.Hint, game_id=game_id, seq=seq)
    assert hint.type == "hint", hint
    seq += 1
    nothing = await player.request(ts.AutoMove, game_id=game_id, src="fs", seq=seq)
    assert nothing.type == "ack", nothing
    older_client = await player.request(ts.Move, game_id=game_id, move="draw")
    assert older_client.type == "diff" and older_client.seq == seq + 1
    resigned = await player.request(ts.Resign, game_id=game_id, seq=seq + 1)
    assert resigned.type == "diff" and resigned.status == "resigned"
    assert await _log_length(arena.store, game_id) == seq + 2


async def test_seq_is_a_field_of_actions_only(arena: MemoryArena, subprotocol: str) -> None:
    player, game_id = await _playing(arena, subprotocol)
    for number, frame in enumerate(
        ({"type": "move", "game_id": game_id, "move": "draw", "seq": -1},
         {"type": "watch", "game_id": game_id, "seq": 0}),
        start=100,
    ):
        await player.send_raw(player.codec.encode_data({**frame, "id": number}))
        refused = await player.wait_for(lambda m, n=number: m.id == n)
        assert refused.type == "error" and refused.code == ErrorCode.BAD_MESSAGE and "seq" in refused.message
    assert await _log_length(arena.store, game_id) == 0


async def test_the_client_library_sends_the_seq_of_its_mirror(server: ArenaServer, subprotocol: str) -> None:
    """Two tabs through ``client``: the second drops every diff, so its
    mirror stays at the first state; its draw is refused, not applied.
    A retry with the first try's ``seq`` is refused too; the mirror's
    current ``seq`` (the default) applies."""

    def no_diffs(message: ServerMessage) -> bool:
        return message.type != "diff"

    async with ArenaClient(server.url, subprotocol=subprotocol) as first:
        game = await first.new_game("klondike", deal=1, options={"draw": 1})
        async with ArenaClient(
            server.url, subprotocol=_other(subprotocol), token=first.token, message_filter=no_diffs
        ) as second:
            behind = second.games[game.game_id]
            await behind.wait_until(lambda mirror: mirror.ready, 5)
            first_try = game.seq
            await first.move(game.game_id, "draw")
            assert game.seq == 1 and behind.seq == 0

            refused = await _raises(second.move(game.game_id, "draw"))
            assert refused.code == ErrorCode.STALE_STATE and refused.game_id == game.game_id
            retried = await _raises(first.move(game.game_id, "draw", seq=first_try))
            assert isinstance(retried, StaleState)
            assert await _log_length(server.store, game.game_id) == 1

            assert (await first.undo(game.game_id)).seq == 2
            await first.hint(game.game_id)
            assert game.seq == 3 and game.counters["hints"] == 1
            assert await _log_length(server.store, game.game_id) == 3


async def _raises(request: Any) -> StaleState:
    try:
        await request
    except StaleState as refused:
        return refused
    raise AssertionError("the request was not refused with stale_state")
