"""What the solver-backed assists cost the server: safe automatic finishing
and post-game analysis, at the server's default budgets.

(a) Finishing: for each verified Broken Deck deal, the certificate is
    replayed to its first position with every half repaired (where the
    server first searches for an offer), and then to every later position
    where a player could stray from the line (a search each).  Printed:
    the share of positions where a path was proven within
    ``finish_search_nodes`` and the median and 95th-percentile seconds.
(b) Analysis: WordLink draw 3 deals from the verified pool, played by a
    random player for ``--moves`` moves (a line that usually loses the
    deal); each line is analysed as the server does (``analysis_nodes``
    per position tried).  Printed: the verdicts (a loss "proven" when the
    position after the losing move was shown unwinnable, "unproven" when
    it was only not won within the budget) and the seconds per game.

Both run on one core in this process, as the server's worker thread
does.  There is no issue target; the figures size the defaults.

    python bench/assists.py [--deals 100] [--games 30] [--moves 200]
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

from engine.solver import analyse, auto_finish  # noqa: E402
from engine.solver.certify import seeded_game  # noqa: E402
from server.pools import load_pool  # noqa: E402
from server.settings import Settings  # noqa: E402


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def finishing(deals: int, budget: int) -> tuple[int, int, list[float]]:
    """Positions searched, paths proven, seconds per search."""
    pool = load_pool("broken-deck")
    searched = proven = 0
    seconds: list[float] = []
    for number, deal in enumerate(pool.deals()[:deals], start=1):
        certificate = pool.certificates[deal]
        game = seeded_game("broken-deck", deal, certificate.seed, {})
        for move in certificate.moves:
            if game.all_repaired() and game.status == "playing":
                started = time.perf_counter()
                found = auto_finish(game, budget)
                seconds.append(time.perf_counter() - started)
                searched += 1
                proven += found is not None
            game.play(move)
        print(f"\r  finishing: {number}/{deals} deals, {searched} positions", end="", flush=True)
    print()
    return searched, proven, seconds


def analyses(games: int, moves: int, budget: int) -> tuple[Counter[str], list[float]]:
    """Verdicts and seconds per analysed game."""
    pool = load_pool("klondike-draw3")
    chooser = random.Random(7)
    verdicts: Counter[str] = Counter()
    seconds: list[float] = []
    for number, deal in enumerate(pool.deals()[:games], start=1):
        game = seeded_game("klondike", deal, pool.certificates[deal].seed, {"draw": 3})
        start = game.position
        line: list[str] = []
        while len(line) < moves and (legal := game.legal_moves()):
            line.append(str(game.play(chooser.choice(legal))))
        started = time.perf_counter()
        analysis = analyse("klondike", deal, {"draw": 3}, line, budget, start=start)
        proof = "" if analysis.verdict in ("won", "still_winnable") else " (proven)" if analysis.certain else " (unproven)"
        verdicts[analysis.verdict + proof] += 1
        seconds.append(time.perf_counter() - started)
        print(f"\r  analysis: {number}/{games} games", end="", flush=True)
    print()
    return verdicts, seconds


def main() -> int:
    defaults = Settings()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100, help="Broken Deck deals for (a)")
    parser.add_argument("--games", type=int, default=30, help="WordLink games for (b)")
    parser.add_argument("--moves", type=int, default=200, help="random moves per analysed game")
    args = parser.parse_args()

    print(f"(a) finishing, {defaults.finish_search_nodes:,} nodes per search")
    searched, proven, times = finishing(args.deals, defaults.finish_search_nodes)
    print(f"(b) analysis, {defaults.analysis_nodes:,} nodes per position tried")
    verdicts, analysis_times = analyses(args.games, args.moves, defaults.analysis_nodes)

    print()
    print(f"finishing  {searched} positions: path proven at {proven / searched:.1%}; "
          f"median {statistics.median(times) * 1000:.1f} ms, p95 {percentile(times, 0.95) * 1000:.1f} ms, "
          f"max {max(times) * 1000:.1f} ms")
    shares = ", ".join(f"{verdict} {count}" for verdict, count in verdicts.most_common())
    print(f"analysis   {args.games} games of {args.moves} random moves: {shares}; "
          f"median {statistics.median(analysis_times):.2f} s, p95 {percentile(analysis_times, 0.95):.2f} s, "
          f"max {max(analysis_times):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
