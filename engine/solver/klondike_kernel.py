"""The sound WordLink depth-first search compiled by numba: ``search.
_depth_first`` over ``KlondikeDomain(bold=False)``, move for move.

Why compiled: a proof of loss must expand every position the sound
domain reaches, and the deals the pure-Python search leaves undecided
need millions of them, where it expands 5,000-25,000 a second.  Here a
position is a handful of small integer arrays, and one expansion costs
17-19 times less (``python bench/solver.py --sound-rate``: 300,000-500,000
positions per CPU second on this machine).  Everything the Python domain decides is decided
here the same way, in the same order (``KlondikeDomain``'s docstrings
argue why each rule loses no win), so for any root and budget this
search expands the same positions, counts the same nodes and ends with
the same verdict; ``engine.solver.compiled`` checks that at run time for
every win by replaying the chosen step indices through the Python domain.

Imported only when a proof is first needed (``engine.solver.compiled``):
importing numba takes about a second, and ``engine`` stays light for
the server and the clients.  ``cache=True`` keeps the compiled machine
code in ``__pycache__`` beside this file (numba's default cache
directory, or ``NUMBA_CACHE_DIR`` if set), so only the first use on a
machine pays the compilation.

State, per depth of the stack (index ``d``): the position (``cols``
cards bottom to top, ``clen`` lengths, ``cdown`` face-down counts,
``talon`` = waste + reversed(stock) with ``tlen`` and the pointer
``ptr`` = len(waste), ``height`` of each foundation, which hold their
suit from the Ace up), its steps ``moves`` (source, destination, count,
talon pointer) in the domain's order, how many (``nmoves``) and the next
one to try (``cursor``).  Sources and destinations: 0-6 the columns,
7-10 the foundations by suit, 11 the talon (a waste play).
"""

from __future__ import annotations

import numpy as np
from numba import njit

WASTE_SOURCE = 11
FOUNDATION = 7
MAX_MOVES = 512
"""More steps than a position can have: 7 columns of at most 13 face-up
cards with 2 targets each and Kings to 7 empty columns, 52 talon cards
with 3 targets each, 4 foundation cards with 2 targets each."""
COLUMN_CARDS = 32
"""Room per column: a column is always a prefix of what it held at the
root plus one run of at most 13 cards, so roots with columns of up to 19
cards (the most play can build) fit (``engine.solver.compiled`` checks)."""
TALON_CARDS = 52

BUDGET_SPENT, WON, EXHAUSTED, GROW_TABLE, GROW_STACK = 0, 1, 2, 3, 4
"""What ``advance`` returns; the last two ask the caller for more room
and to call again (nothing was consumed)."""

DEPTH, NODES, USED = 0, 1, 2
"""Indices of the ``scalars`` array: the stack's top, the nodes counted, the table's entries."""

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)


@njit(cache=True, nogil=True)
def _mix(h, x):
    """SplitMix64's finaliser of ``h + x`` (both uint64): every input bit
    reaches every output bit, so sequences hash apart."""
    z = h + x + _GOLDEN
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, nogil=True)
def _column_hash(cols, clen, cdown, d, c):
    h = _mix(np.uint64(0x51ED27), np.uint64(cdown[d, c]))
    h = _mix(h, np.uint64(clen[d, c]))
    for i in range(clen[d, c]):
        h = _mix(h, np.uint64(cols[d, c, i]))
    return h


@njit(cache=True, nogil=True)
def position_hash(cols, clen, cdown, talon, tlen, ptr, hashes, d, per_draw, dirty):
    """The 64-bit hash of ``KlondikeDomain.key`` at depth ``d``: the talon,
    the pointer only when off-cycle, the columns as a multiset (the sum
    of the columns' hashes, which no order of the columns changes), the
    foundations left out.  Equal keys hash equal; for different ones the
    sum of independent-looking 64-bit hashes collides like one, and
    ``engine.solver.compiled`` says why collisions do not matter.
    ``hashes[d]`` keeps each column's hash (0-6) and the talon's (7),
    recomputed only where ``dirty`` says the pile changed: a step changes
    one or two piles, and hashing all 52 cards was most of the time."""
    for c in range(7):
        if dirty[c]:
            hashes[d, c] = _column_hash(cols, clen, cdown, d, c)
    if dirty[7]:
        h = _mix(np.uint64(0xC0FFEE), np.uint64(tlen[d]))
        for i in range(tlen[d]):
            h = _mix(h, np.uint64(talon[d, i]))
        hashes[d, 7] = h
    columns = _ZERO
    for c in range(7):
        columns += hashes[d, c]
    pointer = ptr[d]
    off_cycle = pointer % per_draw != 0 and pointer != tlen[d]
    return _mix(_mix(hashes[d, 7], np.uint64(pointer if off_cycle else 0)), columns)


