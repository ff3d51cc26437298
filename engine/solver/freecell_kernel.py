"""Broken Deck's bold best-first search, compiled by numba, for positions
without halves (a practice layout, or any position once every repair is
done): then the game is FreeCell, and the Python search, at 0.2-0.4 ms a
position, spends most of a typical deal's time on its first hundred
positions (``python bench/solver.py --oracle fc-solve``).

It searches what ``BrokenDeckDomain(bold=True)`` searches: the same
moves (never a whole card from a cell to another cell, a whole column to
an empty column, or a move to an empty column or cell other than the
first one), the same safe cards sent home after each move (its
``forced_move``), positions merged up to the order of columns and of
cells, expanded by the same ``score`` with the weights passed in.  It
only looks for wins: its exhaustion proves nothing (the bold domain's
never does), so the sound Python search keeps every proof.  A win is a
list of moves the caller replays through the game (``engine.solver.
freecell``), so the kernel's word is never taken for a win.

A position is a row of 64 bytes: the columns' cards from the bottom up,
each column ended by ``END``, then the four cells (``END`` when empty);
a card is ``suit * 13 + rank - 1`` (suits as ``engine.cards.SUITS``).
The foundations are the cards missing from the row, so the row is the
whole position.  Rows, the step that made each (its moves in a shared
pool) and its parent grow in arrays that double when full; the open set
is a binary heap of ``score << 32`` plus a falling counter, so among
equal scores the latest position comes first, as in ``search.best_first``.
The transposition table holds 64-bit hashes, as the WordLink kernel's
does (``engine.solver.compiled`` says why that is safe for a win search:
the line is replayed).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .klondike_kernel_hash import grown_table, mix, probe

ROW = 64
CELL_AT = 60
END = 255
FOUNDATION = 13
"""Pile numbers as ``engine.games.broken_deck``: columns 0-7, cells 8-11, foundations 13-16."""
MAX_STEPS = 256
MOST_CARDS = 52
WON = 0
BUDGET_SPENT = 1
EXHAUSTED = 2
_COLUMN_SEED = np.uint64(0xF2EE)
_CELL_SEED = np.uint64(0xCE11)
_ZERO = np.uint64(0)


@njit(cache=True, nogil=True)
def _red(card: int) -> bool:
    suit = card // 13
    return suit == 1 or suit == 2


@njit(cache=True, nogil=True)
def _fits(card: int, onto: int) -> bool:
    """Whether ``card`` may lie on ``onto`` in a column."""
    return onto % 13 == card % 13 + 1 and _red(card) != _red(onto)


@njit(cache=True, nogil=True)
def _decode(row, cols, lens, cells, found) -> None:  # type: ignore[no-untyped-def]
    at = 0
    found[:] = 13
    for column in range(8):
        count = 0
        while row[at] != END:
            cols[column, count] = row[at]
            found[row[at] // 13] -= 1
            count += 1
            at += 1
        lens[column] = count
        at += 1
    for cell in range(4):
        cells[cell] = row[CELL_AT + cell]
        if cells[cell] != END:
            found[cells[cell] // 13] -= 1


@njit(cache=True, nogil=True)
def _encode(cols, lens, cells, row) -> None:  # type: ignore[no-untyped-def]
    at = 0
    for column in range(8):
        for index in range(lens[column]):
            row[at] = cols[column, index]
            at += 1
        row[at] = END
        at += 1
    while at < CELL_AT:
        row[at] = END
        at += 1
    for cell in range(4):
        row[CELL_AT + cell] = cells[cell]


@njit(cache=True, nogil=True)
def _hash(cols, lens, cells) -> np.uint64:  # type: ignore[no-untyped-def]
    """Column hashes and cell hashes summed: the order of either is ignored."""
    total = _ZERO
    for column in range(8):
        if lens[column]:
            h = _COLUMN_SEED
            for index in range(lens[column]):
                h = mix(h, np.uint64(cols[column, index]))
            total += h
    for cell in range(4):
        if cells[cell] != END:
            total += mix(_CELL_SEED, np.uint64(cells[cell]))
    return total


@njit(cache=True, nogil=True)
def _shift(cols, lens, cells, found, src: int, dst: int, count: int) -> None:  # type: ignore[no-untyped-def]
    """Move ``count`` cards from ``src`` to ``dst`` without a check (moves
    are checked when generated; undoing is the reverse shift)."""
    for index in range(count):
        if src < 8:
            card = cols[src, lens[src] - count + index]
        elif src < FOUNDATION:
            card = cells[src - 8]
        else:
            card = (src - FOUNDATION) * 13 + found[src - FOUNDATION] - 1
        if dst < 8:
            cols[dst, lens[dst] + index] = card
        elif dst < FOUNDATION:
            cells[dst - 8] = card
        else:
            found[dst - FOUNDATION] += 1
    if src < 8:
        lens[src] -= count
    elif src < FOUNDATION:
        cells[src - 8] = END
    else:
        found[src - FOUNDATION] -= count
    if dst < 8:
        lens[dst] += count


@njit(cache=True, nogil=True)
def _safe_home(card: int, found) -> bool:  # type: ignore[no-untyped-def]
    """``BrokenDeckDomain.forced_move``'s rule: the next card of its suit,
    rank 2 or less, or both foundations of the other colour at rank - 1."""
    suit, rank = card // 13, card % 13 + 1
    if rank != found[suit] + 1:
        return False
    if rank <= 2:
        return True
    low, high = (1, 2) if suit == 0 or suit == 3 else (0, 3)
    return min(found[low], found[high]) >= rank - 1


@njit(cache=True, nogil=True)
def _settle(cols, lens, cells, found, done) -> int:  # type: ignore[no-untyped-def]
    """Send safe cards home (columns first, then cells, as the Python
    domain looks), noting each (source, foundation) in ``done``; how many went."""
    sent = 0
    moved = True
    while moved:
        moved = False
        for pile in range(12):
            if pile < 8:
                if not lens[pile]:
                    continue
                card = cols[pile, lens[pile] - 1]
            else:
                card = cells[pile - 8]
                if card == END:
                    continue
            if _safe_home(card, found):
                _shift(cols, lens, cells, found, pile, FOUNDATION + card // 13, 1)
                done[sent, 0], done[sent, 1] = pile, FOUNDATION + card // 13
                sent += 1
                moved = True
                break
    return sent


@njit(cache=True, nogil=True)
def _score(cols, lens, cells, found, weights) -> int:  # type: ignore[no-untyped-def]
    """``BrokenDeckDomain.score`` of a position without halves."""
    buried = 0
    disorder = 0
    home = 0
    for suit in range(4):
        home += found[suit]
    for column in range(8):
        top = lens[column]
        for index in range(top):
            card = cols[column, index]
            if index and not _fits(card, cols[column, index - 1]):
                disorder += 1
            if card % 13 + 1 == found[card // 13] + 1:
                buried += top - 1 - index
    occupied = 0
    for cell in range(4):
        occupied += cells[cell] != END
    return weights[0] * (52 - home) + weights[1] * buried + weights[2] * occupied + weights[5] * disorder


@njit(cache=True, nogil=True)
def _steps(cols, lens, cells, found, out) -> int:  # type: ignore[no-untyped-def]
    """The bold domain's moves as (src, dst, count) rows of ``out``, in
    about the game's hint order; how many."""
    n = 0
    empty_cells = 0
    first_cell = -1
    for cell in range(4):
        if cells[cell] == END:
            empty_cells += 1
            if first_cell < 0:
                first_cell = 8 + cell
    empty_columns = 0
    first_column = -1
    for column in range(8):
        if not lens[column]:
            empty_columns += 1
            if first_column < 0:
                first_column = column
    for pile in range(12):
        card = cols[pile, lens[pile] - 1] if pile < 8 and lens[pile] else (cells[pile - 8] if pile >= 8 else END)
        if card != END and card % 13 == found[card // 13]:
            out[n, 0], out[n, 1], out[n, 2] = pile, FOUNDATION + card // 13, 1
            n += 1
    onto_cards = (empty_cells + 1) << empty_columns
    for src in range(8):
        size = lens[src]
        count = 1
        while count <= size and count <= onto_cards:
            base = cols[src, size - count]
            if count > 1 and not _fits(cols[src, size - count + 1], base):
                break
            for dst in range(8):
                if dst != src and lens[dst] and _fits(base, cols[dst, lens[dst] - 1]):
                    out[n, 0], out[n, 1], out[n, 2] = src, dst, count
                    n += 1
            count += 1
    for cell in range(4):
        card = cells[cell]
        if card != END:
            for dst in range(8):
                if lens[dst] and _fits(card, cols[dst, lens[dst] - 1]):
                    out[n, 0], out[n, 1], out[n, 2] = 8 + cell, dst, 1
                    n += 1
    if first_cell >= 0:
        for src in range(8):
            if lens[src]:
                out[n, 0], out[n, 1], out[n, 2] = src, first_cell, 1
                n += 1
    if first_column >= 0:
        onto_empty = onto_cards >> 1
        for src in range(8):
            size = lens[src]
            count = 1
            while count < size and count <= onto_empty:
                if count > 1 and not _fits(cols[src, size - count + 1], cols[src, size - count]):
                    break
                out[n, 0], out[n, 1], out[n, 2] = src, first_column, count
                n += 1
                count += 1
        for cell in range(4):
            if cells[cell] != END:
                out[n, 0], out[n, 1], out[n, 2] = 8 + cell, first_column, 1
                n += 1
    return n


@njit(cache=True, nogil=True)
def _grow(array):  # type: ignore[no-untyped-def]
    bigger = np.empty((2 * array.shape[0],) + array.shape[1:], dtype=array.dtype)
    bigger[: array.shape[0]] = array
    return bigger


@njit(cache=True, nogil=True)
def _seen(table, signature: np.uint64) -> bool:  # type: ignore[no-untyped-def]
    """Whether ``signature`` is in the open-addressing ``table`` (0 marks a
    free slot, so a hash of 0 is stored as 1); adds it if not."""
    if signature == _ZERO:
        signature = np.uint64(1)
    slot = probe(table, signature)
    if slot >= 0:
        return True
    table[-1 - slot] = signature
    return False


@njit(cache=True, nogil=True)
def _push(keys, values, size: int, key: int, value: int) -> None:  # type: ignore[no-untyped-def]
    at = size
    while at:
        up = (at - 1) >> 1
        if keys[up] <= key:
            break
        keys[at], values[at] = keys[up], values[up]
        at = up
    keys[at], values[at] = key, value


@njit(cache=True, nogil=True)
def _pop(keys, values, size: int) -> int:  # type: ignore[no-untyped-def]
    """The value of the smallest key; ``size`` is the heap's size before."""
    top = values[0]
    size -= 1
    key, value = keys[size], values[size]
    at = 0
    while True:
        child = 2 * at + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if keys[child] >= key:
            break
        keys[at], values[at] = keys[child], values[child]
        at = child
    keys[at], values[at] = key, value
    return top


@njit(cache=True, nogil=True)
def _line(parent, first, pool, child: int, pooled: int):  # type: ignore[no-untyped-def]
    """The moves from the root to ``child``, the last row stored (each
    row's moves run from its ``first`` to the next row's)."""
    length = 0
    node = child
    while node > 0:
        end = pooled if node == child else first[node + 1]
        length += end - first[node]
        node = parent[node]
    line = np.empty((length, 3), dtype=np.int64)
    at = length
    node = child
    while node > 0:
        end = pooled if node == child else first[node + 1]
        at -= end - first[node]
        line[at : at + end - first[node]] = pool[first[node] : end]
        node = parent[node]
    return line


@njit(cache=True, nogil=True)
def search(root, weights, budget: int, room: int):  # type: ignore[no-untyped-def]
    """Best-first from the row ``root``, at most ``budget`` expansions;
    ``room`` rows to start with.  Returns the status, the expansions and
    the winning line as (src, dst, count) rows (empty unless ``WON``)."""
    rows = np.empty((room, ROW), dtype=np.uint8)
    parent = np.empty(room, dtype=np.int64)
    first = np.empty(room, dtype=np.int64)
    pool = np.empty((2 * room, 3), dtype=np.int64)
    keys = np.empty(room, dtype=np.int64)
    values = np.empty(room, dtype=np.int64)
    table = np.zeros(4 * room, dtype=np.uint64)
    cols = np.empty((8, MOST_CARDS), dtype=np.int64)
    lens = np.zeros(8, dtype=np.int64)
    cells = np.empty(4, dtype=np.int64)
    found = np.empty(4, dtype=np.int64)
    out = np.empty((MAX_STEPS, 3), dtype=np.int64)
    done = np.empty((MOST_CARDS, 2), dtype=np.int64)
    rows[0] = root
    parent[0], first[0] = -1, 0
    stored, pooled, heap, nodes = 1, 0, 1, 0
    keys[0], values[0] = 0, 0
    _decode(root, cols, lens, cells, found)
    _seen(table, _hash(cols, lens, cells))
    while heap:
        if nodes >= budget:
            return BUDGET_SPENT, nodes, np.empty((0, 3), dtype=np.int64)
        index = _pop(keys, values, heap)
        heap -= 1
        nodes += 1
        _decode(rows[index], cols, lens, cells, found)
        count = _steps(cols, lens, cells, found, out)
        for step in range(count):
            src, dst, moved = out[step, 0], out[step, 1], out[step, 2]
            _shift(cols, lens, cells, found, src, dst, moved)
            sent = _settle(cols, lens, cells, found, done)
            home = found[0] + found[1] + found[2] + found[3]
            if home == 52 or not _seen(table, _hash(cols, lens, cells)):
                if stored == rows.shape[0]:
                    rows, parent, first = _grow(rows), _grow(parent), _grow(first)
                    keys, values = _grow(keys), _grow(values)
                if pooled + 1 + sent > pool.shape[0]:
                    pool = _grow(pool)
                if 2 * stored > table.shape[0]:
                    table = grown_table(table)
                parent[stored], first[stored] = index, pooled
                pool[pooled, 0], pool[pooled, 1], pool[pooled, 2] = src, dst, moved
                pooled += 1
                for back in range(sent):
                    pool[pooled, 0], pool[pooled, 1], pool[pooled, 2] = done[back, 0], done[back, 1], 1
                    pooled += 1
                if home == 52:
                    return WON, nodes, _line(parent, first, pool, stored, pooled)
                _encode(cols, lens, cells, rows[stored])
                score = _score(cols, lens, cells, found, weights)
                _push(keys, values, heap, (score << 32) + (0xFFFFFFFF - stored), stored)
                heap += 1
                stored += 1
            for back in range(sent - 1, -1, -1):
                _shift(cols, lens, cells, found, done[back, 1], done[back, 0], 1)
            _shift(cols, lens, cells, found, dst, src, moved)
    return EXHAUSTED, nodes, np.empty((0, 3), dtype=np.int64)
