"""Hints see only what the player sees (docs/protocol.md, *Fair play*).

Two games with the same view and different face-down cards must get the
same hint, or the hint tells the player something about those cards.
Hypothesis picks the game, the deal, some random play and a permutation
of the face-down cards; the two positions are loaded into fresh games
(``Game.load_position``), so they share the view and have no history.
``tests/server/test_server_same_view.py`` holds every other field of
every frame the server sends a player or a spectator to the same rule.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from tests.solver.positions import broken_deck_near_win

import engine
from engine.game import Game, Position
from engine.solver import solve
from engine.solver.assist import hint_for_view, hint_from_view, hint_seeing_hidden_cards
from engine.solver.determinize import determinizations, faces, model_game, public
from engine.solver.search import WON

BUDGET = 400
"""Nodes per hint: small, so that a hundred examples stay quick."""
HIDDEN_GAMES: list[tuple[str, dict[str, Any]]] = [
    ("klondike", {"draw": 1}),
    ("klondike", {"draw": 3}),
    ("laras-game", {}),
    ("chequers", {}),
]
PROFILE = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def played(game_id: str, options: dict[str, Any], deal: int, moves: int, seed: int) -> Game:
    """A game of ``deal`` after up to ``moves`` random legal moves."""
    game = engine.new_game(game_id, deal, **options)
    chooser = random.Random(seed)
    for _ in range(moves):
        if game.status != engine.PLAYING:
            break
        game.play(chooser.choice(game.legal_moves()))
    return game


def permuted(pos: Position, seed: int) -> Position:
    """``pos`` with its face-down cards shuffled among the face-down places."""
    hidden = [card for cards, down in zip(pos.piles, pos.down) for card in cards[:down]]
    random.Random(seed).shuffle(hidden)
    cards = iter(hidden)
    piles = tuple(tuple(next(cards) for _ in range(down)) + pile[down:] for pile, down in zip(pos.piles, pos.down))
    return pos._replace(piles=piles)


def loaded(game: Game, pos: Position) -> Game:
    fresh = engine.new_game(game.id, game.deal, **game.options)
    fresh.load_position(pos)
    return fresh


def twin_games(game_id: str, options: dict[str, Any], deal: int, moves: int, seed: int) -> tuple[Game, Game] | None:
    """Two fresh games at one random position, the second with its hidden
    cards permuted; None when the game ended or the permutation changed nothing."""
    game = played(game_id, options, deal, moves, seed)
    other = permuted(game.position, seed + 1)
    if game.status != engine.PLAYING or other == game.position:
        return None
    return loaded(game, game.position), loaded(game, other)


@pytest.mark.parametrize(("game_id", "options"), HIDDEN_GAMES, ids=lambda value: str(value))
@PROFILE
@given(deal=st.integers(1, 1_000_000), moves=st.integers(0, 40), seed=st.integers(0, 2**32))
def test_same_view_different_hidden_cards_same_hint(
    game_id: str, options: dict[str, Any], deal: int, moves: int, seed: int
) -> None:
    twins = twin_games(game_id, options, deal, moves, seed)
    assume(twins is not None)
    assert twins is not None
    first, second = twins
    assert first.view() == second.view()
    hint = hint_for_view(first, budget=BUDGET)
    assert hint_for_view(second, budget=BUDGET) == hint
    assert hint is None or hint in first.legal_moves()
    assert hint_from_view(public(first.view()), budget=BUDGET) == (None if hint is None else str(hint))


def test_the_property_has_teeth_searched_with_perfect_information_twins_differ() -> None:
    """The hint that searches the real position (the benchmark's
    reference, ``hint_seeing_hidden_cards``) differs between twins: the
    test above catches a hint that reads the hidden cards."""
    differing = 0
    for deal in range(1, 9):
        twins = twin_games("klondike", {"draw": 3}, deal, 0, deal)
        assert twins is not None
        first, second = (hint_seeing_hidden_cards(game, budget=BUDGET) for game in twins)
        differing += first != second
    assert differing


@pytest.mark.parametrize(("game_id", "options"), HIDDEN_GAMES, ids=lambda value: str(value))
def test_determinizations_agree_with_the_view_and_come_from_it_alone(game_id: str, options: dict[str, Any]) -> None:
    twins = twin_games(game_id, options, 7, 10, 7)
    assert twins is not None
    first, second = twins
    view = public(first.view())
    model = model_game(view)
    worlds = determinizations(model, view)
    assert len(worlds) > 1
    assert determinizations(model_game(public(second.view())), public(second.view())) == worlds
    for world in worlds:
        model.load_position(world)
        assert public(model.view()) == view
    assert len(set(worlds)) == len(worlds)


def test_a_view_without_hidden_cards_is_its_own_only_determinization() -> None:
    game = broken_deck_near_win()
    view = public(game.view())
    assert determinizations(model_game(view), view) == [game.position]
    assert hint_from_view(view) == str(hint_for_view(game))


def test_a_won_game_gets_no_hint_from_either_entry_point() -> None:
    game = broken_deck_near_win()
    found = solve(game, budget=2_000, prove=False)
    assert found.result == WON
    for move in found.moves:
        game.play(move)
    assert game.status == engine.WON
    assert hint_for_view(game) is None
    assert hint_from_view(public(game.view())) is None


def test_a_view_hiding_more_cards_than_are_unseen_is_refused() -> None:
    view = public(engine.new_game("klondike", 5, draw=1).view())
    view["piles"]["s"]["down"] += 1
    with pytest.raises(ValueError, match="hides 46 cards but 45 are unseen"):
        determinizations(model_game(view), view)


def test_hint_from_view_never_leads_back_to_a_view_already_seen() -> None:
    """With the views after every legal move but one given as seen, that
    one move is the only hint left."""
    game = broken_deck_near_win()
    view = public(game.view())
    legal = game.legal_moves()
    for kept in legal:
        seen = []
        for move in legal:
            if move != kept:
                after = loaded(game, game.successor(game.position, move))
                seen.append(public(after.view()))
        assert hint_from_view(view, seen=seen) in (str(kept), None)
    assert hint_from_view(view, seen=[public(loaded(game, game.successor(game.position, m)).view()) for m in legal]) is None


def test_wordlink_remembers_the_stock_order_the_waste_showed() -> None:
    """Drawn through once and turned over, the stock hides its cards again,
    but the player saw them in the waste: every determinization has the
    real stock, in order; the face-down columns stay guesses."""
    game = engine.new_game("klondike", 5, draw=1)
    while game.position.piles[0]:
        game.play("draw")
    game.play("draw")
    view = public(game.view())
    model = model_game(view)
    forgetful = determinizations(model, view)
    worlds = determinizations(model, view, earlier=[faces(pos) for pos in game.reached()])
    assert all(world.piles[0] == game.position.piles[0] for world in worlds)
    assert any(world.piles[0] != game.position.piles[0] for world in forgetful)
    assert len({world.piles[12] for world in worlds}) > 1