@njit(cache=True, nogil=True)
def _fits(card, target):
    """``FITS_KEY[card] == ACCEPTS_KEY[target]``: one rank lower, the other colour."""
    red_card = (card >> 4) == 1 or (card >> 4) == 2
    red_target = (target >> 4) == 1 or (target >> 4) == 2
    return (card & 15) == (target & 15) - 1 and red_card != red_target


@njit(cache=True, nogil=True)
def _fit_key(card):
    """``FITS_KEY[card]``: rank and colour in one number."""
    suit = card >> 4
    return (card & 15) * 2 + (suit == 1 or suit == 2)


@njit(cache=True, nogil=True)
def _wanted(cols, clen, cdown, d, wants):
    """``Klondike._targets``' ``wanted`` turned round: for each column the
    ``_fit_key`` of the card it takes (``ACCEPTS_KEY`` of its top), -1
    for an empty column or one with no face-up card."""
    for dst in range(7):
        size = clen[d, dst]
        if size > cdown[d, dst]:
            top = cols[d, dst, size - 1]
            suit = top >> 4
            wants[dst] = ((top & 15) - 1) * 2 + (not (suit == 1 or suit == 2))
        else:
            wants[dst] = -1


@njit(cache=True, nogil=True)
def _safe_suits(height, d, safe):
    """``KlondikeDomain._safe_cards`` as a flag per suit (its next card is
    safe, ``is_safe`` with slack 2); whether any is."""
    anything = False
    for suit in range(4):
        level = height[d, suit]
        rank = level + 1
        ok = False
        if level < 13:
            if rank <= 2:
                ok = True
            else:
                if suit == 0 or suit == 3:
                    low = min(height[d, 1], height[d, 2])
                else:
                    low = min(height[d, 0], height[d, 3])
                ok = low >= rank - 1 and height[d, 3 - suit] >= rank - 2
        safe[suit] = ok
        anything = anything or ok
    return anything


@njit(cache=True, nogil=True)
def _take_from_talon(talon, tlen, ptr, d, pointer):
    """The card at ``pointer - 1`` leaves the talon; the waste is what lay before it."""
    for i in range(pointer, tlen[d]):
        talon[d, i - 1] = talon[d, i]
    tlen[d] -= 1
    ptr[d] = pointer - 1


@njit(cache=True, nogil=True)
def _shorten(clen, cdown, d, src, count):
    """``count`` cards leave column ``src``; a face-down card left on top turns up."""
    left = clen[d, src] - count
    clen[d, src] = left
    if left > 0 and cdown[d, src] >= left:
        cdown[d, src] = left - 1


@njit(cache=True, nogil=True)
def _settle(cols, clen, cdown, talon, tlen, ptr, height, d, per_draw, safe, dirty):
    """``KlondikeDomain.forced``: the first of the forced sources (the waste
    in draw 1 only, then the columns) whose top is safe goes home, again
    until none is; the piles it changes are marked ``dirty``."""
    while _safe_suits(height, d, safe):
        moved = False
        if per_draw == 1 and ptr[d] > 0:
            card = talon[d, ptr[d] - 1]
            suit = card >> 4
            if safe[suit] and (card & 15) == height[d, suit] + 1:
                _take_from_talon(talon, tlen, ptr, d, ptr[d])
                height[d, suit] += 1
                dirty[7] = True
                moved = True
        if not moved:
            for c in range(7):
                size = clen[d, c]
                if size == 0 or cdown[d, c] >= size:
                    continue
                card = cols[d, c, size - 1]
                suit = card >> 4
                if safe[suit] and (card & 15) == height[d, suit] + 1:
                    _shorten(clen, cdown, d, c, 1)
                    height[d, suit] += 1
                    dirty[c] = True
                    moved = True
                    break
        if not moved:
            return


@njit(cache=True, nogil=True)
def _add(cand, n, order, within, src, dst, count, pointer):
    """Append a step ranked ``(order, within)``; the rank ends with ``n``, so the sort keeps ties in order."""
    cand[n, 0] = (order * 256 + within + 128) * 1024 + n
    cand[n, 1] = src
    cand[n, 2] = dst
    cand[n, 3] = count
    cand[n, 4] = pointer
    return n + 1


