"""Broken Deck's safe automatic finishing."""

from __future__ import annotations

import engine
from engine.game import WON as GAME_WON
from engine.solver import auto_finish
from solver.positions import broken_deck_near_win, broken_deck_needs_search, broken_deck_repaired, play_all


def test_automatic_finishing_waits_for_every_repair_and_a_proven_path() -> None:
    """Relaxed and Standard can automatically finish only after all halves
    are repaired and a complete foundation path is proven."""
    game = broken_deck_near_win()
    assert auto_finish(game) is None, "two halves are still on the board"
    game.play("t1-r")
    assert auto_finish(game) is None, "one half waits in the Repair Slot"
    game.play("t2-r")
    finish = auto_finish(game)
    assert finish is not None
    assert play_all(game, finish) == GAME_WON


def test_automatic_finishing_plays_a_complete_path_to_the_foundations_in_standard() -> None:
    game = broken_deck_repaired(difficulty="standard")
    finish = auto_finish(game)
    assert finish is not None
    assert play_all(game, finish) == GAME_WON


def test_no_automatic_finishing_without_a_proven_path() -> None:
    game = broken_deck_needs_search()
    assert auto_finish(game, budget=2) is None, "two nodes cannot find the path"
    finish = auto_finish(game)
    assert finish is not None
    assert play_all(game, finish) == GAME_WON


def test_challenge_disables_automatic_finishing() -> None:
    assert auto_finish(broken_deck_repaired(difficulty="challenge")) is None


def test_games_without_repairs_never_finish_automatically() -> None:
    assert auto_finish(engine.new_game("klondike", 2)) is None
