"""Post-game analysis: the last winnable position of a log and the move that lost it."""

from __future__ import annotations

import pytest

import engine

from engine.errors import IllegalMove
from engine.solver import analyse, solve
from engine.solver.analysis import LOST_AT, NEVER_SHOWN_WINNABLE, STILL_WINNABLE, WON_GAME, replay
from tests.solver.positions import klondike_hearts_locked

BLUNDER_LOG = ["draw", "draw", "draw", "draw", "w-t7", "draw", "draw", "draw"]
"""Four draws bring the K♥ back to the waste; ``w-t7`` fills the only empty
column with it, after which no black Four can ever come down for the 3♥."""


def test_the_analysis_finds_the_move_that_lost_the_game() -> None:
    game = klondike_hearts_locked(empty_seventh=True)
    analysis = analyse("klondike", 1, game.options, BLUNDER_LOG, 50_000, start=game.position)
    assert analysis.verdict == LOST_AT
    assert analysis.last_winnable == 4
    assert analysis.losing_move == "w-t7"
    assert analysis.certain


def test_the_analysis_shows_a_win_from_the_last_winnable_position() -> None:
    game = klondike_hearts_locked(empty_seventh=True)
    analysis = analyse("klondike", 1, game.options, BLUNDER_LOG, 50_000, start=game.position)
    replayed, _ = replay("klondike", 1, game.options, BLUNDER_LOG[: analysis.last_winnable], start=game.position)
    for move in analysis.solution:
        replayed.play(move)
    assert replayed.status == "won"


def test_a_log_that_can_still_be_won_says_so() -> None:
    game = engine.new_game("klondike", 2, draw=3)
    line = [str(move) for move in solve(game, budget=20_000).moves]
    analysis = analyse("klondike", 2, {"draw": 3}, line[:30], 20_000)
    assert analysis.verdict == STILL_WINNABLE
    assert analysis.last_winnable == 30
    assert analysis.losing_move is None


def test_a_won_log_needs_no_search() -> None:
    game = engine.new_game("klondike", 2, draw=3)
    line = [str(move) for move in solve(game, budget=20_000).moves]
    analysis = analyse("klondike", 2, {"draw": 3}, line, 20_000)
    assert (analysis.verdict, analysis.nodes) == (WON_GAME, 0)


def test_a_lost_start_is_reported_as_never_winnable() -> None:
    game = klondike_hearts_locked()
    analysis = analyse("klondike", 1, game.options, ["draw"], 20_000, start=game.position)
    assert analysis.verdict == NEVER_SHOWN_WINNABLE
    assert analysis.certain
    assert analysis.losing_move is None


def test_a_log_with_an_illegal_move_raises_the_engines_typed_error() -> None:
    with pytest.raises(IllegalMove):
        analyse("klondike", 2, {"draw": 3}, ["t1-t2"], 1_000)
