"""The sound WordLink search, compiled when numba imports.

``proof_search`` is the one place that picks it: a sound (``bold=False``)
``KlondikeDomain`` gets a ``CompiledSearch`` when numba imports and the
environment variable ``ARENA_SOLVER_PURE`` is not ``1``; anything else, or
no numba, gets the pure-Python ``depth_first`` search as before (the
fallback stays tested: ``tests/solver/test_compiled_klondike.py``).
Hints and the bold searches stay in Python: hints must spend the same
nodes everywhere, and the bold domain's gain is finding wins early, not
expanding many positions.

``CompiledSearch`` answers exactly what ``depth_first`` over the same
domain answers for any root and budget: the same result, the same nodes
and a line of the same moves, because the kernel
(``engine.solver.klondike_kernel``) generates the same steps in the same
order and merges the same positions.  The line is rebuilt here from the
index of the step the kernel chose at each depth by replaying the Python
domain's ``steps``, so every win is checked against the Python domain at
run time (a mismatch raises ``CompiledMismatch`` rather than answer
something the Python search would not), then replayed through the
checked engine by whoever uses it, as every win is.

The kernel's transposition table stores 64-bit hashes of the domain's key
in an open-addressing table, not the keys, for the reason ``search.py``
gives: two different positions with the same hash would be merged and
the second one never expanded.  The hash is SplitMix64's finaliser over
the talon's hash, the pointer where the key holds it, and the columns'
hash: the sum of one hash per column base (the finaliser chained over
its face-down cards and first face-up card, then its face-down count)
and one per link of ``twin_blind_columns`` (a card and what it lies on).
The talon's is the sum of one finalised hash per pair of neighbouring
cards (its cards are distinct, so those pairs are the talon).  Sums of
well-mixed 64-bit values behave as one such value, so the hash collides
like a random 64-bit one.  With n positions the chance of any such pair
is about n² / 2^65: below 3 in 10,000 even for the 100 million
positions no budget here reaches (a proving solve's 300,000-node default
allows at most ``COMPILED_SOUND_FACTOR`` × 150,000 = 4.5 million sound
positions, a chance below 1 in 1.8 million, in a table of 128 MB), the same
order as the Python search's own ``hash`` of the key; and a win, the
claim a player sees played, is replayed move by move.
"""

from __future__ import annotations

import logging
import os
from functools import cache
from typing import Any, NamedTuple

from ..game import Move, Position
from ..games.klondike import FOUNDATIONS, STOCK, TABLEAU, WASTE
from .klondike import KlondikeDomain
from .search import UNKNOWN, UNWINNABLE, WON, Domain, Progress, Solution

log = logging.getLogger("arena.solver")

PURE_ENV = "ARENA_SOLVER_PURE"
"""Set to ``1`` to run the pure-Python proof search even where numba imports."""
COMPILED_SOUND_FACTOR = 30
"""How many compiled sound nodes a proving solve grants for each node of
its sound share (``engine.solver.driver``): a compiled expansion costs
about a thirtieth of a Python one (``python bench/solver.py
--sound-rate --deals 30``: 24.4x in draw 1, 28.3x in draw 3, with the
twin rule in both searches; 29.2x and 32.9x on deals 1-10 before it),
so a node of any budget still
costs about the same CPU time (``DEFAULT_BUDGET``'s 10 s, ``arena
solve``'s estimate stay true), the sound search keeps its share of that
time, and it proves losses thirty times larger.  The factor follows the
measured speed rather than a search for the best share: at the kernel's
earlier speed (17-19x), bigger factors took time from the bold search's
wins, and the best one was within noise of the speed ratio (draw-3
deals 1-200: 20 decided 92.0%, 50 92.5%, 200 90.5%; docs/solver.md)."""
PROGRESS_CHUNK = 50_000
"""Nodes the kernel expands between two calls of ``progress`` (about a tenth of a second)."""
MOST_NODES = 1 << 62
"""Budgets beyond it (an unlimited solve's, times ``COMPILED_SOUND_FACTOR``) are cut to it: the kernel counts in 64 bits."""
FIRST_TABLE = 1 << 16
FIRST_DEPTH = 256
COMPILER_MODULES = ("numba", "llvmlite", "numpy")
"""Where one of these is not installed there is no compiled search, and nothing to warn about."""


class CompiledMismatch(RuntimeError):
    """The compiled search chose a step the Python domain does not have:
    a bug in the kernel, never a property of the deal."""


@cache
def _kernel() -> Any:
    """The compiled kernel module, imported and compiled at first need
    (numba takes about a second to import), or None where it cannot run.

    None silently where numba is not installed.  Any other failure, in
    numba's import, its cache (``RuntimeError: cannot cache function ...:
    no locator available`` where neither the package's ``__pycache__`` nor
    the home directory is writable and ``NUMBA_CACHE_DIR`` is unset) or
    its compiler, is one warning and None: proofs then run in pure Python,
    slower but with the same answers, rather than fail every analysis.
    The kernel is compiled here, on an empty board, so that a compile or
    cache error surfaces in this one place and not in the middle of a
    search (compiling is what its first search would pay anyway)."""
    try:
        from . import klondike_kernel

        _compile(klondike_kernel)
    except ModuleNotFoundError as missing:
        if missing.name not in COMPILER_MODULES:
            _warn_pure(missing)
        return None
    except Exception as error:
        _warn_pure(error)
        return None
    return klondike_kernel


