"""The friends' board in memory: who is on it and in which state, the live
updates (a start and a finish at once, progress at most once a second,
only to the connections watching that board), and what an attacker
learns from it while the deal is secret: counts, never a card, a pile or
a move, in either codec.
"""

from __future__ import annotations

import json
from typing import Any

from tests.server.arena_clock import FakeClock, ManualScheduler
from tests.server.arena_leaks import assert_counts_only, decoded
from tests.server.arena_memory import MemoryArena, MemoryClient
from tests.server.arena_servers import make_settings
from tests.server.test_friends import befriend, player

from protocol import JSON, JSON_SUBPROTOCOL, MSGPACK, ErrorCode
from protocol import friends_board as pb
from protocol import leagues as pl
from protocol import to_client as tc
from protocol import to_server as ts
from server.deals.daily import ATTEMPT_KIND, utc_day
from server.games.leaderboards import percentile
from server.model.fair_play import board_name
from server.model.records import Action, SessionHeader
from server.model.session import Session
from server.net.outbox import with_id
from server.social.friends_board import not_started, ranked_rows, row_of
from server.storage.social import SocialRecords

KLONDIKE: dict[str, Any] = {"game": "klondike", "options": {"draw": 1}}


async def board(client: MemoryClient, watch: bool = True) -> pb.FriendsBoardReply:
    reply = await client.request(pb.FriendsBoard, watch=watch, **KLONDIKE)
    assert isinstance(reply, pb.FriendsBoardReply), reply
    return reply


def by_name(reply: pb.FriendsBoardReply) -> dict[str, pb.FriendsBoardRow]:
    return {row.player.name: row for row in reply.rows}


def updates(client: MemoryClient) -> list[pb.FriendsBoardUpdate]:
    return [message for message in client.received if isinstance(message, pb.FriendsBoardUpdate)]


async def friends(arena: MemoryArena, *names: str) -> list[MemoryClient]:
    """Players, the first a friend of each of the others."""
    clients = [await player(arena, name) for name in names]
    for other in clients[1:]:
        await befriend(clients[0], other)
    return clients


async def test_the_board_lists_you_and_your_friends_with_their_attempts(arena: MemoryArena) -> None:
    ann, bob, cat = await friends(arena, "ann", "bob", "cat")
    stranger = await player(arena, "eve")
    started, _ = await ann.new_game(deal="daily", **KLONDIKE)
    await ann.request(ts.Move, game_id=started.game_id, move="draw")
    resigned, _ = await cat.new_game(deal="daily", **KLONDIKE)
    await cat.request(ts.Resign, game_id=resigned.game_id)
    await stranger.new_game(deal="daily", **KLONDIKE)
    reply = await board(ann)
    rows = by_name(reply)
    assert set(rows) == {"ann", "bob", "cat"}, "a stranger's attempt is not on it"
    assert rows["ann"].me and rows["ann"].state == "playing" and rows["ann"].actions == 1
    assert rows["ann"].cards_home == 0 and rows["ann"].result is None
    assert rows["cat"].state == "finished" and rows["cat"].result == "resigned" and rows["cat"].place is None
    assert rows["bob"].state == "not_started" and rows["bob"].actions is None
    assert [row.player.name for row in reply.rows] == ["ann", "cat", "bob"]
    assert (reply.variant, reply.game) == ("draw=1,scoring=standard", "klondike")
    bobs = by_name(await board(bob))
    assert set(bobs) == {"ann", "bob"} and not bobs["ann"].me and bobs["bob"].me


async def test_a_board_needs_hello_and_a_daily_variant(arena: MemoryArena) -> None:
    anonymous = await arena.client()
    refused = await anonymous.request(pb.FriendsBoard, **KLONDIKE)
    assert refused.type == "error" and refused.code == ErrorCode.HELLO_REQUIRED
    ann = await player(arena, "ann")
    no_daily = await ann.request(pb.FriendsBoard, game="klondike", options={"draw": 1, "scoring": "vegas"})
    assert no_daily.type == "error" and no_daily.code == ErrorCode.BAD_OPTION


