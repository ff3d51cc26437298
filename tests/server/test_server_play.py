"""Playing through the protocol: whole games, every action, every ending."""

from __future__ import annotations

from tests.server.arena_memory import MemoryArena

from tests.server.arena_positions import (
    DEAL_1_DRAW_1_WIN,
    LAST_MOVE_BEFORE_BLOCKED,
    NEARLY_WON_KLONDIKE,
    ONE_MOVE_FROM_BLOCKED_KLONDIKE,
    WINNING_MOVES,
)
from tests.server.arena_wire import Mirror

from protocol import ErrorCode
from protocol import to_server as ts
from server.deals.daily import fixed_record, utc_day
from server.deals.pools import verified_deals
from server.deals.proofs import replays_to_win
from server.deals.variants import record_key

import engine


def _other(subprotocol: str) -> str:
    return "arena.v1.json" if subprotocol == "arena.v1.msgpack" else "arena.v1.msgpack"


async def test_a_whole_deal_is_won_through_the_protocol(
    arena: MemoryArena, subprotocol: str
) -> None:
    player = await arena.client(subprotocol)
    await player.hello(name="ann")
    started, snapshot = await player.new_game(deal=1, options={"draw": 1})
    game_id = started.game_id
    spectator = await arena.client(_other(subprotocol))
    watched = await spectator.request(ts.Watch, game_id=game_id)
    mine, theirs = Mirror(snapshot), Mirror(watched)
    assert watched.type == "snapshot" and watched.seq == snapshot.seq == 0 and watched.clock.started_ms is None

    for number, move in enumerate(DEAL_1_DRAW_1_WIN, start=1):
        reply = await player.request(ts.Move, game_id=game_id, move=move)
        assert reply.type == "diff" and reply.seq == number and reply.action.text == move, reply
        mine.apply(reply)

    over = await player.next_of("game_over")
    assert (over.result, over.deal, over.moves) == ("won", 1, len(DEAL_1_DRAW_1_WIN))
    assert reply.type == "diff" and over.time_ms == reply.clock.elapsed_ms
    for number in range(1, len(DEAL_1_DRAW_1_WIN) + 1):
        theirs.apply(await spectator.wait_for(lambda m, n=number: m.type == "diff" and m.seq == n))
    assert (await spectator.next_of("game_over")).result == "won"
    assert theirs.view == mine.view
    assert all(len(mine.view["piles"][f]["up"]) == 13 for f in ("fs", "fh", "fd", "fc"))

    records = await arena.store.records(player.player_id)
    key = record_key(engine.game_class("klondike"), {"draw": 1, "scoring": "standard"})
    assert records[key].wins == 1 and records[key].best_moves == len(DEAL_1_DRAW_1_WIN)


