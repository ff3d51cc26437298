"""The sound WordLink domain's steps for the compiled proof search
(``engine.solver.klondike_kernel``): ``KlondikeDomain.steps`` with
``bold=False``, the same steps in the same order, on the kernel's board.

Apart from the search loop because it is the other half of the work:
the loop plays and takes back steps, this module lists them, once per
position expanded.  The board's layout is defined here, where it is
first read, and the kernel imports it.

The board, three arrays (``engine.solver.compiled.Board``): ``cards``,
the columns' cards bottom to top (rows 0-6) and the talon = waste +
reversed(stock) (row ``TALON``); ``counts``, the columns' lengths and
face-down counts, the foundations' heights (they hold their suit from
the Ace up), the talon's length and the pointer = len(waste); and the
kernel's running hashes.  Few arrays, because numba passes each array to
a function it calls as seven words, and with more arrays the passing
cost more than the work.  A step is four numbers: source, destination,
count, talon pointer (or ``THEN_HOME``); sources and destinations are
0-6 the columns, 7-10 the foundations by suit, 11 the talon (a waste play).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

Cards = NDArray[np.int16]
"""``cards``, and the stack's steps and settled cards (``engine.solver.compiled``)."""
Ints = NDArray[np.int64]
"""``counts``, and the search's other whole numbers: the steps' ranks, empty columns, wanted columns."""
Flags = NDArray[np.bool_]

WASTE_SOURCE = 11
FOUNDATION = 7
TALON = 7
"""The row of ``cards`` that holds the talon (0-6 hold the columns)."""
CLEN, CDOWN, HEIGHT, TLEN, PTR = 0, 7, 14, 18, 19
"""Where ``counts`` holds the columns' lengths and face-down counts, the
foundations' heights, the talon's length and the pointer."""
COUNTS = 20
THEN_HOME = -1
"""In a step's pointer field: a twin step (``KlondikeDomain._twins_home``),
the ``count`` cards from column ``src`` to column ``dst``, then the card
they covered home."""
MAX_MOVES = 512
"""More steps than a position can have: 7 columns of at most 13 face-up
cards with 2 targets each and Kings to 7 empty columns, 52 talon cards
with 3 targets each, 4 foundation cards with 2 targets each."""


@njit(cache=True, nogil=True)
def _fits(card: int, target: int) -> bool:
    """``FITS_KEY[card] == ACCEPTS_KEY[target]``: one rank lower, the other colour."""
    red_card = (card >> 4) == 1 or (card >> 4) == 2
    red_target = (target >> 4) == 1 or (target >> 4) == 2
    return (card & 15) == (target & 15) - 1 and red_card != red_target


@njit(cache=True, nogil=True)
def fit_key(card: int) -> int:
    """``FITS_KEY[card]``: rank and colour in one number."""
    suit = card >> 4
    return (card & 15) * 2 + (suit == 1 or suit == 2)


@njit(cache=True, nogil=True)
def twin(card: int) -> int:
    """``TWIN[card]``: the same rank in the other suit of its colour (suits SHDC)."""
    return (3 - (card >> 4)) * 16 + (card & 15)


@njit(cache=True, nogil=True)
def _wanted(cards: Cards, counts: Ints, wants: Ints) -> None:
    """``Klondike._targets``' ``wanted``: for each ``fit_key`` the columns
    whose face-up top takes a card of that key (``ACCEPTS_KEY`` of the
    top), as bits.  Most cards fit no column, and one look-up tells."""
    wants[:] = 0
    for dst in range(7):
        size = counts[CLEN + dst]
        if size > counts[CDOWN + dst]:
            top = cards[dst, size - 1]
            suit = top >> 4
            wants[((top & 15) - 1) * 2 + (not (suit == 1 or suit == 2))] |= 1 << dst


@njit(cache=True, nogil=True)
def _add_each(cand: Ints, n: int, order: int, within: int, src: int, columns: int, count: int, pointer: int) -> int:
    """``_add`` of a step to each column of the bits ``columns``, lowest first."""
    dst = 0
    while columns:
        if columns & 1:
            n = _add(cand, n, order, within, src, dst, count, pointer)
        columns >>= 1
        dst += 1
    return n


@njit(cache=True, nogil=True)
def _add(cand: Ints, n: int, order: int, within: int, src: int, dst: int, count: int, pointer: int) -> int:
    """Append a step ranked ``(order, within)``; the rank ends with ``n``, so the sort keeps ties in order."""
    cand[n, 0] = (order * 256 + within + 128) * 1024 + n
    cand[n, 1] = src
    cand[n, 2] = dst
    cand[n, 3] = count
    cand[n, 4] = pointer
    return n + 1


