"""The compiled win search of Broken Deck positions without halves
(``engine.solver.freecell_kernel``), and the line it finds as moves
checked against the game.

Where it runs: a proving solve (``engine.solver.driver.solve``) of a
Broken Deck position with no half on the board and an empty Repair Slot
asks it first.  A win it finds is replayed here through the game's own
moves (each one among ``moves_from`` of the position it is played in,
the last position won) before it is returned, so a kernel bug can only
cost time, never a false win; when it finds none within its budget the
Python searches run as before, with their whole budget, and they alone
prove a loss.  Hints, finishing and pool builds do not ask it: they
must spend the same nodes on every machine, numba or not.
"""

from __future__ import annotations

import logging
import os
from functools import cache
from typing import Any

from ..cards import PART, RANK, SUIT
from ..game import Game, Move, Position
from ..games.broken_deck import CELLS, SLOT, TABLEAU
from .compiled import COMPILER_MODULES, PURE_ENV
from .search import Progress

log = logging.getLogger("arena.solver")

KERNEL_WEIGHTS = ((2, 1, 2, 4, 2, 1), (2, 0, 1, 4, 2, 1), (4, 1, 2, 4, 2, 1), (2, 2, 2, 4, 2, 1))
"""The weights of ``BrokenDeckDomain.score`` the kernel takes turns with:
its ``WEIGHTS``, then the set of four (of seven tried, ``OTHER_WEIGHTS``
among them) whose turns decided every practice layout of seeds
1001-2000 in the fewest expansions (each weighting run alone to 100,000
expansions left 6-45 of them undecided; the second one here, with
buried cards weighing nothing, 45, but it wins seed 1090 in 29,864)."""
FIRST_RUN = 4_000
"""Expansions of each weighting's first run: past the median deal's few hundred."""
LONGEST_RUN = 256_000
"""Expansions of each weighting's last run (about a second, 200-300 MB
of rows); beyond it the Python searches take over."""
FIRST_ROOM = 1 << 12
"""Rows the kernel starts with (they double when full): a typical deal is
won within a few hundred expansions, and a bigger start costs a deal more
in zeroed memory than its search."""


@cache
def _kernel() -> Any:
    """The kernel module, compiled or loaded from numba's cache, or None
    where numba is missing or cannot compile or cache (one warning: the
    Python search then runs alone, slower, with the same verdicts)."""
    try:
        import numpy

        from . import freecell_kernel

        freecell_kernel.search(numpy.full(freecell_kernel.ROW, freecell_kernel.END, dtype=numpy.uint8),
                               numpy.array(KERNEL_WEIGHTS[0], dtype=numpy.int64), 1, 2)
    except ModuleNotFoundError as missing:
        if missing.name not in COMPILER_MODULES:
            log.warning("the compiled Broken Deck search is off: %s", missing)
        return None
    except Exception as error:
        log.warning("the compiled Broken Deck search is off: %s: %s", type(error).__name__, error)
        return None
    return freecell_kernel


def kernel_available() -> bool:
    return os.environ.get(PURE_ENV) != "1" and _kernel() is not None


def _row(numpy: Any, pos: Position) -> Any:
    """``pos`` as the kernel's row (its module docstring)."""
    kernel = _kernel()
    row = numpy.full(kernel.ROW, kernel.END, dtype=numpy.uint8)
    at = 0
    for pile in TABLEAU:
        for card in pos.piles[pile]:
            row[at] = SUIT[card] * 13 + RANK[card] - 1
            at += 1
        at += 1
    for offset, pile in enumerate(CELLS):
        if pos.piles[pile]:
            card = pos.piles[pile][0]
            row[kernel.CELL_AT + offset] = SUIT[card] * 13 + RANK[card] - 1
    return row


def without_halves(pos: Position) -> bool:
    """Whether ``pos`` is a FreeCell position: no half anywhere, the slot empty."""
    return not pos.piles[SLOT] and not any(PART[card] for pile in pos.piles for card in pile)


def compiled_win(
    game: Game, start: Position, budget: int, after: Move | None = None, progress: Progress | None = None
) -> tuple[tuple[Move, ...], int] | None:
    """A winning line from ``start`` found by the kernel within about
    ``budget`` expansions in all, checked move by move, and the expansions
    spent; None where the kernel does not run, finds nothing, or its line
    starts by taking back ``after``.  ``progress`` hears the expansions
    spent after each run of the kernel.

    The runs take turns over ``KERNEL_WEIGHTS`` on budgets that double from
    ``FIRST_RUN`` up to ``LONGEST_RUN``, each starting afresh: best-first
    search has heavy tails and the weights that win fast differ by deal
    (practice seed 1090: no win in 2,000,000 expansions with the first
    weights, won in 269,096 with the second and 29,864 with the fifth).
    Starting afresh costs at most the runs before, less than the last one."""
    if not without_halves(start) or not kernel_available():
        return None
    import numpy

    kernel = _kernel()
    row = _row(numpy, start)
    spent, run = 0, FIRST_RUN
    while spent < budget:
        for weights in KERNEL_WEIGHTS:
            status, nodes, line = kernel.search(row, numpy.array(weights, dtype=numpy.int64), min(run, budget - spent), FIRST_ROOM)
            spent += int(nodes)
            if progress is not None:
                progress(spent)
            if status == kernel.WON:
                moves = _checked(game, start, line)
                return (moves, spent) if moves and not moves[0].undoes(after) else None
            if status == kernel.EXHAUSTED or spent >= budget:
                return None
        if run >= LONGEST_RUN:
            return None
        run *= 2
    return None


def _checked(game: Game, start: Position, line: Any) -> tuple[Move, ...]:
    """The kernel's (src, dst, count) rows as the game's moves, each legal
    where it is played and the last one winning; empty if not (a kernel
    bug, logged)."""
    names = game.PILES
    pos = start
    moves = []
    for src, dst, count in line.tolist():
        move = Move(names[src], names[dst], count)
        if move not in game.moves_from(pos):
            log.error("the compiled Broken Deck search played %s where it is illegal", move)
            return ()
        moves.append(move)
        pos = game.successor(pos, move)
    if not game.is_won(pos):
        log.error("the compiled Broken Deck search's line does not win")
        return ()
    return tuple(moves)