@njit(cache=True, nogil=True)
def _pile_moves(cols, clen, cdown, height, d, cand, empty, nempty, wants):
    """``KlondikeDomain._pile_moves`` (sound): column moves, then foundation cards coming down."""
    n = 0
    for src in range(7):
        size = clen[d, src]
        first_up = cdown[d, src]
        if first_up >= size:
            continue
        top = cols[d, src, size - 1]
        if (top & 15) == height[d, top >> 4] + 1:
            if first_up == size - 1 and first_up:
                n = _add(cand, n, 0, -first_up, src, FOUNDATION + (top >> 4), 1, 0)
            else:
                n = _add(cand, n, 1, 0, src, FOUNDATION + (top >> 4), 1, 0)
        index = size - 1
        while True:
            card = cols[d, src, index]
            key = _fit_key(card)
            count = size - index
            order, within = 5, 0
            if index == first_up:
                order, within = (0, -index) if index else (4, 0)
            for dst in range(7):
                if dst != src and wants[dst] == key:
                    n = _add(cand, n, order, within, src, dst, count, 0)
            if (card & 15) == 13 and index:
                for e in range(nempty):
                    n = _add(cand, n, 0, -index, src, empty[e], count, 0)
            if index == first_up or not _fits(card, cols[d, src, index - 1]):
                break
            index -= 1
    for suit in range(4):
        level = height[d, suit]
        if level:
            key = _fit_key(suit * 16 + level)
            for dst in range(7):
                if wants[dst] == key:
                    n = _add(cand, n, 6, 0, FOUNDATION + suit, dst, 1, 0)
            if level == 13:
                for e in range(nempty):
                    n = _add(cand, n, 6, 0, FOUNDATION + suit, empty[e], 1, 0)
    return n


@njit(cache=True, nogil=True)
def _waste_plays(talon, tlen, ptr, height, d, per_draw, cand, n, empty, nempty, met, wants):
    """``KlondikeDomain._waste_plays``: for each pointer of ``reachable_pointers``
    (fewest draws, one trip), the card there to its foundation, then to
    the columns that take it, then a King to the first empty column."""
    size = tlen[d]
    if size == 0:
        return n
    met[: size + 1] = False
    pointer = ptr[d]
    draws = 0
    while not met[pointer]:
        met[pointer] = True
        if pointer:
            card = talon[d, pointer - 1]
            suit = card >> 4
            if (card & 15) == height[d, suit] + 1:
                n = _add(cand, n, 2, draws, WASTE_SOURCE, FOUNDATION + suit, 1, pointer)
            key = _fit_key(card)
            for dst in range(7):
                if wants[dst] == key:
                    n = _add(cand, n, 3, draws, WASTE_SOURCE, dst, 1, pointer)
            if (card & 15) == 13 and nempty:
                n = _add(cand, n, 3, draws, WASTE_SOURCE, empty[0], 1, pointer)
        pointer = 0 if pointer == size else min(pointer + per_draw, size)
        draws += 1
    return n


@njit(cache=True, nogil=True)
def generate(cols, clen, cdown, talon, tlen, ptr, height, moves, nmoves, d, per_draw, scratch):
    """``KlondikeDomain.steps`` (sound) at depth ``d``: the pile moves, then
    the waste plays, sorted stably by their rank in the move order (an
    insertion sort: the ranks are unique and most lists short)."""
    cand, empty, met, wants = scratch.cand, scratch.empty, scratch.met, scratch.wants
    _wanted(cols, clen, cdown, d, wants)
    nempty = 0
    for c in range(7):
        if clen[d, c] == 0:
            empty[nempty] = c
            nempty += 1
    n = _pile_moves(cols, clen, cdown, height, d, cand, empty, nempty, wants)
    n = _waste_plays(talon, tlen, ptr, height, d, per_draw, cand, n, empty, nempty, met, wants)
    ranked = scratch.ranked
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


@njit(cache=True, nogil=True)
def _play(cols, clen, cdown, talon, tlen, ptr, height, hashes, d, move, dirty):
    """Depth ``d``'s position with step ``move`` played into depth ``d + 1``
    (before the forced cards), the piles it changes marked ``dirty``."""
    e = d + 1
    for c in range(7):
        size = clen[d, c]
        clen[e, c] = size
        cdown[e, c] = cdown[d, c]
        for i in range(size):
            cols[e, c, i] = cols[d, c, i]
    for i in range(tlen[d]):
        talon[e, i] = talon[d, i]
    tlen[e] = tlen[d]
    ptr[e] = ptr[d]
    for s in range(4):
        height[e, s] = height[d, s]
    for k in range(8):
        hashes[e, k] = hashes[d, k]
        dirty[k] = False
    src, dst, count, pointer = move[0], move[1], move[2], move[3]
    if dst < FOUNDATION:
        dirty[dst] = True
    if src < FOUNDATION:
        dirty[src] = True
        start = clen[e, src] - count
        if dst < FOUNDATION:
            size = clen[e, dst]
            for i in range(count):
                cols[e, dst, size + i] = cols[e, src, start + i]
            clen[e, dst] = size + count
        else:
            height[e, dst - FOUNDATION] += 1
        _shorten(clen, cdown, e, src, count)
        return
    if src == WASTE_SOURCE:
        dirty[7] = True
        card = talon[e, pointer - 1]
        _take_from_talon(talon, tlen, ptr, e, pointer)
    else:
        card = (src - FOUNDATION) * 16 + height[e, src - FOUNDATION]
        height[e, src - FOUNDATION] -= 1
    if dst < FOUNDATION:
        cols[e, dst, clen[e, dst]] = card
        clen[e, dst] += 1
    else:
        height[e, dst - FOUNDATION] += 1


