"""The compiled sound WordLink search answers exactly what the Python one
answers: for any root, ``after`` and budget the same ``Solution`` (result,
nodes, and a line of the same moves), resumed in slices or run at once,
with a table and a stack that start tiny and must grow; the pure-Python
search still runs where compiled is off (``ARENA_SOLVER_PURE=1``, or no
numba); and the draw-3 deals once called unwinnable win through the compiled
path with lines that replay through the checked engine.

The budgets are chosen so that samples end in all three results (each
test checks that they did, so a sample cannot quietly test nothing).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from tests.solver.positions import play_all
from tests.solver.test_soundness import PROFILE, klondike_positions
from tests.solver.test_wordlink_steps import random_positions

import engine
from engine.game import Game, Move, Position
from engine.solver import UNKNOWN, UNWINNABLE, WON, Solution, solve
from engine.solver.domains import domain_class
from engine.solver.compiled import PURE_ENV, CompiledSearch, _kernel, proof_search
from engine.games.klondike import STOCK, TABLEAU
from engine.solver.klondike import KlondikeDomain
from engine.solver.search import depth_first

needs_numba = pytest.mark.skipif(
    _kernel() is None, reason="numba does not import here, so there is no compiled search to compare (pip install numba)"
)


def python_search(game: Game, root: Position, budget: int, after: Move | None = None) -> Solution:
    return depth_first(KlondikeDomain(game), root, after=after).run(budget)


def compiled_search(game: Game, root: Position, budget: int, after: Move | None = None) -> Solution:
    return CompiledSearch(KlondikeDomain(game), root, after=after).run(budget)


@needs_numba
@pytest.mark.parametrize("draw", [1, 3])
def test_deals_get_the_python_searchs_solution(draw: int) -> None:
    results = set()
    for deal in [*range(1, 26), 36, 179, 709]:
        game = engine.new_game("klondike", deal, draw=draw)
        for budget in (1, 3_000):
            expected = python_search(game, game.position, budget)
            assert compiled_search(game, game.position, budget) == expected, (deal, budget)
            results.add(expected.result)
    assert results == {WON, UNWINNABLE, UNKNOWN}


@needs_numba
@pytest.mark.parametrize("draw", [1, 3])
def test_mid_game_positions_get_the_python_searchs_solution(draw: int) -> None:
    """Positions along random games, draws included (pointers off the
    draw cycle, unsettled roots), each also searched after the move its
    first step would take back (so the root leaves that step out)."""
    results = set()
    for deal in (2, 5, 9):
        game = engine.new_game("klondike", deal, draw=draw)
        for index, pos in enumerate(random_positions(game, deal, 120)):
            if index % 12:
                continue
            firsts = [step.moves[0] for step in KlondikeDomain(game).steps(pos) if step.moves[0].dst]
            taken_back = [Move(move.dst, move.src, move.count) for move in firsts[:1]]
            for after in (None, *taken_back):
                expected = python_search(game, pos, 800, after)
                assert compiled_search(game, pos, 800, after) == expected, (deal, index, after)
                results.add(expected.result)
    assert {WON, UNKNOWN} <= results


@needs_numba
@given(klondike_positions())
@PROFILE
def test_endgames_get_the_python_searchs_solution(example: tuple[Game, Position]) -> None:
    game, pos = example
    assert compiled_search(game, pos, 20_000) == python_search(game, pos, 20_000)


@needs_numba
@pytest.mark.parametrize(("draw", "deal"), [(3, 1), (3, 36), (1, 30)])
def test_slices_and_growing_room_give_one_runs_solution(draw: int, deal: int) -> None:
    """Resumed on many budgets, from a table of 4 slots and a stack 4 deep
    (both grow many times), the search ends where one run ends; so does
    the Python search resumed on the same budgets."""
    game = engine.new_game("klondike", deal, draw=draw)
    whole = python_search(game, game.position, 6_000)
    sliced = CompiledSearch(KlondikeDomain(game), game.position, table_size=4, depth=4)
    python = depth_first(KlondikeDomain(game), game.position)
    for budget in (1, 2, 3, 50, 51, 700, 2_000, 6_000):
        assert sliced.run(budget) == python.run(budget), budget
    assert sliced.run(6_000) == whole


@needs_numba
@pytest.mark.parametrize("deal", [1, 99, 429])
def test_regression_deals_win_through_the_compiled_search(deal: int) -> None:
    """Draw-3 deals 1, 99 and 429, once called unwinnable (docs/solver.md,
    *Soundness: forced moves and pruning*): the
    compiled proof search wins them, and so does ``solve`` with them on a
    budget where its sound search runs compiled; both lines replay."""
    game = engine.new_game("klondike", deal, draw=3)
    start = game.position
    found = compiled_search(game, start, 1_000_000)
    assert found.result == WON
    assert play_all(game, found.moves) == "won"
    game.load_position(start)
    assert isinstance(proof_search(KlondikeDomain(game), start, None, None), CompiledSearch)
    solved = solve(game, start, 300_000)
    assert solved.result == WON
    assert play_all(game, solved.moves) == "won"


@needs_numba
def test_a_proving_solve_gives_the_compiled_sound_search_more_nodes() -> None:
    """Draw-3 deal 19 is lost, and its sound search needs 61,828 nodes:
    a 20,000-node solve proves it compiled, not in pure Python."""
    game = engine.new_game("klondike", 19, draw=3)
    assert solve(game, budget=20_000).result == UNWINNABLE


def test_the_pure_python_search_runs_when_compiled_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PURE_ENV, "1")
    game = engine.new_game("klondike", 19, draw=3)
    assert proof_search(KlondikeDomain(game), game.position, None, None) is None
    assert solve(game, budget=20_000).result == UNKNOWN


def test_other_domains_and_the_bold_one_stay_in_python() -> None:
    game = engine.new_game("klondike", 1, draw=3)
    assert proof_search(KlondikeDomain(game, bold=True), game.position, None, None) is None
    broken = engine.new_game("broken-deck", 1)
    assert proof_search(domain_class(broken)(broken), broken.position, None, None) is None


@needs_numba
def test_a_column_longer_than_the_kernels_room_is_searched_in_python() -> None:
    """A position given as text may hold a column longer than play can
    build (the kernel has room for 19 cards); it gets the Python search,
    which still answers."""
    game = engine.new_game("klondike", 1, draw=3)
    piles, down = list(game.position.piles), list(game.position.down)
    first = TABLEAU[0]
    piles[first] = piles[STOCK][:19] + piles[first]
    piles[STOCK] = piles[STOCK][19:]
    down[first] += 19
    down[STOCK] = len(piles[STOCK])
    tall = Position(tuple(piles), tuple(down), game.position.aux)
    assert proof_search(KlondikeDomain(game), tall, None, None) is None
    assert python_search(game, tall, 50).nodes > 0
