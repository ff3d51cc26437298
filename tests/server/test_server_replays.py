"""Replays through the protocol: a finished game, step by step, as its
player and its watchers saw it (``server.games.replays``)."""

from __future__ import annotations

import random
from typing import Any, AsyncIterator

import pytest
from tests.server.arena_memory import MemoryArena
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import Mirror, RecordingClient

import engine
from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts

DEAL = 7
RECYCLE = ["draw"] * 25
"""24 draws and a recycle: the stock goes round once, turning up every card."""


def _line(moves: int) -> list[str]:
    """The first legal move, ``moves`` times (tableau and foundation moves
    of deal 7 as well as draws, so cards turn face up on the tableau)."""
    game = engine.new_game("klondike", DEAL)
    line: list[str] = []
    while len(line) < moves and (legal := game.legal_moves()):
        line.append(str(game.play(legal[0])))
    return line


async def _played(arena: MemoryArena, subprotocol: str, moves: list[str]) -> tuple[RecordingClient, RecordingClient, str, list[Any]]:
    """A game played (with an undo and a redo) and resigned while a
    spectator watched it; the player, the spectator, its id and the live
    diffs the spectator received, in order."""
    player = await arena.client(subprotocol)
    await player.hello()
    started, _ = await player.new_game(deal=DEAL)
    game_id = started.game_id
    spectator = await arena.client(subprotocol)
    await spectator.request(ts.Watch, game_id=game_id)
    for move in moves[:1]:
        await player.request(ts.Move, game_id=game_id, move=move)
    await player.request(ts.Undo, game_id=game_id)
    await player.request(ts.Redo, game_id=game_id)
    for move in moves[1:]:
        await player.request(ts.Move, game_id=game_id, move=move)
    await player.request(ts.Resign, game_id=game_id)
    await spectator.wait_for(lambda m: m.type == "game_over")
    live = [m for m in spectator.received if m.type == "diff"]
    return player, spectator, game_id, live


async def _whole_replay(client: RecordingClient, game_id: str) -> tuple[tc.Snapshot, list[tc.Diff], list[tc.ReplayReply]]:
    """Every page of a replay: the first start, all the diffs, the pages."""

    async def page(**fields: Any) -> tc.ReplayReply:
        reply = await client.request(ts.Replay, game_id=game_id, **fields)
        assert reply.type == "replay", reply
        return reply

    pages = [await page()]
    while (seq := pages[-1].start.seq + len(pages[-1].diffs)) < pages[-1].last_seq:
        pages.append(await page(from_seq=seq))
    return pages[0].start, [diff for page in pages for diff in page.diffs], pages


async def test_a_finished_game_replays_the_diffs_its_watchers_got_to_its_final_view(
    arena: MemoryArena, subprotocol: str
) -> None:
    """Step for step the replay is what a spectator saw live: the same
    diffs (ops, status, counters, clock), so no view of it names a card
    that lay face down at that step, and the last view is the final
    snapshot's."""
    player, spectator, game_id, live = await _played(arena, subprotocol, RECYCLE[:3] + _line(12))
    reply = await spectator.request(ts.Replay, game_id=game_id)
    assert reply.type == "replay" and reply.result == "resigned" and reply.last_seq == len(live)
    first = await (await arena.client(subprotocol)).request(ts.Replay, game_id=game_id)
    assert first.model_dump(exclude={"id"}) == reply.model_dump(exclude={"id"})
    assert reply.start.seq == 0 and reply.start.status == "playing"
    assert [d.model_dump() for d in reply.diffs] == [d.model_dump() for d in live]
    mirror = Mirror(reply.start)
    watched = Mirror(reply.start)
    for replayed, seen in zip(reply.diffs, live):
        mirror.apply(replayed)
        watched.apply(seen)
        assert mirror.view == watched.view, replayed.seq
    final = await player.request(ts.Watch, game_id=game_id)
    assert final.type == "snapshot" and mirror.seq == final.seq and mirror.view == final.view.model_dump()
    assert [d.action.kind for d in reply.diffs][:3] == ["move", "undo", "redo"]
    assert reply.diffs[-1].action.kind == "resign" and reply.diffs[-1].status == "resigned"


async def test_the_first_replayed_view_is_the_deal_face_down_as_dealt(arena: MemoryArena) -> None:
    player, _, game_id, _ = await _played(arena, "arena.v1.msgpack", RECYCLE[:2])
    reply = await player.request(ts.Replay, game_id=game_id)
    assert reply.type == "replay", reply
    start = reply.start
    dealt = engine.new_game("klondike", DEAL).view()
    dealt.pop("deal", None)
    assert start.view.model_dump() == dealt
    assert all(len(pile["up"]) <= 1 for name, pile in dealt["piles"].items() if name.startswith("t"))


