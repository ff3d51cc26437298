"""How often deals can be won: the difficulty the seeds promise."""

from __future__ import annotations

import engine
from engine.solver import WON, solve

SAMPLE = range(1, 21)


def test_laras_game_is_medium_about_half_of_its_deals_are_won() -> None:
    """Medium (50%).

    The solver's share of won deals is a lower bound of the winnable share
    (a deal it gives up on may still be winnable): on 20 deals at a small
    budget it must land near one half, neither almost all nor almost none.
    ``bench/solver.py`` prints the share on 1,000 deals."""
    won = sum(solve(engine.new_game("laras-game", deal), budget=3_000, prove=False).result == WON for deal in SAMPLE)
    assert 0.3 <= won / len(SAMPLE) <= 0.8
