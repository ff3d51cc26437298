"""The search finds wins that replay through the checked engine, proves
small lost positions lost, and answers the same every time."""

from __future__ import annotations

import pytest

import engine

from engine.game import WON as GAME_WON
from engine.solver import UNKNOWN, UNWINNABLE, WON, solve
from engine.solver.broken_deck import BrokenDeckDomain
from engine.solver.compiled import PURE_ENV, proof_search
from engine.solver.domains import domain_class
from engine.solver.klondike import KlondikeDomain
from engine.solver.search import best_first, best_first_search, depth_first, search
from tests.solver.positions import (
    broken_deck_near_win,
    broken_deck_repaired,
    chequers_near_win,
    klondike_hearts_locked,
    klondike_near_win,
    laras_near_win,
    play_all,
)

NEAR_WINS = {
    "klondike draw 1": lambda: klondike_near_win(draw=1),
    "klondike draw 3": klondike_near_win,
    "klondike spades come down": lambda: klondike_hearts_locked(empty_seventh=True),
    "broken-deck with a repair": broken_deck_near_win,
    "broken-deck repaired": broken_deck_repaired,
    "chequers": chequers_near_win,
    "laras-game": laras_near_win,
}


@pytest.mark.parametrize("name", sorted(NEAR_WINS))
def test_the_solver_wins_a_crafted_near_win_and_the_win_replays(name: str) -> None:
    game = NEAR_WINS[name]()
    found = solve(game, budget=20_000)
    assert found.result == WON
    assert play_all(game, found.moves) == GAME_WON


def test_a_position_with_the_two_of_hearts_under_the_three_is_proved_unwinnable() -> None:
    game = klondike_hearts_locked()
    assert game.legal_moves(), "not lost by the game's own test: the search has to prove it"
    found = solve(game, budget=20_000)
    assert found.result == UNWINNABLE
    assert found.moves == ()


@pytest.mark.parametrize("pure", ["1", "0"])
def test_a_budget_too_small_gives_unknown_not_a_false_proof(pure: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pure Python (``solve`` itself) and compiled where numba imports (the
    sound search alone: ``solve`` grants it ``COMPILED_SOUND_FACTOR`` nodes
    per node of the budget, which prove this small position on a budget of 2)."""
    monkeypatch.setenv(PURE_ENV, pure)
    game = klondike_hearts_locked()
    search = proof_search(KlondikeDomain(game), game.position, None, None)
    if search is None:
        assert solve(game, budget=2).result == UNKNOWN
    else:
        assert search.run(2).result == UNKNOWN
        assert search.run(20_000).result == UNWINNABLE


@pytest.mark.parametrize(("game_id", "deal"), [("klondike", 4), ("broken-deck", 6), ("chequers", 2), ("laras-game", 2)])
def test_the_same_position_and_budget_give_the_same_answer(game_id: str, deal: int) -> None:
    first = solve(engine.new_game(game_id, deal), budget=3_000)
    second = solve(engine.new_game(game_id, deal), budget=3_000)
    assert first == second


@pytest.mark.parametrize(("game_id", "deal", "options"), [
    ("klondike", 2, {"draw": 3}),
    ("klondike", 5, {"draw": 1}),
    ("broken-deck", 6, {}),
    ("chequers", 2, {}),
    ("laras-game", 2, {}),
])
def test_a_whole_deal_is_won_from_its_first_position(game_id: str, deal: int, options: dict) -> None:
    game = engine.new_game(game_id, deal, **options)
    found = solve(game, budget=30_000, prove=False)
    assert found.result == WON
    assert play_all(game, found.moves) == GAME_WON


def test_the_solution_never_starts_by_taking_back_the_move_that_led_here() -> None:
    game = klondike_near_win()
    game.play("w-fd")
    game.play("fc-t1")
    assert str(solve(game, budget=20_000).moves[0]) == "t1-fc", "the unconstrained search would undo"
    found = solve(game, budget=20_000, after=game.last_move)
    assert found.result == WON
    assert str(found.moves[0]) != "t1-fc"
    assert play_all(game, found.moves) == GAME_WON


@pytest.mark.parametrize(("game_id", "deal", "options"), [("klondike", 17, {"draw": 3}), ("broken-deck", 6, {})])
def test_a_search_continued_on_a_bigger_budget_answers_as_one_search_on_it(game_id: str, deal: int, options: dict) -> None:
    """The driver's rounds resume their searches (iterative deepening on
    node budgets): stopping and going on must neither lose nor repeat work."""
    game = engine.new_game(game_id, deal, **options)
    domain = domain_class(game)(game)
    strategy, resumable = (best_first, best_first_search) if domain.BEST_FIRST else (search, depth_first)
    whole = strategy(domain, game.position, 3_000)
    pieces = resumable(domain, game.position)
    assert pieces.run(700).result == UNKNOWN
    assert pieces.run(700).nodes == 700, "a search stopped at its budget waits there"
    assert pieces.run(3_000) == whole
    assert pieces.run(10) == whole, "a finished search gives its verdict again"


def test_a_proving_solve_spends_about_twice_the_sound_search_on_a_lost_deal() -> None:
    """Draw-3 deal 17 is lost: the rounds give the sound search half of
    every round, and its proof costs it what it costs the sound search
    alone (before the rounds, the bold search took half the budget first)."""
    game = engine.new_game("klondike", 17, draw=3)
    sound = search(domain_class(game)(game), game.position, 20_000)
    assert sound.result == UNWINNABLE
    found = solve(game, budget=20_000)
    assert found.result == UNWINNABLE
    assert found.nodes <= 2 * sound.nodes + 1


def test_broken_deck_tries_other_scores_once_the_first_search_has_had_its_nodes() -> None:
    """Practice deal 79 has no win within 30,000 nodes of the default score
    (hints, finishing and pool builds stay within those and are unchanged);
    the alternatives' turns win it."""
    game = engine.new_game("broken-deck", 79, practice=True)
    alone = best_first(BrokenDeckDomain(game, bold=True), game.position, BrokenDeckDomain.FIRST_SEARCH_NODES)
    assert alone.result == UNKNOWN
    found = solve(game, budget=100_000, prove=False)
    assert found.result == WON
    assert play_all(engine.new_game("broken-deck", 79, practice=True), found.moves) == GAME_WON
