"""WordLink finishes itself: once stock and waste are empty and every card
is face up, Finish is offered and auto-collect does it on its own; the
server plays the path, as Broken Deck's finish does (docs/rules.md,
*WordLink*, Finish).
"""

from __future__ import annotations

import pytest

import engine
from engine import ActionUnavailable
from engine.game import WON
from engine.solver import auto_finish
from tests.engine.klondike_positions import ALL_OPEN, ONE_HIDDEN, STOCK_LEFT, position


def game(text: str, collect: bool = False) -> engine.Game:
    return engine.from_text("klondike", position(text, collect))


@pytest.mark.parametrize("text", [ONE_HIDDEN, STOCK_LEFT])
def test_finish_waits_until_the_stock_and_waste_are_empty_and_every_card_is_face_up(text: str) -> None:
    waiting = game(text)
    with pytest.raises(ActionUnavailable) as refused:
        waiting.check_finish()
    assert refused.value.code == "finish_not_offered"
    assert auto_finish(waiting) is None


def test_once_every_card_is_open_finish_is_offered_with_a_path_that_wins() -> None:
    open_game = game(ALL_OPEN)
    open_game.check_finish()
    path = auto_finish(open_game)
    assert path is not None
    for move in path:
        open_game.play(str(move))
    assert open_game.status == WON


def test_auto_collect_finishes_the_game_on_its_own_once_every_card_is_open() -> None:
    """Moving the Nine of hearts off the last face-down card opens
    everything: auto-collect's safety rule then lets every card up in turn
    (the lowest card left tops its column, so it is always safe)."""
    collecting = game(ONE_HIDDEN, collect=True)
    collecting.play("t5-t4")
    assert collecting.status == WON
    assert collecting.moves > 20, "the cards went up one auto-collect move each"
