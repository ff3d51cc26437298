"""Coming back: the token restores the player and its live games; resync
repairs a client that missed diffs."""

from __future__ import annotations

import pytest
from tests.server.arena_memory import MemoryArena
from tests.server.arena_wire import Mirror

from protocol import ErrorCode
from protocol import to_server as ts


async def test_a_player_who_reconnects_with_the_token_continues_the_same_game(arena: MemoryArena, subprotocol: str) -> None:
    first = await arena.client(subprotocol)
    await first.hello(name="returning")
    started, snapshot = await first.new_game(deal=21)
    last = (await first.play_first_legal(started.game_id, snapshot.legal, 3))[-1]
    await first.close()

    again = await arena.client(subprotocol)
    welcome = await again.hello(token=first.token)
    assert welcome.player_id == first.player_id and welcome.name == "returning"
    assert [g.game_id for g in welcome.games] == [started.game_id]
    resumed = await again.wait_for(lambda m: m.type == "snapshot" and m.game_id == started.game_id)
    assert resumed.seq == last.seq == 3
    assert resumed.counters == last.counters and resumed.legal == last.legal
    assert resumed.clock.started_ms == last.clock.started_ms
    going_on = await again.request(ts.Move, game_id=started.game_id, move=resumed.legal[0])
    assert going_on.type == "diff" and going_on.seq == 4


async def test_the_token_is_stored_only_as_a_hash(arena: MemoryArena) -> None:
    client = await arena.client()
    welcome = await client.hello()
    record = await arena.store.get_player(welcome.player_id)
    assert record is not None and record.token_hash != welcome.token and welcome.token not in repr(record)


async def test_a_name_can_change_on_hello(arena: MemoryArena) -> None:
    first = await arena.client()
    await first.hello(name="before")
    second = await arena.client()
    assert (await second.hello(token=first.token, name="after")).name == "after"


async def test_an_unknown_token_is_refused_and_the_connection_stays(arena: MemoryArena) -> None:
    client = await arena.client()
    refusal = await client.request(ts.Hello, token="not-a-token")
    assert refusal.type == "error" and refusal.code == ErrorCode.BAD_TOKEN
    assert (await client.request(ts.Ping)).type == "pong"


async def test_resync_after_a_gap_gives_the_current_state(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello()
    started, snapshot = await player.new_game(deal=9)
    spectator = await arena.client()
    mirror = Mirror(await spectator.request(ts.Watch, game_id=started.game_id))
    await player.play_first_legal(started.game_id, snapshot.legal, 4)
    diffs = [await spectator.wait_for(lambda m, n=n: m.type == "diff" and m.seq == n) for n in range(1, 5)]
    mirror.apply(diffs[0])
    with pytest.raises(AssertionError, match="gap"):
        mirror.apply(diffs[2])
    mirror = Mirror(await spectator.request(ts.Resync, game_id=started.game_id))
    assert mirror.seq == 4
    truth = Mirror(snapshot)
    for diff in diffs:
        truth.apply(diff)
    assert mirror.view == truth.view


async def test_a_disconnected_spectator_resyncs_at_the_current_position(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello()
    started, snapshot = await player.new_game(deal=9)
    spectator = await arena.client()
    await spectator.request(ts.Watch, game_id=started.game_id)
    await spectator.close()
    assert snapshot.legal, "the owner's snapshot lists the legal moves"
    reply = await player.request(ts.Move, game_id=started.game_id, move=snapshot.legal[0])
    back = await arena.client()
    fresh = await back.request(ts.Resync, game_id=started.game_id)
    assert fresh.type == "snapshot" and reply.type == "diff"
    assert fresh.seq == reply.seq and fresh.counters == reply.counters
