"""Random-playout throughput of every game: moves applied per second.

Each sample plays random legal moves through the checked ``Game.play``
path (legal-move generation, the legality check, status and the undo
snapshot all included), starting a new deal whenever a game ends.  The
figure is the median of several samples; a calibration loop of plain
tuple work runs in the same process so a slow or busy machine shows up as
a low calibration figure rather than as a regression.

    python bench/engine.py [--seconds 2] [--samples 5]

Target: at least 50,000 moves/s per game on one core.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

if not __package__:
    # Run as a file, Python puts bench/ first on sys.path, where this very
    # file would shadow the package it measures.
    sys.path.pop(0)

import engine  # noqa: E402
from server.runtime.progress import ProgressLine  # noqa: E402

TARGET = 50_000


def playout_rate(game_id: str, seconds: float, seed: int) -> float:
    """Moves per second over ``seconds`` of random play."""
    chooser = random.Random(seed)
    cls = engine.GAMES[game_id]
    deal = cls.FIRST_DEAL
    game = engine.new_game(game_id, deal=deal)
    moves = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    while True:
        legal = game.legal_moves()
        if not legal:
            deal = cls.FIRST_DEAL + (deal - cls.FIRST_DEAL + 1) % min(cls.LAST_DEAL - cls.FIRST_DEAL + 1, 10_000)
            game = engine.new_game(game_id, deal=deal)
            continue
        game.play(chooser.choice(legal))
        moves += 1
        if moves % 256 == 0 and time.perf_counter() >= deadline:
            break
    return moves / (time.perf_counter() - start)


def calibration_rate(seconds: float) -> float:
    """Tuple replacements per second: the floor cost of one immutable move."""
    piles = tuple(tuple(range(i, i + 7)) for i in range(13))
    count = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        for i in range(1000):
            j = i % 13
            piles = piles[:j] + (piles[j][1:] + piles[j][:1],) + piles[j + 1 :]
        count += 1000
    return count / (time.perf_counter() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one sample")
    parser.add_argument("--samples", type=int, default=5, help="samples per game (the median is reported)")
    args = parser.parse_args()

    calibration = []
    rows = []
    games = sorted(engine.GAMES)
    total = len(games) * args.samples
    done = 0
    progress = ProgressLine(every=5.0)
    for game_id in games:
        rates = []
        for sample in range(args.samples):
            calibration.append(calibration_rate(args.seconds / 4))
            rates.append(playout_rate(game_id, args.seconds, seed=sample))
            done += 1
            progress(done, total, f"samples ({game_id} sample {sample + 1})")
        rows.append((game_id, statistics.median(rates), min(rates), max(rates)))

    calib = statistics.median(calibration)
    print(f"calibration: {calib:,.0f} tuple replacements/s (median of {len(calibration)})")
    print(f"{'game':<14}{'median moves/s':>16}{'min':>12}{'max':>12}{'vs target':>11}{'vs calib':>10}")
    for game_id, median, low, high in rows:
        print(f"{game_id:<14}{median:>16,.0f}{low:>12,.0f}{high:>12,.0f}{median / TARGET:>10.2f}x{median / calib:>10.4f}")
    slow = [row[0] for row in rows if row[1] < TARGET]
    print("below target: " + (", ".join(slow) if slow else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
