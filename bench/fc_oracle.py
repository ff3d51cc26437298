"""Broken Deck's solver beside fc-solve (Freecell Solver, Debian's
``freecell-solver-bin``), an independent solver, on the same layouts in
the same run.

A practice layout has all six repairs done: 52 whole cards dealt round
robin to eight columns, four empty free cells, an empty Repair Slot
(``BrokenDeck._deal``).  Without halves the slot takes nothing, so the
position is a FreeCell deal and fc-solve's default game is the same
game: four free cells, eight columns, columns built down in alternating
colours, any card on an empty column, foundations up by suit from the
Ace, no card taken back from a foundation, and group moves limited to
(empty cells + 1) × 2^(empty columns other than the destination) in both
(``BrokenDeck._capacity``; fc-solve's ``--sequence-move limited``).  The
one difference is in how moves are counted, not in what is legal: our
group move is one move, fc-solve's meta-moves bundle several; both only
ever play legal positions of the same game.  fc-solve's default
configuration searches with meta-moves and can say "I could not solve
this game" of a solvable deal (its ``--help`` says so); that answer is
shown as ``not solved``, never as a proof.

The normal deals (with halves) have no fc-solve form: they are solved by
our solver alone, deals 1..N as players get them.

Seconds are CPU seconds on both sides: ours ``time.process_time`` around
``solve``, fc-solve's from ``getrusage(RUSAGE_CHILDREN)`` around its
process, its start-up included (a few milliseconds; the bench prints it,
measured on an empty board's parse, so the reader can take it off).
"""

from __future__ import annotations

import argparse
import math
import resource
import shutil
import statistics
import subprocess
import time
from typing import Any, Callable

from engine.cards import CODE, PART, RANK, SUITS
from engine.game import Game, Position
from engine.games import GAMES
from engine.games.broken_deck import CELLS, FOUNDATIONS, SLOT, TABLEAU
from engine.solver import UNKNOWN, UNWINNABLE, WON, solve
from engine.solver.certify import seeded_game
from server.runtime.progress import ProgressLine

FC_SOLVE = "fc-solve"
SOLVED = "solved"
NOT_SOLVED = "not solved"
FC_SOLVE_ITERATIONS = 50_000_000
"""fc-solve's ``--max-iters``: beyond what its CPU cap lets it check
(seeds 1059 and 1089 took 1.2 and 1.9 million states), so the cap decides."""
WALL_GUARD = 30
"""fc-solve's wall-clock timeout, in multiples of its CPU cap: only a guard
against a process that hangs, far above what the machine's load stretches."""
MISSING = "fc-solve is not installed (Debian package freecell-solver-bin): the oracle comparison is skipped"
RANK_NAMES = "0A23456789TJQK"


def fc_board(pos: Position) -> str:
    """``pos`` in fc-solve's board format (its README, "Usage"): the
    foundations, the free cells (``-`` for an empty one) and one line per
    column from the card at the bottom to the exposed one.  Only a
    position without halves has one: fc-solve knows no torn cards."""
    piles = pos.piles
    if any(PART[card] for pile in piles for card in pile) or piles[SLOT]:
        raise ValueError("only a position without halves and with an empty Repair Slot is a FreeCell position")
    founds = " ".join(f"{SUITS[suit]}-{RANK_NAMES[len(piles[f])]}" for suit, f in enumerate(FOUNDATIONS))
    cells = " ".join(CODE[piles[i][0]] if piles[i] else "-" for i in CELLS)
    columns = [": " + " ".join(CODE[card] for card in piles[i]) for i in TABLEAU]
    return "\n".join([f"Foundations: {founds}", f"Freecells: {cells}", *columns]) + "\n"


def fc_solve_available() -> bool:
    return shutil.which(FC_SOLVE) is not None


def fc_solve(board: str, seconds: float) -> tuple[str, float]:
    """fc-solve's answer on ``board`` (``SOLVED``, ``NOT_SOLVED``, or
    ``UNKNOWN`` when it gave up or passed ``seconds`` of CPU time, the cap
    ours has) and the CPU seconds its process took.  The cap is the
    kernel's CPU limit on the child, so a loaded machine stops neither
    solver early; the wall-clock timeout is only a guard."""
    limit = max(1, math.ceil(seconds))

    def capped() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 1))

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(
            [FC_SOLVE, "--max-iters", str(FC_SOLVE_ITERATIONS), "-"],
            input=board, capture_output=True, text=True, timeout=WALL_GUARD * limit, preexec_fn=capped,
        )
        answer = done.stdout
    except subprocess.TimeoutExpired:
        answer = ""
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if "This game is solveable." in answer:
        return SOLVED, spent
    if "I could not solve this game." in answer:
        return NOT_SOLVED, spent
    return UNKNOWN, spent


def fc_solve_startup() -> float:
    """CPU seconds of an fc-solve process that solves nothing (a board with
    every card home): the part of each of its times that is start-up."""
    home = "Foundations: " + " ".join(f"{suit}-K" for suit in SUITS) + "\n" + ":\n" * len(TABLEAU)
    return min(fc_solve(home, 10.0)[1] for _ in range(5))


def warm_up_freecell() -> None:
    """Broken Deck's compiled win search compiled or loaded from numba's
    cache before any deal's clock starts (about a second from the cache),
    as ``bench/solver.py`` does for WordLink's; nothing in a
    ``--baseline-root`` tree from before it."""
    try:
        from engine.solver.freecell import kernel_available
    except ImportError:
        return
    kernel_available()


