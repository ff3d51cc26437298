"""Hints lead somewhere: following hints alone never
repeats a position.

Broken Deck's deal 3 in Relaxed used to cycle ``t5-t3, c2-t7, t1-c2,
t3-t5`` for ever.  A trail here asks for a hint, plays it and asks again,
from several deals of every game, and checks that no position comes back.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.solver.positions import broken_deck_near_win
from tests.solver.test_hint_view import HIDDEN_GAMES

import engine
from engine.game import Game
from engine.solver.assist import hint_for_view

TRAIL_BUDGET = 600
"""Nodes per hint: small, so trails are quick and the heuristic (which
used to cycle) gets asked often."""
TRAIL_LENGTH = 200
VARIANTS: list[tuple[str, dict[str, Any]]] = [*HIDDEN_GAMES, ("broken-deck", {"difficulty": "relaxed"})]


def walk(game: Game, budget: int | None, length: int) -> list[str]:
    """Play up to ``length`` hints; fail on a position met twice.  The moves played."""
    reached = {game.position}
    played: list[str] = []
    while game.status == engine.PLAYING and len(played) < length:
        move = hint_for_view(game, budget=budget)
        if move is None:
            break
        game.play(move)
        played.append(str(move))
        assert game.position not in reached, f"position repeated after {' '.join(played[-8:])}"
        reached.add(game.position)
    return played


@pytest.mark.parametrize(("game_id", "options"), VARIANTS, ids=lambda value: str(value))
@pytest.mark.parametrize("deal", [2, 3])
def test_a_trail_of_hints_never_repeats_a_position(game_id: str, options: dict[str, Any], deal: int) -> None:
    walk(engine.new_game(game_id, deal, **options), TRAIL_BUDGET, TRAIL_LENGTH)


def test_broken_deck_deal_3_relaxed_no_longer_cycles_at_the_default_budget() -> None:
    game = engine.new_game("broken-deck", 3, difficulty="relaxed")
    walk(game, None, 250)


@pytest.mark.parametrize("deal", [30, 43])
def test_broken_deck_hints_alone_win_a_deal_whose_first_win_is_beyond_the_hint_budget(deal: int) -> None:
    """Deals 30 and 43 (Relaxed) need some 4,600 nodes for a first win,
    more than Broken Deck's ``HINT_BUDGET``; searched with 4,000, hints
    guessed and won neither.  A view that hides nothing searches
    ``FULL_VIEW_FACTOR`` times as much, and the plan it finds wins."""
    game = engine.new_game("broken-deck", deal, difficulty="relaxed")
    walk(game, None, 400)
    assert game.status == engine.WON


def test_a_hint_never_leads_back_to_a_position_of_the_undo_history() -> None:
    """The Q♦ goes to a cell and on to another: bringing it back to its
    column restores the start, without being the reverse of the last move."""
    game = broken_deck_near_win()
    game.play("t4-c1")
    game.play("c1-c2")
    back = engine.Move.from_text("c2-t4")
    assert back in game.legal_moves() and not back.undoes(game.last_move)
    assert game.leads_back(back)
    assert hint_for_view(game) != back
    assert game.suggest() != back