def _warn_pure(error: BaseException) -> None:
    log.warning(
        "the compiled WordLink proof search is off, proofs run in pure Python (slower, same answers): %s: %s; "
        "set NUMBA_CACHE_DIR to a writable directory to compile it",
        type(error).__name__,
        error,
    )


def _compile(kernel: Any) -> None:
    """Have numba compile (or load from its cache) the kernel's entry
    points, with the argument types ``CompiledSearch`` passes them."""
    import numpy

    from .klondike_kernel_steps import MAX_MOVES

    board = _empty_board(numpy)
    stack, scratch = _stack(numpy, 2), _scratch(numpy)
    table, scalars = numpy.zeros(2, dtype=numpy.uint64), numpy.zeros(3, dtype=numpy.int64)
    kernel.begin(board, stack, table, scalars, 1, scratch)
    kernel.advance(board, stack, numpy.zeros(MAX_MOVES, dtype=numpy.bool_), table, scalars, 0, 1, scratch)
    kernel.grown_table(table)


def compiled_available() -> bool:
    """Whether proofs of WordLink deals run compiled here."""
    return os.environ.get(PURE_ENV) != "1" and _kernel() is not None


def proof_search(domain: Domain, start: Position, after: Move | None, progress: Progress | None) -> CompiledSearch | None:
    """The compiled search of a sound WordLink domain, or None where the
    pure-Python search runs (another domain, no numba, ``ARENA_SOLVER_PURE=1``,
    or a column longer than play can build, which the kernel has no room for)."""
    if not (isinstance(domain, KlondikeDomain) and not domain.bold and compiled_available()):
        return None
    if max(len(start.piles[pile]) for pile in TABLEAU) > _kernel().COLUMN_CARDS - 13:
        return None
    return CompiledSearch(domain, start, after=after, progress=progress)


class CompiledSearch:
    """``depth_first(domain, root, after=after)`` for a sound
    ``KlondikeDomain``, compiled, with ``Resumable``'s ``run`` and
    ``verdict``: the stack and table stay between calls, so a driver that
    resumes it on growing budgets spends no node twice."""

    def __init__(
        self,
        domain: KlondikeDomain,
        root: Position,
        *,
        after: Move | None = None,
        progress: Progress | None = None,
        table_size: int = FIRST_TABLE,
        depth: int = FIRST_DEPTH,
    ) -> None:
        """``table_size`` (a power of two) and ``depth`` are where the table
        and the stack start; both double when full."""
        self.domain, self.progress = domain, progress
        self.verdict: Solution | None = None
        self.prefix, self.start = domain.forced(root)
        if self.prefix and self.prefix[0].undoes(after):
            self.prefix, self.start = (), root
        if domain.won(self.start):
            self.verdict = Solution(WON, self.prefix, 0)
            return
        root_steps = domain.steps(self.start)
        kernel = _kernel()
        self.kernel = kernel
        self.per_draw = domain.per_draw
        import numpy

        from .klondike_kernel_steps import MAX_MOVES

        self.allowed = numpy.zeros(MAX_MOVES, dtype=numpy.bool_)
        for index, step in enumerate(root_steps):
            self.allowed[index] = bool(self.prefix) or not step.moves[0].undoes(after)
        self.complete = bool(self.allowed[: len(root_steps)].all())
        self.board = _board(numpy, self.start)
        self.stack = _stack(numpy, depth)
        self.table = numpy.zeros(table_size, dtype=numpy.uint64)
        self.scalars = numpy.zeros(3, dtype=numpy.int64)
        self.scratch = _scratch(numpy)
        kernel.begin(self.board, self.stack, self.table, self.scalars, self.per_draw, self.scratch)
        if self.stack.nmoves[0] != len(root_steps):
            raise CompiledMismatch(f"{self.stack.nmoves[0]} root steps compiled, {len(root_steps)} in Python")

    @property
    def nodes(self) -> int:
        return int(self.scalars[self.kernel.NODES])

    def run(self, budget: int) -> Solution:
        """The verdict, or ``UNKNOWN`` once ``budget`` nodes (the total) are spent."""
        if self.verdict is not None:
            return self.verdict
        kernel = self.kernel
        budget = min(budget, MOST_NODES)
        while True:
            stop = budget if self.progress is None else min(budget, self.nodes + PROGRESS_CHUNK)
            status = kernel.advance(self.board, self.stack, self.allowed, self.table, self.scalars, stop, self.per_draw, self.scratch)
            if status == kernel.GROW_TABLE:
                self.table = kernel.grown_table(self.table)
            elif status == kernel.GROW_STACK:
                self.stack = _deeper(self.stack)
            elif status == kernel.BUDGET_SPENT:
                if self.progress is not None:
                    self.progress(self.nodes)
                if self.nodes >= budget:
                    return Solution(UNKNOWN, (), self.nodes)
            elif status == kernel.EXHAUSTED:
                self.verdict = Solution(UNWINNABLE if self.complete else UNKNOWN, (), self.nodes)
                return self.verdict
            else:
                self.verdict = Solution(WON, self.prefix + self._line(), self.nodes)
                return self.verdict

    def _line(self) -> tuple[Move, ...]:
        """The moves of the kernel's path, replayed through the Python
        domain's steps: the index chosen at each depth (the cursor has
        moved past it, except at the top, where the win was found)."""
        cursor, nmoves = self.stack.cursor, self.stack.nmoves
        depth = int(self.scalars[self.kernel.DEPTH])
        chosen = [int(cursor[level]) - 1 for level in range(depth)] + [int(cursor[depth])]
        moves: list[Move] = []
        pos = self.start
        for level, index in enumerate(chosen):
            steps = self.domain.steps(pos)
            if len(steps) != nmoves[level] or index >= len(steps):
                raise CompiledMismatch(f"depth {level}: {nmoves[level]} steps compiled, {len(steps)} in Python")
            moves.extend(steps[index].moves)
            pos = steps[index].position
        if not self.domain.won(pos):
            raise CompiledMismatch("the compiled line does not win in the Python domain")
        return tuple(moves)