@njit(cache=True, nogil=True)
def _won(height, d):
    return height[d, 0] == 13 and height[d, 1] == 13 and height[d, 2] == 13 and height[d, 3] == 13


@njit(cache=True, nogil=True)
def _seen_or_add(table, h, add):
    """Whether ``h`` is in the open-addressing ``table`` (0 marks a free
    slot); if not and ``add``, it is stored.  The table is at most half
    full (``advance`` asks for a bigger one before), so probes are short."""
    if h == _ZERO:
        h = _ONE
    mask = np.uint64(table.shape[0] - 1)
    slot = np.int64(h & mask)
    while table[slot] != _ZERO:
        if table[slot] == h:
            return True
        slot = (slot + 1) & (table.shape[0] - 1)
    if add:
        table[slot] = h
    return False


@njit(cache=True, nogil=True)
def grown_table(table):
    """A table of twice the size holding the same hashes."""
    bigger = np.zeros(2 * table.shape[0], dtype=np.uint64)
    for i in range(table.shape[0]):
        if table[i] != _ZERO:
            _seen_or_add(bigger, table[i], True)
    return bigger


@njit(cache=True, nogil=True)
def begin(cols, clen, cdown, talon, tlen, ptr, height, hashes, moves, nmoves, cursor, table, scalars, per_draw, scratch):
    """The root (depth 0) entered: its key seen, its steps generated, one node counted."""
    scratch.dirty[:] = True
    h = position_hash(cols, clen, cdown, talon, tlen, ptr, hashes, 0, per_draw, scratch.dirty)
    _seen_or_add(table, h, True)
    generate(cols, clen, cdown, talon, tlen, ptr, height, moves, nmoves, 0, per_draw, scratch)
    cursor[0] = 0
    scalars[DEPTH] = 0
    scalars[NODES] = 1
    scalars[USED] = 1


@njit(cache=True, nogil=True)
def advance(
    cols, clen, cdown, talon, tlen, ptr, height, hashes, moves, nmoves, cursor, allowed, table, scalars, budget, per_draw, scratch
):
    """``_depth_first``'s loop until a win, exhaustion, or ``budget`` nodes:
    the step at the top's cursor is played into the next depth; a won
    position ends the search before its key is looked at, a key seen is
    skipped, and a new one is counted (only while nodes < budget) and
    expanded.  At the root only steps ``allowed`` are tried (those that do
    not undo the move before it).  A step stopped at by the budget or a
    request for room is tried again by the next call."""
    safe, dirty = scratch.safe, scratch.dirty
    depth = scalars[DEPTH]
    nodes = scalars[NODES]
    used = scalars[USED]
    limit = cols.shape[0]
    status = EXHAUSTED
    while True:
        if 2 * (used + 1) > table.shape[0]:
            status = GROW_TABLE
            break
        if depth + 2 >= limit:
            status = GROW_STACK
            break
        i = cursor[depth]
        if i >= nmoves[depth]:
            if depth == 0:
                status = EXHAUSTED
                break
            depth -= 1
            continue
        if depth == 0 and not allowed[i]:
            cursor[0] = i + 1
            continue
        _play(cols, clen, cdown, talon, tlen, ptr, height, hashes, depth, moves[depth, i], dirty)
        _settle(cols, clen, cdown, talon, tlen, ptr, height, depth + 1, per_draw, safe, dirty)
        if _won(height, depth + 1):
            status = WON
            break
        h = position_hash(cols, clen, cdown, talon, tlen, ptr, hashes, depth + 1, per_draw, dirty)
        if _seen_or_add(table, h, False):
            cursor[depth] = i + 1
            continue
        if nodes >= budget:
            status = BUDGET_SPENT
            break
        _seen_or_add(table, h, True)
        used += 1
        nodes += 1
        cursor[depth] = i + 1
        depth += 1
        generate(cols, clen, cdown, talon, tlen, ptr, height, moves, nmoves, depth, per_draw, scratch)
        cursor[depth] = 0
    scalars[DEPTH] = depth
    scalars[NODES] = nodes
    scalars[USED] = used
    return status