def test_winners_are_placed_by_time_then_actions() -> None:
    def row(name: str, **fields: Any) -> dict[str, Any]:
        return pb.FriendsBoardRow(player={"player_id": name, "name": name}, **fields).model_dump(mode="json")

    rows = ranked_rows([
        row("idle", state="not_started"),
        row("slow", state="finished", result="won", time_ms=90_000, actions=80),
        row("lost", state="finished", result="lost", time_ms=10_000, actions=10),
        row("busy", state="playing", time_ms=5_000, actions=5, cards_home=3),
        row("tie", state="finished", result="won", time_ms=60_000, actions=70),
        row("fast", state="finished", result="won", time_ms=60_000, actions=50),
        row("new", state="playing", time_ms=1_000, actions=1, cards_home=0),
    ])
    assert [(row["player"]["name"], row["place"]) for row in rows] == [
        ("fast", 1), ("tie", 2), ("slow", 3), ("busy", None), ("new", None), ("lost", None), ("idle", None),
    ]


async def test_updates_reach_watchers_at_once_for_a_start_and_a_finish_and_once_a_second_for_progress() -> None:
    clock = FakeClock()
    scheduler = ManualScheduler(clock)
    async with MemoryArena(make_settings(), clock=clock, scheduler=scheduler) as arena:
        ann, bob, cat = await friends(arena, "ann", "bob", "cat")
        stranger = await player(arena, "eve")
        await board(bob)
        await board(cat, watch=False)
        await board(stranger)
        started, _ = await ann.new_game(deal="daily", **KLONDIKE)
        first = await bob.wait_for(lambda m: m.type == "friends_board_update")
        assert first.row.state == "playing" and first.row.actions == 0 and first.row.player.name == "ann"
        for _ in range(3):
            clock.ms += 100
            await ann.request(ts.Move, game_id=started.game_id, move="draw")
        scheduler.advance(1000)
        second = await bob.wait_for(lambda m: m.type == "friends_board_update" and m.row.actions == 3)
        assert second.row.state == "playing"
        await ann.request(ts.Resign, game_id=started.game_id)
        final = await bob.wait_for(lambda m: m.type == "friends_board_update" and m.row.state == "finished")
        assert final.row.result == "resigned"
        assert [update.row.actions for update in updates(bob)] == [0, 3, 3], "progress within a second waits for its end"
        assert not updates(cat), "a board asked without watch is not updated"
        assert not updates(stranger), "a stranger hears nothing of a player's daily"
        assert [update.row.state for update in updates(ann)] == [], "ann watches no board"


async def test_a_watcher_of_another_variant_is_not_told(arena: MemoryArena) -> None:
    ann, bob, cat = await friends(arena, "ann", "bob", "cat")
    reply = await bob.request(pb.FriendsBoard, game="klondike", options={"draw": 3})
    assert reply.type == "friends_board"
    await board(cat)
    started, _ = await ann.new_game(deal="daily", **KLONDIKE)
    await ann.request(ts.Resign, game_id=started.game_id)
    await cat.wait_for(lambda m: m.type == "friends_board_update" and m.row.state == "finished")
    assert not updates(bob), "told in the same step as cat, had bob watched this board"


async def test_a_friend_on_another_process_is_told_and_reads_the_same_board() -> None:
    async with MemoryArena(make_settings()) as here:
        async with MemoryArena(make_settings(), store=here.store) as there:
            ann = await player(here, "ann")
            bob = await player(there, "bob")
            await befriend(ann, bob)
            await board(bob)
            started, _ = await ann.new_game(deal="daily", **KLONDIKE)
            await ann.request(ts.Resign, game_id=started.game_id)
            told = await bob.wait_for(lambda m: m.type == "friends_board_update" and m.row.state == "finished")
            assert told.row.player.name == "ann"
            assert by_name(await board(bob))["ann"].result == "resigned"