class Scratch(NamedTuple):
    """Working arrays the kernel reuses instead of allocating per position
    (numpy arrays; numpy is imported with the kernel, at first need)."""

    cand: Any
    empty: Any
    met: Any
    wants: Any
    ranked: Any
    safe: Any


def _scratch(np: Any) -> Scratch:
    from .klondike_kernel import TALON_CARDS
    from .klondike_kernel_steps import MAX_MOVES

    return Scratch(
        cand=np.zeros((MAX_MOVES, 5), dtype=np.int64),
        empty=np.zeros(7, dtype=np.int64),
        met=np.zeros(TALON_CARDS + 1, dtype=np.bool_),
        wants=np.zeros(28, dtype=np.int64),
        ranked=np.zeros(MAX_MOVES, dtype=np.int64),
        safe=np.zeros(4, dtype=np.bool_),
    )


class Board(NamedTuple):
    """The one position the kernel plays steps on and takes them back
    from (``klondike_kernel_steps``' docstring), numpy arrays."""

    cards: Any
    counts: Any
    hashes: Any


class Stack(NamedTuple):
    """Per depth of the search: its steps, where it is in them, and what
    taking back the step tried there needs (``klondike_kernel``)."""

    moves: Any
    nmoves: Any
    cursor: Any
    undo: Any
    saved: Any
    settled: Any


def _board(np: Any, start: Position) -> Board:
    """``start`` on the kernel's board (the kernel computes its hashes)."""
    from .klondike_kernel_steps import CDOWN, CLEN, HEIGHT, PTR, TALON, TLEN

    piles, down = start.piles, start.down
    board = _empty_board(np)
    for column, pile in enumerate(TABLEAU):
        board.cards[column, : len(piles[pile])] = piles[pile]
        board.counts[CLEN + column] = len(piles[pile])
        board.counts[CDOWN + column] = down[pile]
    talon = piles[WASTE] + piles[STOCK][::-1]
    board.cards[TALON, : len(talon)] = talon
    board.counts[HEIGHT : HEIGHT + 4] = [len(piles[f]) for f in FOUNDATIONS]
    board.counts[TLEN], board.counts[PTR] = len(talon), len(piles[WASTE])
    return board


def _empty_board(np: Any) -> Board:
    """A board without a card (no column, no talon, no foundation)."""
    from .klondike_kernel import COLUMN_CARDS, TALON_CARDS
    from .klondike_kernel_steps import COUNTS

    return Board(
        cards=np.zeros((8, max(COLUMN_CARDS, TALON_CARDS + 1)), dtype=np.int16),
        counts=np.zeros(COUNTS, dtype=np.int64),
        hashes=np.zeros((8, COLUMN_CARDS + 1), dtype=np.uint64),
    )


def _stack(np: Any, depth: int) -> Stack:
    """An empty stack ``depth`` deep."""
    from .klondike_kernel import KEPT, MOST_SETTLED
    from .klondike_kernel_steps import MAX_MOVES

    return Stack(
        moves=np.zeros((depth, MAX_MOVES, 4), dtype=np.int16),
        nmoves=np.zeros(depth, dtype=np.int64),
        cursor=np.zeros(depth, dtype=np.int64),
        undo=np.zeros((depth, 3), dtype=np.int64),
        saved=np.zeros((depth, KEPT), dtype=np.uint64),
        settled=np.zeros((depth, MOST_SETTLED, 3), dtype=np.int16),
    )


def _deeper(stack: Stack) -> Stack:
    """The same stack with twice the depth, its levels kept."""
    import numpy as np

    grown = []
    for array in stack:
        bigger = np.zeros((2 * array.shape[0],) + array.shape[1:], dtype=array.dtype)
        bigger[: array.shape[0]] = array
        grown.append(bigger)
    return Stack(*grown)