class OutOfTime(Exception):
    """A deal's search passed its seconds: it counts as undecided, so the
    bench stops it there instead of spending the rest of its budget."""


def timed_solve(game: Game, budget: int, seconds: float) -> tuple[str, float, int]:
    """``solve`` with proof, stopped at ``seconds`` of CPU time: the
    result, the CPU seconds and the nodes it spent."""
    started = time.process_time()
    searched = [0]

    def watch(count: int) -> None:
        searched[0] = count
        if time.process_time() - started > seconds:
            raise OutOfTime

    try:
        found = solve(game, budget=budget, progress=watch)
        result, nodes = found.result, found.nodes
    except OutOfTime:
        result, nodes = UNKNOWN, searched[0]
    return result, time.process_time() - started, nodes


def seed_range(text: str) -> range:
    """``1001-2000`` (inclusive) or one seed, for ``--seeds``."""
    low, _, high = text.partition("-")
    try:
        first, last = int(low), int(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected FIRST-LAST, e.g. 1001-2000, not {text!r}") from None
    if first < 1 or last < first:
        raise argparse.ArgumentTypeError(f"expected 1 <= FIRST <= LAST, not {text!r}")
    return range(first, last + 1)


def _looped(items: range, label: str, each: Callable[[int], str]) -> None:
    """``each`` over ``items``, its line printed per item, with a progress line and ETA."""
    progress = ProgressLine(every=30.0, eta_label="done in about")
    for done, item in enumerate(items, start=1):
        print(each(item), flush=True)
        progress(done, len(items), label)
    progress.finish()


def oracle(args: argparse.Namespace, budget: int) -> int:
    """Practice layouts of ``args.seeds`` by both solvers, then normal deals
    1..``args.deals`` by ours; per-deal lines, then the summary."""
    if not fc_solve_available():
        print(MISSING)
        return 0
    startup = fc_solve_startup()
    warm_up_freecell()
    ours: list[tuple[str, float]] = []
    theirs: list[tuple[str, float]] = []

    def practice(seed: int) -> str:
        game = seeded_game("broken-deck", 1, seed, {"practice": True})
        theirs.append(fc_solve(fc_board(game.position), args.seconds))
        ours.append(timed_solve(game, budget, args.seconds)[:2])
        return f"practice seed {seed}: ours {ours[-1][0]} {ours[-1][1]:.3f} s, fc-solve {theirs[-1][0]} {theirs[-1][1]:.3f} s"

    normal: list[tuple[str, float]] = []

    def dealt(deal: int) -> str:
        normal.append(timed_solve(GAMES["broken-deck"](deal), budget, args.seconds)[:2])
        return f"normal deal {deal}: ours {normal[-1][0]} {normal[-1][1]:.3f} s"

    _looped(args.seeds, "practice layouts, both solvers", practice)
    _looped(range(1, args.deals + 1), "normal deals, ours", dealt)
    print(oracle_summary(args, ours, theirs, normal, startup))
    return 0


def _decided(results: list[tuple[str, float]], seconds: float) -> int:
    return sum(result in (WON, UNWINNABLE, SOLVED) and spent <= seconds for result, spent in results)


def oracle_summary(
    args: argparse.Namespace,
    ours: list[tuple[str, float]],
    theirs: list[tuple[str, float]],
    normal: list[tuple[str, float]],
    startup: float,
) -> str:
    """The table: decided and median CPU seconds of each side, and the ratio."""
    seeds = args.seeds
    left = [seed for seed, (result, spent) in zip(seeds, ours) if result == UNKNOWN or spent > args.seconds]
    their_left = [seed for seed, (result, _) in zip(seeds, theirs) if result != SOLVED]
    median: dict[str, Any] = {
        name: statistics.median(spent for _, spent in rows) for name, rows in (("ours", ours), ("fc", theirs))
    }
    lines = [
        f"Broken Deck practice layouts, seeds {seeds.start}-{seeds.stop - 1} ({len(seeds)}),"
        f" {args.seconds:g} CPU s at most per deal; fc-solve start-up {startup:.3f} s (included in its times)",
        f"{'solver':<34}{'decided':>9}{'median s':>10}{'p95 s':>8}",
        f"{'ours, practice':<34}{_decided(ours, args.seconds):>9}{median['ours']:>10.3f}{_p95(ours):>8.2f}",
        f"{'fc-solve (default config)':<34}{_decided(theirs, args.seconds):>9}{median['fc']:>10.3f}{_p95(theirs):>8.2f}",
    ]
    if normal:
        median["normal"] = statistics.median(spent for _, spent in normal)
        lines.append(
            f"{f'ours, normal deals 1-{len(normal)}':<34}{_decided(normal, args.seconds):>9}"
            f"{median['normal']:>10.3f}{_p95(normal):>8.2f}"
        )
    ratio = median["ours"] / max(median["fc"], 1e-9)
    lines.append(f"median ratio ours / fc-solve: x{ratio:.2f} (target <= x1.5: {'met' if ratio <= 1.5 else 'NOT met'})")
    strict = median["ours"] / max(median["fc"] - startup, 1e-9)
    lines.append(f"median ratio ours / fc-solve less its start-up: x{strict:.2f}")
    lines.append(f"undecided by ours: {left or 'none'}; not solved by fc-solve: {their_left or 'none'}")
    return "\n".join(lines)


def _p95(results: list[tuple[str, float]]) -> float:
    times = sorted(spent for _, spent in results)
    return times[min(len(times) - 1, int(0.95 * len(times)))]