async def test_a_friend_who_blocked_or_removed_you_is_off_your_board_at_once(arena: MemoryArena) -> None:
    """Only the blocker's side is written yet (a crash between the two
    writes on a Cluster): the blocked player neither reads the blocker's
    attempt nor hears of it."""
    ann, bob, cat = await friends(arena, "ann", "bob", "cat")
    records = SocialRecords(arena.store)
    await records.put_edge(bob.player_id, ann.player_id, "blocked", 1, None)
    await records.drop_edge(cat.player_id, ann.player_id)
    assert set(by_name(await board(ann))) == {"ann"}
    dan = await player(arena, "dan")
    await befriend(ann, dan)
    await board(dan)
    started, _ = await bob.new_game(deal="daily", **KLONDIKE)
    await bob.request(ts.Resign, game_id=started.game_id)
    await ann.new_game(deal="daily", **KLONDIKE)
    await dan.wait_for(lambda m: m.type == "friends_board_update" and m.row.player.name == "ann")
    await ann.wait_for(lambda m: m.type == "friends_board_update" and m.row.player.name == "ann")
    assert [update.row.player.name for update in updates(ann)] == ["ann"], "bob's start and finish came first, unheard"


async def test_no_frame_of_a_friends_board_names_a_card_a_pile_or_a_move(arena: MemoryArena, subprotocol: str) -> None:
    """Ann plays the secret daily move by move while Bob, her friend,
    watches her on his board and asks for it, and for the global board with
    the attempts still playing, after each move; every frame of his boards
    and updates, as bytes decoded, holds counts only."""
    ann, = await friends(arena, "ann")
    bob = await arena.client(subprotocol)
    await bob.hello(name="bob")
    await befriend(ann, bob)
    await board(bob)
    started, snapshot = await ann.new_game(deal="daily", **KLONDIKE)
    piles = set(snapshot.view.piles)
    played: set[str] = set()
    legal = snapshot.legal or []
    for _ in range(12):
        move = next(text for text in legal if text != "draw") if any(text != "draw" for text in legal) else "draw"
        diff = await ann.request(ts.Move, game_id=started.game_id, move=move)
        assert diff.type == "diff", diff
        played.add(move)
        legal = diff.legal or []
        await board(bob)
        assert (await bob.request(ts.Leaderboard, playing=True, **KLONDIKE)).type == "leaderboard"
    await ann.request(ts.Resign, game_id=started.game_id)
    await bob.wait_for(lambda m: m.type == "friends_board_update" and m.row.state == "finished")
    await board(bob)
    board_frames = [frame for frame in decoded(bob.raw) if frame["type"] in ("friends_board", "friends_board_update", "leaderboard")]
    assert len(board_frames) >= 26
    assert any(frame.get("playing") for frame in board_frames), "the global board showed ann playing"
    assert_counts_only(board_frames, piles, played)


async def test_the_global_board_says_where_you_stand_far_below_its_page(arena: MemoryArena) -> None:
    ann = await player(arena, "ann")
    day = utc_day(arena.hub.clock()).isoformat()
    board_id = board_name("klondike", "draw=1,scoring=standard", day)
    for n in range(39):
        await arena.store.submit(board_id, f"p_other{n:02}", 60_000 + 1_000 * n, 100, arena.hub.clock(), keep_seconds=3_600)
    await arena.store.submit(board_id, ann.player_id, 60_000 + 1_000 * 29 + 500, 100, arena.hub.clock(), keep_seconds=3_600)
    page = await ann.request(ts.Leaderboard, limit=5, **KLONDIKE)
    assert page.type == "leaderboard" and len(page.entries) == 5
    assert page.me is not None and page.me.rank == 31 and (page.total, page.me_percentile) == (40, 25), page
    anonymous = await (await arena.client()).request(ts.Leaderboard, limit=5, **KLONDIKE)
    assert anonymous.type == "leaderboard" and anonymous.me is None and anonymous.me_percentile is None
    assert anonymous.total == 40


def test_a_percentile_is_the_share_of_wins_yours_is_at_least_as_good_as() -> None:
    assert [percentile(rank, 100) for rank in (1, 2, 50, 100)] == [100, 99, 51, 1]
    assert percentile(1, 1) == 100 and percentile(3, 3) == 33