async def test_a_practice_position_is_won_and_records_nothing(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello()
    started, snapshot = await player.new_game(position=NEARLY_WON_KLONDIKE)
    assert started.practice and started.deal_kind == "position" and snapshot.practice
    assert snapshot.view.piles["t1"].down == 1 and snapshot.view.piles["s"].down == 1
    for move in WINNING_MOVES:
        assert (await player.request(ts.Move, game_id=started.game_id, move=move)).type == "diff"
    over = await player.next_of("game_over")
    assert over.result == "won"
    assert await arena.store.records(player.player_id) == {}
    late = await player.request(ts.Undo, game_id=started.game_id)
    assert late.type == "error" and late.code == ErrorCode.GAME_FINISHED


async def test_an_illegal_move_is_refused_with_the_engine_sentence_and_changes_nothing(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello()
    started, snapshot = await player.new_game(deal=7)
    refusal = await player.request(ts.Move, game_id=started.game_id, move="t1-t2")
    assert refusal.type == "error" and refusal.code == ErrorCode.ILLEGAL_MOVE
    assert refusal.reason and refusal.message and refusal.game_id == started.game_id
    again = await player.request(ts.Resync, game_id=started.game_id)
    assert again.type == "snapshot" and again.seq == 0 and again.view == snapshot.view and again.counters == snapshot.counters


async def test_undo_redo_hint_and_restart_are_logged_actions(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello()
    started, snapshot = await player.new_game(deal=7)
    game_id = started.game_id
    mirror = Mirror(snapshot)
    assert snapshot.legal, "the owner's snapshot lists the legal moves"
    first = snapshot.legal[0]
    mirror.apply(await player.request(ts.Move, game_id=game_id, move=first))
    undone = await player.request(ts.Undo, game_id=game_id)
    mirror.apply(undone)
    assert undone.type == "diff" and mirror.view == snapshot.view.model_dump() and undone.counters["undos"] == 1
    redone = await player.request(ts.Redo, game_id=game_id)
    mirror.apply(redone)
    assert redone.type == "diff" and redone.counters["redos"] == 1 and redone.action.kind == "redo"

    hint = await player.request(ts.Hint, game_id=game_id)
    assert hint.type == "hint" and redone.legal is not None and hint.move in redone.legal
    counted = await player.wait_for(lambda m: m.type == "diff" and m.seq == 4)
    assert counted.counters["hints"] == 1 and counted.action.text == hint.move
    mirror.apply(counted)

    restarted = await player.request(ts.Restart, game_id=game_id)
    mirror.apply(restarted)
    assert mirror.view == snapshot.view.model_dump()
    assert restarted.type == "diff" and restarted.counters["moves"] == 0 and restarted.seq == 5
    assert restarted.clock.started_ms == redone.clock.started_ms, "restart does not reset the clock"


async def test_tapping_a_card_moves_it_to_its_best_place_or_does_nothing(arena: MemoryArena) -> None:
    """Tap a card in the stock or tableau to automatically move it to the best
    possible location. If no legal move exists, nothing happens."""
    player = await arena.client()
    await player.hello()
    started, snapshot = await player.new_game(position=NEARLY_WON_KLONDIKE)
    tapped = await player.request(ts.AutoMove, game_id=started.game_id, src="t1")
    assert tapped.type == "diff" and tapped.action.text == "t1-fc"
    nothing = await player.request(ts.AutoMove, game_id=started.game_id, src="t2")
    assert nothing.type == "ack" and nothing.game_id == started.game_id
    still = await player.request(ts.Resync, game_id=started.game_id)
    assert still.type == "snapshot" and still.seq == 1


async def test_resigning_ends_the_game_and_reveals_the_deal(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello()
    started, _ = await player.new_game(deal=42)
    resigned = await player.request(ts.Resign, game_id=started.game_id)
    assert resigned.type == "diff" and resigned.status == "resigned" and resigned.ops == []
    over = await player.next_of("game_over")
    assert (over.result, over.deal) == ("resigned", 42)
    refused = await player.request(ts.Move, game_id=started.game_id, move="draw")
    assert refused.type == "error" and refused.code == ErrorCode.GAME_FINISHED
    key = record_key(engine.game_class("klondike"), started.options)
    assert (await arena.store.records(player.player_id))[key].games == 1


async def test_a_blocked_game_without_undo_is_lost(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello()
    started, _ = await player.new_game(position=ONE_MOVE_FROM_BLOCKED_KLONDIKE)
    last = await player.request(ts.Move, game_id=started.game_id, move=LAST_MOVE_BEFORE_BLOCKED)
    assert last.type == "diff" and last.status == "lost"
    assert (await player.next_of("game_over")).result == "lost"


async def test_starting_more_live_games_than_allowed_abandons_the_oldest(
    arena: MemoryArena
) -> None:
    player = await arena.client()
    await player.hello()
    limit = arena.settings.max_live_games
    first, _ = await player.new_game(deal=1)
    for deal in range(2, limit + 2):
        await player.new_game(deal=deal)
    over = await player.wait_for(lambda m: m.type == "game_over" and m.game_id == first.game_id)
    assert over.result == "abandoned"
    live = [h for h in await arena.store.sessions_of(player.player_id) if h.status == "playing"]
    assert len(live) == limit


async def test_vegas_mode_deals_a_preset_vegas_deal(arena: MemoryArena) -> None:
    """Randomly selected from preset Vegas deals with a scoring system"""
    player = await arena.client()
    await player.hello()
    started, snapshot = await player.new_game(options={"scoring": "vegas"})
    assert started.deal_kind == "vegas" and started.verified is True
    assert snapshot.view.options["scoring"] == "vegas" and "deal" not in snapshot.view.model_dump()
    await player.request(ts.Resign, game_id=started.game_id)
    revealed = (await player.next_of("game_over")).deal
    assert revealed in verified_deals("klondike", {"draw": 1}, "vegas")


async def test_the_daily_deal_is_the_same_for_everyone_on_a_day(arena: MemoryArena) -> None:
    """A new challenge every day, randomly selected from winnable deals:
    a secret random seed the server's solver has won before anyone plays
    (fair play needs a seed nobody can look up, not a pool number;
    docs/rules.md, *Shared by all games*), the same for everyone."""
    boards, seeds = [], set()
    for _ in range(2):
        player = await arena.client()
        await player.hello()
        started, snapshot = await player.new_game(deal="daily", options={"draw": 3})
        assert (started.deal_kind, started.verified) == ("daily", True)
        boards.append(snapshot.view)
        await player.request(ts.Resign, game_id=started.game_id)
        assert (await player.next_of("game_over")).deal is None, "the deal stays secret until the day's reveal"
        stored = await arena.store.load_session(started.game_id)
        assert stored is not None, started
        seeds.add(stored[0].seed)
    assert boards[0] == boards[1] and len(seeds) == 1
    day = utc_day(arena.hub.clock())
    record = await fixed_record(arena.store, arena.settings, arena.hub.prover, engine.game_class("klondike"), {"draw": 3}, day, 0)
    assert replays_to_win("klondike", {"draw": 3}, record.seed, record.line), "the stored line wins the daily deal"


async def test_random_deals_differ_and_stay_secret_until_the_end(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello()
    revealed = set()
    for _ in range(3):
        started, snapshot = await player.new_game()
        assert started.deal_kind == "random" and "deal" not in snapshot.view.model_dump()
        await player.request(ts.Resign, game_id=started.game_id)
        revealed.add((await player.wait_for(lambda m, g=started.game_id: m.type == "game_over" and m.game_id == g)).deal)
    assert len(revealed) == 3
