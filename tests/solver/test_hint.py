"""Hints: a useful move, never an illegal one, never the last move undone."""

from __future__ import annotations

import random

import pytest

import engine
from engine.game import WON as GAME_WON
from engine.solver import hint
from tests.solver.positions import broken_deck_near_win, klondike_hearts_locked, klondike_near_win, laras_near_win

HINT_BUDGET = 600
"""Small, to keep the random walks quick; the default budget is larger."""


@pytest.mark.parametrize("game_id", sorted(engine.GAMES))
def test_a_hint_is_always_legal_and_never_undoes_the_previous_move(game_id: str) -> None:
    chooser = random.Random(game_id)
    for deal in (3, 8):
        game = engine.new_game(game_id, deal)
        for _ in range(12):
            if game.status != "playing":
                break
            suggested = hint(game, budget=HINT_BUDGET)
            assert suggested is None or suggested in game.legal_moves()
            assert suggested is None or not suggested.undoes(game.last_move)
            game.play(chooser.choice(game.legal_moves()))


def test_following_the_hints_wins_a_near_win() -> None:
    game = klondike_near_win()
    while game.status == "playing":
        suggested = hint(game)
        assert suggested is not None
        game.play(suggested)
    assert game.status == GAME_WON


def test_a_hint_never_takes_back_the_move_just_played() -> None:
    game = klondike_near_win()
    game.play("w-fd")
    game.play("fc-t1")
    assert str(hint(game)) != "t1-fc"


def test_hint_suggests_a_useful_move_prioritizing_repairs() -> None:
    """Hint suggests a useful move, prioritizing repairs."""
    game = broken_deck_near_win()
    first = hint(game)
    assert first is not None and str(first) in ("t1-r", "t2-r")
    game.play(first)
    assert str(hint(game)) in ("t1-r", "t2-r")


def test_without_a_known_win_the_hint_is_the_games_heuristic() -> None:
    game = klondike_hearts_locked()
    assert hint(game, budget=HINT_BUDGET) == game.suggest()


def test_a_finished_game_has_no_hint() -> None:
    game = laras_near_win()
    while game.status == "playing":
        move = hint(game)
        assert move is not None, "a game still playing has a hint"
        game.play(move)
    assert game.status == GAME_WON
    assert hint(game) is None
