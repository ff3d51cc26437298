"""How often post-game analysis says a loss is certain.

The sample does not depend on the solver: WordLink draw-3 deals 1, 2, …
played by a heuristic player (a random move among those the game's hint
order calls useful, or a draw), until no useful move is left; the first
``--games`` games that end without a win are analysed as the server does
(``analysis_nodes`` per position tried).  Printed: the verdicts, how many
say ``certain``, and seconds per game.  Run it on two commits to compare
them; the engine has no clock, so the same commit prints the same counts.

    python bench/certainty.py [--games 50] [--budget NODES]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter

if not __package__:
    # Run as a file, Python puts bench/ first on sys.path, where
    # bench/engine.py would shadow the engine package.
    sys.path.pop(0)

import engine  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.games.klondike import STOCK, WASTE  # noqa: E402
from engine.solver import analyse  # noqa: E402
from server.runtime.progress import ProgressLine  # noqa: E402
from server.runtime.settings import Settings  # noqa: E402

MOVE_CAP = 1_000
"""Moves after which the player stops anyway (useful moves run out long before)."""


def heuristic_line(game: Game, chooser: random.Random) -> list[str]:
    """A line of useful moves (``_hint_order`` not None), or a draw, chosen
    at random, until none is left; no foundation card comes back, so the
    line cannot go round in circles."""
    line: list[str] = []
    draws_in_a_row = 0
    while game.status == "playing" and len(line) < MOVE_CAP:
        legal = game.legal_moves()
        useful = [move for move in legal if move.dst and game.hint_order(game.position, move) is not None]
        talon = len(game.position.piles[STOCK]) + len(game.position.piles[WASTE])
        if useful and (draws_in_a_row > talon or chooser.random() < 0.5):
            move = chooser.choice(useful)
            draws_in_a_row = 0
        elif any(not move.dst for move in legal) and draws_in_a_row <= talon:
            move = next(move for move in legal if not move.dst)
            draws_in_a_row += 1
        else:
            break
        line.append(str(game.play(move)))
    return line


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="games that end without a win to analyse")
    parser.add_argument("--budget", type=int, default=Settings().analysis_nodes, help="nodes per position tried")
    args = parser.parse_args()
    options = {"draw": 3}
    verdicts: Counter[str] = Counter()
    certain: Counter[str] = Counter()
    seconds: list[float] = []
    deal = 0
    progress = ProgressLine(every=5.0)
    while sum(verdicts.values()) < args.games:
        deal += 1
        game = engine.new_game("klondike", deal, **options)
        line = heuristic_line(game, random.Random(deal))
        if game.status == "won":
            continue
        started = time.perf_counter()
        analysis = analyse("klondike", deal, options, line, args.budget)
        seconds.append(time.perf_counter() - started)
        verdicts[analysis.verdict] += 1
        certain[analysis.verdict] += analysis.certain
        progress(sum(verdicts.values()), args.games, f"games not won analysed (deal {deal})")
    shares = ", ".join(f"{verdict} {count} ({certain[verdict]} certain)" for verdict, count in verdicts.most_common())
    print(f"{args.games} games not won, {args.budget:,} nodes per position: {shares}; "
          f"certain in all {sum(certain.values())}; median {statistics.median(seconds):.2f} s, "
          f"max {max(seconds):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