async def test_a_live_game_is_not_replayed(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello()
    started, _ = await player.new_game(deal=DEAL)
    refused = await player.request(ts.Replay, game_id=started.game_id)
    assert refused.type == "error" and refused.code == ErrorCode.UNAVAILABLE and refused.reason == "game_live"
    missing = await player.request(ts.Replay, game_id="g_nothing")
    assert missing.type == "error" and missing.code == ErrorCode.GAME_NOT_FOUND


async def test_a_daily_deal_is_not_replayed_before_its_reveal(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello()
    started, _ = await player.new_game(deal="daily")
    await player.request(ts.Resign, game_id=started.game_id)
    refused = await player.request(ts.Replay, game_id=started.game_id)
    assert refused.type == "error" and refused.code == ErrorCode.UNAVAILABLE and refused.reason == "deal_secret"


async def test_a_line_longer_than_the_protocol_allows_is_refused_as_a_bad_message(arena: MemoryArena) -> None:
    """``line`` is bounded (``MAX_REPLAY_LINE``, the web client's own cut):
    one move more is refused, and the connection still answers a line within it."""
    player, _, game_id, _ = await _played(arena, "arena.v1.json", _line(3))
    too_long = ["draw"] * (ts.MAX_REPLAY_LINE + 1)
    await player.send_raw(player.codec.encode_data({"type": "replay", "id": 1, "game_id": game_id, "line": too_long}))
    refusal = await player.wait_for(lambda message: message.id == 1)
    assert refusal.type == "error" and refusal.code == ErrorCode.BAD_MESSAGE
    within = await player.request(ts.Replay, game_id=game_id, line=RECYCLE)
    assert within.type == "replay", within


SMALL_FRAMES = 2048


@pytest.fixture
async def small_frames_arena() -> AsyncIterator[MemoryArena]:
    async with MemoryArena(make_settings(max_frame_bytes=SMALL_FRAMES)) as running:
        yield running


@pytest.mark.parametrize("subprotocol", ["arena.v1.json", "arena.v1.msgpack"])
async def test_a_long_game_comes_in_pages_that_fit_the_frame_limit(
    small_frames_arena: MemoryArena, subprotocol: str
) -> None:
    player = await small_frames_arena.client(subprotocol)
    await player.hello()
    started, _ = await player.new_game(deal=DEAL)
    for move in RECYCLE * 2:
        await player.request(ts.Move, game_id=started.game_id, move=move)
    await player.request(ts.Resign, game_id=started.game_id)
    start, diffs, pages = await _whole_replay(player, started.game_id)
    assert len(pages) > 2 and all(page.diffs for page in pages)
    sizes = [len(player.raw[player.received.index(page)]) for page in pages]
    assert max(sizes) <= SMALL_FRAMES, sizes
    assert [d.seq for d in diffs] == list(range(1, len(RECYCLE) * 2 + 2))
    mirror = Mirror(start)
    for diff in diffs:
        mirror.apply(diff)
    for page in pages[1:]:
        assert page.start.view.model_dump() == _view_at(start, diffs, page.start.seq)
    final = await player.request(ts.Watch, game_id=started.game_id)
    assert final.type == "snapshot" and mirror.view == final.view.model_dump()
    past_end = await player.request(ts.Replay, game_id=started.game_id, from_seq=10_000)
    assert past_end.type == "replay" and past_end.diffs == [] and past_end.start.seq == past_end.last_seq == final.seq
    await player.close()


def _view_at(start: Any, diffs: list[Any], seq: int) -> dict[str, Any]:
    mirror = Mirror(start)
    for diff in diffs[:seq]:
        mirror.apply(diff)
    return mirror.view


async def test_a_line_from_a_replayed_position_is_played_there_and_an_illegal_one_refused(
    arena: MemoryArena, subprotocol: str
) -> None:
    """The analysis's winning line, stepped through without an engine in
    the client: the moves are played from ``from_seq``'s position."""
    moves = _line(8)
    player, _, game_id, _ = await _played(arena, subprotocol, moves)
    branch_at = 4
    game = engine.new_game("klondike", DEAL)
    for move in moves[: branch_at - 2]:
        game.play(move)
    variation = [str(game.play(legal)) for legal in game.legal_moves()[:1]] + ["draw", "draw"]
    for move in variation[1:]:
        game.play(move)
    reply = await player.request(ts.Replay, game_id=game_id, from_seq=branch_at, line=variation)
    assert reply.type == "replay" and reply.start.seq == branch_at and [d.action.text for d in reply.diffs] == variation
    assert reply.last_seq == branch_at + len(variation)
    mirror = Mirror(reply.start)
    for diff in reply.diffs:
        mirror.apply(diff)
    expected = game.view()
    expected.pop("deal", None)
    assert mirror.view == expected
    illegal = await player.request(ts.Replay, game_id=game_id, from_seq=0, line=["fs-t1"])
    assert illegal.type == "error" and illegal.code == ErrorCode.ILLEGAL_MOVE and illegal.reason == "empty_source"


async def test_any_replay_request_is_answered_by_a_page_or_a_stable_refusal(arena: MemoryArena) -> None:
    """Random seqs and lines (moves legal, illegal, unreadable, from any
    seq): a page whose diffs apply, or a refusal with a stable code, and
    never ``internal_error``."""
    player, _, game_id, _ = await _played(arena, "arena.v1.msgpack", _line(10))
    chooser = random.Random(16)
    words = [*_line(20), "draw", "w-f", "t9-t1", "fs-t1", "zz", "-", "t1-t2x99", "r-fs"]
    codes = set()
    for _ in range(80):
        line = [chooser.choice(words) for _ in range(chooser.randrange(4))]
        reply = await player.request(ts.Replay, game_id=game_id, from_seq=chooser.randrange(20), line=line)
        if reply.type == "error":
            codes.add(reply.code)
            continue
        mirror = Mirror(reply.start)
        for diff in reply.diffs:
            mirror.apply(diff)
    assert codes <= {ErrorCode.ILLEGAL_MOVE, ErrorCode.BAD_NOTATION}, codes
    assert codes, "some of the random lines are refused"
