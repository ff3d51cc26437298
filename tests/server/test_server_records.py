"""Records through the protocol: what finished games leave, read back."""

from __future__ import annotations

from tests.server.arena_memory import MemoryArena
from tests.server.arena_positions import DEAL_1_DRAW_1_WIN, NEARLY_WON_KLONDIKE

from protocol import ErrorCode
from protocol import to_server as ts


async def test_records_sum_finished_games_per_variant_and_keep_the_bests(arena: MemoryArena) -> None:
    """Normal play records repairs, moves, time, hints, undos and wins, with
    best moves and times per difficulty. Tutorial practice does not enter
    these records."""
    player = await arena.client()
    await player.hello(name="ann")
    won, _ = await player.new_game(deal=1, options={"draw": 1})
    for move in DEAL_1_DRAW_1_WIN:
        await player.request(ts.Move, game_id=won.game_id, move=move)
    resigned, snapshot = await player.new_game(deal=7, options={"draw": 1})
    assert snapshot.legal, "the owner's snapshot lists the legal moves"
    await player.request(ts.Move, game_id=resigned.game_id, move=snapshot.legal[0])
    await player.request(ts.Hint, game_id=resigned.game_id)
    await player.request(ts.Resign, game_id=resigned.game_id)
    vegas, _ = await player.new_game(deal=1, options={"draw": 1, "scoring": "vegas"})
    for move in DEAL_1_DRAW_1_WIN:
        vegas_over = await player.request(ts.Move, game_id=vegas.game_id, move=move)
    practice, _ = await player.new_game(position=NEARLY_WON_KLONDIKE)
    await player.request(ts.Resign, game_id=practice.game_id)

    mine = await player.request(ts.Records)
    assert mine.type == "records" and mine.name == "ann" and mine.player_id == player.player_id
    by_variant = {(record.game, record.variant): record for record in mine.records}
    assert set(by_variant) == {("klondike", "draw=1,scoring=standard"), ("klondike", "draw=1,scoring=vegas")}
    draw_1 = by_variant["klondike", "draw=1,scoring=standard"]
    assert (draw_1.title, draw_1.games, draw_1.wins, draw_1.hints) == ("WordLink", 2, 1, 1)
    assert draw_1.moves == len(DEAL_1_DRAW_1_WIN) + 1 and draw_1.best_moves == len(DEAL_1_DRAW_1_WIN)
    assert draw_1.best_time_ms is not None and draw_1.best_time_ms <= draw_1.time_ms
    in_vegas = by_variant["klondike", "draw=1,scoring=vegas"]
    assert (in_vegas.games, in_vegas.wins, in_vegas.best_moves) == (1, 1, len(DEAL_1_DRAW_1_WIN))
    assert vegas_over.type == "diff", vegas_over
    assert mine.vegas_earnings == in_vegas.best_score == vegas_over.score == 5 * 52, "5 per card home"
    assert draw_1.best_score is not None and draw_1.best_score > 0

    stranger = await arena.client()
    theirs = await stranger.request(ts.Records, player_id=player.player_id)
    assert theirs.model_dump(exclude={"id"}) == mine.model_dump(exclude={"id"}), "records are public"


async def test_records_refusals(arena: MemoryArena) -> None:
    anonymous = await arena.client()
    refused = await anonymous.request(ts.Records)
    assert refused.type == "error" and refused.code == ErrorCode.HELLO_REQUIRED
    unknown = await anonymous.request(ts.Records, player_id="p_nobody")
    assert unknown.type == "error" and unknown.code == ErrorCode.PLAYER_NOT_FOUND
    await anonymous.hello(name="new")
    empty = await anonymous.request(ts.Records)
    assert empty.type == "records" and empty.records == [] and empty.vegas_earnings == 0
