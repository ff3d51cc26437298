"""Spectators: every move, in order, the same bytes for everyone, read-only."""

from __future__ import annotations

import random

from tests.server.arena_memory import MemoryArena
from tests.server.arena_wire import Mirror, RecordingClient
from tests.server.arena_servers import make_settings

from protocol import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL, ErrorCode
from protocol import to_server as ts

MOVES = 40


async def _play_randomly(player: RecordingClient, game_id: str, legal: list[str], seed: int, count: int) -> list[str]:
    chooser = random.Random(seed)
    played = []
    for _ in range(count):
        move = chooser.choice(legal)
        reply = await player.request(ts.Move, game_id=game_id, move=move)
        assert reply.type == "diff", reply
        played.append(reply.action.text)
        if reply.status != "playing" or not reply.legal:
            break
        legal = reply.legal
    return played


async def test_spectators_see_every_move_in_order(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello()
    started, snapshot = await player.new_game(deal=11)
    game_id = started.game_id
    spectators = [await arena.client(JSON_SUBPROTOCOL), await arena.client(MSGPACK_SUBPROTOCOL), await arena.client(None)]
    mirrors = [Mirror(await s.request(ts.Watch, game_id=game_id)) for s in spectators]
    assert snapshot.legal, "the owner's snapshot lists the legal moves"

    played = await _play_randomly(player, game_id, snapshot.legal, seed=5, count=MOVES)

    truth = arena.hub.rooms[game_id].session.view
    for spectator, mirror in zip(spectators, mirrors):
        diffs = [await spectator.wait_for(lambda m, n=n: m.type == "diff" and m.seq == n) for n in range(1, len(played) + 1)]
        assert [d.action.text for d in diffs] == played
        for diff in diffs:
            mirror.apply(diff)
        assert mirror.view == truth
        assert [m.seq for m in spectator.received if m.type == "diff"] == list(range(1, len(played) + 1))


async def test_a_diff_is_encoded_once_per_codec_and_the_same_bytes_go_to_everyone(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello()
    started, snapshot = await player.new_game(deal=3)
    watchers = [await arena.client(protocol) for protocol in (JSON_SUBPROTOCOL, JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL)]
    for watcher in watchers:
        await watcher.request(ts.Watch, game_id=started.game_id)
    assert snapshot.legal, "the owner's snapshot lists the legal moves"
    await player.request(ts.Move, game_id=started.game_id, move=snapshot.legal[0])
    frames = []
    for watcher in watchers:
        diff = await watcher.next_of("diff")
        frames.append(watcher.raw[watcher.received.index(diff)])
    assert frames[0] == frames[1] and isinstance(frames[0], str)
    assert isinstance(frames[2], bytes) and frames[2] != frames[0].encode()


async def test_spectators_cannot_act(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello()
    started, snapshot = await player.new_game(deal=3)
    intruder = await arena.client()
    await intruder.hello(name="mallory")
    await intruder.request(ts.Watch, game_id=started.game_id)
    assert snapshot.legal, "the owner's snapshot lists the legal moves"
    for kind, fields in (
        (ts.Move, {"move": snapshot.legal[0]}),
        (ts.AutoMove, {"src": "t1"}),
        (ts.Undo, {}),
        (ts.Redo, {}),
        (ts.Hint, {}),
        (ts.Restart, {}),
        (ts.Resign, {}),
    ):
        refusal = await intruder.request(kind, game_id=started.game_id, **fields)
        assert refusal.type == "error" and refusal.code == ErrorCode.FORBIDDEN, refusal
    unchanged = await intruder.request(ts.Resync, game_id=started.game_id)
    assert unchanged.type == "snapshot" and unchanged.seq == 0 and unchanged.status == "playing"


async def test_anonymous_spectators_must_say_hello_before_acting(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello()
    started, _ = await player.new_game(deal=3)
    anonymous = await arena.client()
    assert (await anonymous.request(ts.Watch, game_id=started.game_id)).type == "snapshot"
    refusal = await anonymous.request(ts.Undo, game_id=started.game_id)
    assert refusal.type == "error" and refusal.code == ErrorCode.HELLO_REQUIRED


async def test_live_games_are_listed_for_spectators(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello(name="lister")
    kept, _ = await player.new_game(deal=4)
    ended, _ = await player.new_game(deal=5)
    await player.request(ts.Resign, game_id=ended.game_id)
    spectator = await arena.client()
    listed = await spectator.request(ts.ListGames, game="klondike")
    assert listed.type == "games", listed
    ids = [g.game_id for g in listed.games]
    assert kept.game_id in ids and ended.game_id not in ids
    line = listed.games[ids.index(kept.game_id)]
    assert line.owner.name == "lister" and line.title == "WordLink" and line.status == "playing"
    unknown = await spectator.request(ts.ListGames, game="no-such-game")
    assert unknown.type == "games" and unknown.games == []


async def test_unwatching_stops_the_diffs(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello()
    started, snapshot = await player.new_game(deal=3)
    spectator = await arena.client()
    await spectator.request(ts.Watch, game_id=started.game_id)
    assert (await spectator.request(ts.Unwatch, game_id=started.game_id)).type == "ack"
    assert snapshot.legal, "the owner's snapshot lists the legal moves"
    await player.request(ts.Move, game_id=started.game_id, move=snapshot.legal[0])
    await spectator.request(ts.Ping)
    assert not [m for m in spectator.received if m.type == "diff"]


async def test_a_connection_watches_a_bounded_number_of_games() -> None:
    async with MemoryArena(make_settings(watch_limit=2)) as arena:
        player = await arena.client()
        spectator = await arena.client()
        await player.hello()
        games = []
        for deal in range(1, 4):
            started, _ = await player.new_game(deal=deal)
            await player.request(ts.Unwatch, game_id=started.game_id)
            games.append(started.game_id)
        assert (await spectator.request(ts.Watch, game_id=games[0])).type == "snapshot"
        assert (await spectator.request(ts.Watch, game_id=games[1])).type == "snapshot"
        refusal = await spectator.request(ts.Watch, game_id=games[2])
        assert refusal.type == "error" and refusal.code == ErrorCode.FORBIDDEN and "unwatch" in refusal.message
        assert (await spectator.request(ts.Resync, game_id=games[1])).type == "snapshot"
        await spectator.request(ts.Unwatch, game_id=games[0])
        assert (await spectator.request(ts.Watch, game_id=games[2])).type == "snapshot"
