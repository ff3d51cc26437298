"""Following hints alone: how many verified deals does that win?

For each game and variant, the first ``--deals`` deals of its verified pool
(``engine/data/<variant>.txt``, so every deal is winnable and the sample is
the same on every run) are played by asking for a hint and playing it,
again and again, until the game is won, lost, the hint is None (no move
leads anywhere new) or ``--max-moves`` hints were played.  Hints are the
server's (``hint_for_view``: from the player's view only, at the game's
default budget); Broken Deck is played in Relaxed.  Printed: the share
won, how the others ended, hints per deal and seconds per hint.

    python bench/hints.py [--deals 100] [--games klondike-draw3 ...] [--max-moves 1000]

Progress goes to stderr: one line redrawn in place with an ETA on a
terminal, a plain line per deal otherwise (a log stays readable).
Target (issue 12): at least 95% won.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Any

if not __package__:
    # Run as a file, Python puts bench/ first on sys.path, where this very
    # file would shadow the package it measures.
    sys.path.pop(0)

import engine  # noqa: E402
from engine.solver.assist import hint_for_view  # noqa: E402
from engine.solver.pools import VARIANTS  # noqa: E402
from server.pools import verified_deals  # noqa: E402

TARGET = 0.95
ENDINGS = ("won", "lost", "stuck", "capped")


def sample(variant: str, count: int) -> list[int]:
    """The first ``count`` deal numbers of ``variant``'s verified pool."""
    return verified_deals(*VARIANTS[variant])[:count]


def follow(game: engine.Game, max_moves: int) -> tuple[str, int, float]:
    """Play hints until the game ends; how it ended, hints played, seconds spent."""
    played, seconds = 0, 0.0
    while game.status == engine.PLAYING:
        if played == max_moves:
            return "capped", played, seconds
        started = time.perf_counter()
        move = hint_for_view(game)
        seconds += time.perf_counter() - started
        if move is None:
            return "stuck", played, seconds
        game.play(move)
        played += 1
    return game.status, played, seconds


class Progress:
    """Deals done, the running share won and an ETA, on stderr."""

    def __init__(self, name: str, total: int) -> None:
        self.name, self.total, self.started = name, total, time.monotonic()
        self.live = sys.stderr.isatty()

    def show(self, done: int, won: int, deal: int, ending: str) -> None:
        elapsed = time.monotonic() - self.started
        eta = elapsed / done * (self.total - done)
        text = f"{self.name:<15} [{done}/{self.total}] won {won} ({won / done:.0%})  ETA {eta / 60:.1f} min"
        if self.live:
            print(f"\r{text}   ", end="" if done < self.total else "\n", file=sys.stderr, flush=True)
        else:
            print(f"{text}  deal {deal}: {ending}", file=sys.stderr, flush=True)


def run(variant: str, deals: list[int], max_moves: int) -> dict[str, Any]:
    game_id, options = VARIANTS[variant]
    endings = dict.fromkeys(ENDINGS, 0)
    hints, per_hint = [], []
    progress = Progress(variant, len(deals))
    for done, deal in enumerate(deals, start=1):
        game = engine.new_game(game_id, deal, **options)
        ending, played, seconds = follow(game, max_moves)
        endings[ending] += 1
        hints.append(played)
        if played:
            per_hint.append(seconds / played)
        progress.show(done, endings["won"], deal, ending)
    return {"variant": variant, "endings": endings, "hints": statistics.median(hints), "per_hint": statistics.median(per_hint)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100, help="verified deals per variant (default 100)")
    parser.add_argument("--games", nargs="+", choices=sorted(VARIANTS), default=list(VARIANTS))
    parser.add_argument("--max-moves", type=int, default=1000, help="hints played at most per deal (default 1000)")
    args = parser.parse_args()
    rows = [run(variant, sample(variant, args.deals), args.max_moves) for variant in args.games]
    print(f"following hints alone, the first {args.deals} verified deals per variant, one core")
    print(f"{'variant':<15}{'won':>7}{'lost':>6}{'stuck':>7}{'capped':>8}{'hints/deal':>12}{'ms/hint':>9}")
    for row in rows:
        endings, total = row["endings"], sum(row["endings"].values())
        print(
            f"{row['variant']:<15}{endings['won'] / total:>6.0%} {endings['lost']:>5}{endings['stuck']:>7}{endings['capped']:>8}"
            f"{row['hints']:>12.0f}{1000 * row['per_hint']:>9.0f}"
        )
    for row in rows:
        share = row["endings"]["won"] / sum(row["endings"].values())
        print(f"{row['variant']}: {share:.1%} won, target {TARGET:.0%}: {'met' if share >= TARGET else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
