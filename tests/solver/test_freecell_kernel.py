"""Broken Deck's compiled win search (``engine.solver.freecell``): its
lines replay to wins through the checked engine, a line it got wrong is
refused, and seed 1090's practice layout, the one the Python search
left undecided within 300,000 nodes, is decided now.  fc-solve, the
independent solver ``bench/solver.py --oracle fc-solve`` compares it
with, solves the boards ``bench.fc_oracle.fc_board`` writes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

from bench.fc_oracle import FC_SOLVE, MISSING, fc_board, fc_solve_available
from engine.game import WON, Game
from engine.solver import solve
from engine.solver.certify import seeded_game
from engine.solver.freecell import _checked, compiled_win, kernel_available
from engine.solver.search import WON as SOLVED

needs_kernel = pytest.mark.skipif(
    not kernel_available(), reason="numba does not import here, so there is no compiled Broken Deck search (pip install numba)"
)
needs_fc_solve = pytest.mark.skipif(
    not fc_solve_available(), reason="fc-solve is not installed (Debian package freecell-solver-bin)"
)


def practice(seed: int) -> Game:
    return seeded_game("broken-deck", 1, seed, {"practice": True})


def replays_to_a_win(game: Game, moves: tuple[object, ...]) -> bool:
    for move in moves:
        game.play(str(move))
    return game.status == WON


@needs_kernel
def test_seed_1090s_practice_layout_is_decided_by_a_winning_line_that_replays() -> None:
    """Seed 1090: the Python bold search's weights each stall for hundreds
    of thousands of positions there; the kernel's turns over its weights win it."""
    game = practice(1090)
    found = solve(game)
    assert found.result == SOLVED
    assert replays_to_a_win(practice(1090), found.moves)


@needs_kernel
@pytest.mark.parametrize("seed", range(1001, 1021))
def test_every_compiled_line_replays_to_a_win(seed: int) -> None:
    game = practice(seed)
    found = compiled_win(game, game.position, 1_000_000)
    assert found is not None
    moves, spent = found
    assert spent > 0
    assert replays_to_a_win(practice(seed), moves)


@needs_kernel
def test_a_line_with_an_illegal_move_or_short_of_a_win_is_refused() -> None:
    game = practice(1001)
    moves, _ = compiled_win(game, game.position, 1_000_000) or ((), 0)
    rows = [(game.pile(move.src), game.pile(move.dst), move.count) for move in moves]
    assert _checked(game, game.position, numpy.array(rows))
    assert _checked(game, game.position, numpy.array(rows[:-1])) == ()
    onto_a_wrong_card = [(0, 1, 1), *rows]
    assert _checked(game, game.position, numpy.array(onto_a_wrong_card)) == ()


def test_a_position_with_halves_is_left_to_the_python_search() -> None:
    game = seeded_game("broken-deck", 1, 1001, {})
    assert compiled_win(game, game.position, 1_000_000) is None
    with pytest.raises(ValueError, match="without halves"):
        fc_board(game.position)


@needs_kernel
def test_the_line_never_starts_by_taking_back_the_move_before() -> None:
    game = practice(1002)
    moves, _ = compiled_win(game, game.position, 1_000_000) or ((), 0)
    first = moves[0]
    taken_back = type(first)(first.dst, first.src, first.count)
    assert compiled_win(game, game.position, 1_000_000, after=taken_back) is None


@needs_fc_solve
@pytest.mark.parametrize("seed", [1001, 1090])
def test_fc_solve_solves_the_converted_practice_layout(seed: int) -> None:
    board = fc_board(practice(seed).position)
    done = subprocess.run([FC_SOLVE, "-"], input=board, capture_output=True, text=True, timeout=300, check=True)
    assert "This game is solveable." in done.stdout


@needs_fc_solve
@needs_kernel
def test_fc_solve_reads_cells_and_foundations_as_the_game_has_them() -> None:
    """A position part way through our line, with cards in two cells and
    on two foundations: fc-solve parses it (it refuses a board whose cards
    are not the 52, each once), solves it, and shows it back as we wrote it."""
    game = practice(1001)
    moves, _ = compiled_win(game, game.position, 1_000_000) or ((), 0)
    for move in moves:
        game.play(str(move))
        ours = _state(fc_board(game.position))
        if len(ours[1]) >= 2 and sum(not token.endswith("-0") for token in ours[0]) >= 2:
            break
    else:
        pytest.fail("the line never has two cells and two foundations in use")
    board = fc_board(game.position)
    done = subprocess.run([FC_SOLVE, "-p", "-t", "-"], input=board, capture_output=True, text=True, timeout=300, check=True)
    assert "This game is solveable." in done.stdout
    assert _state(done.stdout.split("-=-=-=-=-=-=-=-=-=-=-=-")[1]) == ours


def _state(text: str) -> tuple[list[str], list[str], list[str]]:
    """A board's foundations and cells (sorted: fc-solve writes them in its
    own order) and its columns, from our board or fc-solve's first state."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()][:10]
    founds = sorted(lines[0].split(":", 1)[1].split())
    cells = sorted(token for token in lines[1].split(":", 1)[1].split() if token != "-")
    return founds, cells, [line.removeprefix(":").strip() for line in lines[2:]]


ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "solver.py"


def test_the_oracle_bench_without_fc_solve_says_so_and_exits_with_0(tmp_path: Path) -> None:
    """No fc-solve on the PATH (an empty directory is all of it)."""
    environment = {**os.environ, "PATH": str(tmp_path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(BENCH), "--oracle", "fc-solve", "--seeds", "1001-1002", "--deals", "1"],
        capture_output=True, text=True, env=environment, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == MISSING


@pytest.mark.parametrize("seeds", ["2000-1001", "0-3", "a-b"])
def test_a_bad_seed_range_is_a_usage_error(seeds: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--oracle", "fc-solve", "--seeds", seeds],
        capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 2
    assert "--seeds" in done.stderr and "FIRST" in done.stderr
