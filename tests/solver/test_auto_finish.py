"""Broken Deck's safe automatic finishing."""

from __future__ import annotations

import pytest

import engine
from engine import ActionUnavailable
from engine.game import WON as GAME_WON
from engine.solver import auto_finish
from tests.solver.positions import broken_deck_near_win, broken_deck_needs_search, broken_deck_repaired, play_all


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


def test_finishing_refusals_name_their_reason() -> None:
    """A client learns why finishing is not offered: the difficulty, the halves left, or the game."""
    cases = [
        (broken_deck_repaired(difficulty="challenge"), "assist_disabled"),
        (broken_deck_near_win(), "halves_unrepaired"),
        (engine.new_game("klondike", 2), "finish_not_offered"),
        (engine.new_game("chequers", 2), "finish_not_offered"),
    ]
    for game, reason in cases:
        with pytest.raises(ActionUnavailable) as refused:
            game.check_finish()
        assert refused.value.code == reason
    broken_deck_repaired().check_finish()


def test_automatic_finishing_searches_the_position_it_is_given() -> None:
    """A server searches a captured position off its event loop while the game moves on."""
    game = broken_deck_near_win()
    game.play("t1-r")
    game.play("t2-r")
    repaired = game.position
    game.undo()
    assert auto_finish(game) is None
    finish = auto_finish(game, position=repaired)
    assert finish is not None
    game.redo()
    assert play_all(game, finish) == GAME_WON