async def test_the_global_board_lists_attempts_still_playing_after_the_wins(arena: MemoryArena) -> None:
    ann, bob, cat = await player(arena, "ann"), await player(arena, "bob"), await player(arena, "cat")
    anns, _ = await ann.new_game(deal="daily", **KLONDIKE)
    await ann.request(ts.Move, game_id=anns.game_id, move="draw")
    bobs, _ = await bob.new_game(deal="daily", **KLONDIKE)
    await bob.request(ts.Resign, game_id=bobs.game_id)
    await cat.new_game(deal="daily", **KLONDIKE)
    page = await ann.request(ts.Leaderboard, playing=True, **KLONDIKE)
    assert page.type == "leaderboard" and page.entries == []
    assert [(row.name, row.actions, row.cards_home) for row in page.playing] == [("cat", 0, 0), ("ann", 1, 0)]
    assert await arena.store.get_document(ATTEMPT_KIND, bobs.game_id) is None, "an ended attempt leaves the index"
    plain = await ann.request(ts.Leaderboard, **KLONDIKE)
    assert plain.type == "leaderboard" and plain.playing == []
    assert "playing" not in json.dumps(plain.model_dump(mode="json", exclude_none=False)), "absent unless asked"


def test_rows_and_a_reply_built_as_data_encode_byte_for_byte_as_their_models() -> None:
    """Boards skip building models (``friends_board.Row``): the rows and the
    reply must still be, key for key and byte for byte, what the models give."""
    owner = tc.Owner(player_id="p_ann", name="Ann")
    header = SessionHeader(game_id="g_1", game="klondike", deal=3, options={"draw": 1}, owner="p_ann", created_ms=1_000)
    playing = Session.replay(header, [Action("move", "draw", 2_000)])
    resigned = Session.replay(header, [Action("move", "draw", 2_000), Action("resign", "", 9_000)])
    built = [row_of(playing, owner, True, 5_000), row_of(resigned, owner, False, 99_000), not_started(owner, False)]
    for row in built:
        assert list(row.items()) == list(pb.FriendsBoardRow.model_validate(row).model_dump(mode="json").items())
    won = {**built[1], "result": "won"}
    rows = ranked_rows([*built, won])
    assert rows[0]["place"] == 1 and [row["state"] for row in rows] == ["finished", "playing", "finished", "not_started"]
    for request_id in (None, 7, "r-1"):
        data = with_id(request_id, {"type": "friends_board", "game": "klondike", "title": "WordLink", "variant": "v",
                                    "date": "2026-12-06", "rows": rows, "server_time": 5})
        for codec in (JSON, MSGPACK):
            assert codec.encode_data(data) == codec.encode(pb.FriendsBoardReply.model_validate(data))


async def test_a_board_sent_as_data_is_byte_for_byte_its_model_in_either_codec(arena: MemoryArena) -> None:
    ann, bob, cat = await friends(arena, "ann", "bob", "cat")
    json_ann = await arena.client(JSON_SUBPROTOCOL)
    await json_ann.hello(token=ann.token)
    playing, _ = await bob.new_game(deal="daily", **KLONDIKE)
    await bob.request(ts.Move, game_id=playing.game_id, move="draw")
    resigned, _ = await cat.new_game(deal="daily", **KLONDIKE)
    await cat.request(ts.Resign, game_id=resigned.game_id)
    league = await ann.request(pl.CreateLeague, name="Lunch", variants=[KLONDIKE])
    assert isinstance(league, pl.League)
    for member in (bob, cat):
        assert isinstance(await member.request(pl.JoinLeague, code=league.league.code), pl.League)
    for client in (ann, json_ann):
        for kind, fields in ((pb.FriendsBoard, KLONDIKE), (pl.LeagueBoard, {"league_id": league.league.league_id})):
            reply = await client.request(kind, **fields)
            frame = client.raw[-1]
            assert client.codec.encode(reply) == (frame.encode() if isinstance(frame, str) else frame)
            assert sorted(row.state for row in getattr(reply, "rows")) == ["finished", "not_started", "playing"]