@njit(cache=True, nogil=True)
def _pile_moves(cards: Cards, counts: Ints, cand: Ints, empty: Ints, nempty: int, wants: Ints) -> int:
    """``KlondikeDomain._pile_moves`` (sound): column moves, then foundation cards coming down."""
    n = 0
    for src in range(7):
        size = counts[CLEN + src]
        first_up = counts[CDOWN + src]
        if first_up >= size:
            continue
        top = cards[src, size - 1]
        if (top & 15) == counts[HEIGHT + (top >> 4)] + 1:
            if first_up == size - 1 and first_up:
                n = _add(cand, n, 0, -first_up, src, FOUNDATION + (top >> 4), 1, 0)
            else:
                n = _add(cand, n, 1, 0, src, FOUNDATION + (top >> 4), 1, 0)
        index = size - 1
        while True:
            card = cards[src, index]
            key = fit_key(card)
            count = size - index
            order, within = 5, 0
            if index == first_up:
                order, within = (0, -index) if index else (4, 0)
            n = _add_each(cand, n, order, within, src, wants[key] & ~(1 << src), count, 0)
            if (card & 15) == 13 and index:
                for e in range(nempty):
                    n = _add(cand, n, 0, -index, src, empty[e], count, 0)
            if index == first_up or not _fits(card, cards[src, index - 1]):
                break
            index -= 1
    for suit in range(4):
        level = counts[HEIGHT + suit]
        if level:
            key = fit_key(suit * 16 + level)
            n = _add_each(cand, n, 6, 0, FOUNDATION + suit, wants[key], 1, 0)
            if level == 13:
                for e in range(nempty):
                    n = _add(cand, n, 6, 0, FOUNDATION + suit, empty[e], 1, 0)
    return _twins_home(cards, counts, cand, n)


@njit(cache=True, nogil=True)
def _twins_home(cards: Cards, counts: Ints, cand: Ints, n: int) -> int:
    """``KlondikeDomain._twins_home``: for each column whose face-up top's
    twin is due home and covered on another column, the run on the twin
    to that column, then the twin home, ranked right after moves home."""
    for dst in range(7):
        size = counts[CLEN + dst]
        if size <= counts[CDOWN + dst]:
            continue
        due = twin(cards[dst, size - 1])
        if (due & 15) != counts[HEIGHT + (due >> 4)] + 1:
            continue
        for src in range(7):
            if src == dst:
                continue
            length = counts[CLEN + src]
            index = counts[CDOWN + src]
            while index < length - 1 and cards[src, index] != due:
                index += 1
            if index < length - 1:
                n = _add(cand, n, 1, 1, src, dst, length - index - 1, THEN_HOME)
                break
    return n


@njit(cache=True, nogil=True)
def _waste_plays(
    cards: Cards, counts: Ints, per_draw: int, cand: Ints, n: int, empty: Ints, nempty: int, met: Flags, wants: Ints
) -> int:
    """``KlondikeDomain._waste_plays``: for each pointer of ``reachable_pointers``
    (fewest draws, one trip), the card there to its foundation, then to
    the columns that take it, then a King to the first empty column."""
    size = counts[TLEN]
    if size == 0:
        return n
    met[: size + 1] = False
    pointer = counts[PTR]
    draws = 0
    while not met[pointer]:
        met[pointer] = True
        if pointer:
            card = cards[TALON, pointer - 1]
            suit = card >> 4
            if (card & 15) == counts[HEIGHT + suit] + 1:
                n = _add(cand, n, 2, draws, WASTE_SOURCE, FOUNDATION + suit, 1, pointer)
            key = fit_key(card)
            n = _add_each(cand, n, 3, draws, WASTE_SOURCE, wants[key], 1, pointer)
            if (card & 15) == 13 and nempty:
                n = _add(cand, n, 3, draws, WASTE_SOURCE, empty[0], 1, pointer)
        pointer = 0 if pointer == size else min(pointer + per_draw, size)
        draws += 1
    return n


@njit(cache=True, nogil=True)
def generate(
    cards: Cards, counts: Ints, moves: Cards, nmoves: Ints, d: int, per_draw: int, cand: Ints, empty: Ints, met: Flags, wants: Ints, ranked: Ints
) -> None:
    """``KlondikeDomain.steps`` (sound) of the board, as depth ``d``'s
    steps: the pile moves, then the waste plays, sorted stably by their
    rank in the move order (an insertion sort: the ranks are unique and
    most lists short)."""
    _wanted(cards, counts, wants)
    nempty = 0
    for c in range(7):
        if counts[CLEN + c] == 0:
            empty[nempty] = c
            nempty += 1
    n = _pile_moves(cards, counts, cand, empty, nempty, wants)
    n = _waste_plays(cards, counts, per_draw, cand, n, empty, nempty, met, wants)
    for i in range(n):
        rank = cand[i, 0]
        j = i
        while j > 0 and cand[ranked[j - 1], 0] > rank:
            ranked[j] = ranked[j - 1]
            j -= 1
        ranked[j] = i
    for i in range(n):
        for k in range(4):
            moves[d, i, k] = cand[ranked[i], k + 1]
    nmoves[d] = n
