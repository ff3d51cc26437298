"""The sound WordLink depth-first search compiled by numba: ``search.
_depth_first`` over ``KlondikeDomain(bold=False)``, move for move.

Why compiled: a proof of loss must expand every position the sound
domain reaches, and the deals the pure-Python search leaves undecided
need millions of them, where it expands 5,000-25,000 a second.  Here a
position is three small arrays changed in place, and one expansion
costs about 30 times less (``python bench/solver.py --sound-rate``:
29.2x draw 1, 32.9x draw 3; ``python bench/kernel.py`` compares two
kernels).  Everything the Python
domain decides is decided here the same way, in the same order
(``KlondikeDomain``'s docstrings argue why each rule loses no win; the
steps are listed by ``engine.solver.klondike_kernel_steps``), so for any
root and budget this search expands the same positions, counts the same
nodes and ends with the same verdict; ``engine.solver.compiled`` checks
that at run time for every win by replaying the chosen step indices
through the Python domain.

Imported only when a proof is first needed (``engine.solver.compiled``):
importing numba takes about a second, and ``engine`` stays light for
the server and the clients.  ``cache=True`` keeps the compiled machine
code in ``__pycache__`` beside this file (numba's default cache
directory, or ``NUMBA_CACHE_DIR`` if set), so only the first use on a
machine pays the compilation; where numba can cache nowhere, importing
this module fails, and ``engine.solver.compiled`` runs the pure-Python
search instead.

One position (the board, laid out in ``klondike_kernel_steps``), changed
in place: a step is played on it and taken back when the child is a
position already seen, or when the search backs up.  Most children are
seen ones (seven of every eight tried), and copying the whole position
into a new level of the stack for each, as this search first did, was a
third of its time.  What taking a step back needs is kept per depth of
the explicit stack (``engine.solver.compiled.Stack``): the pointer and
the source's face-down count before it (``undo``), the running hashes
before it (``saved``) and the cards the forced moves sent home after it
(``settled``); beside them the depth's steps ``moves`` in the domain's
order, how many (``nmoves``) and the next one to try (``cursor``).  The
hashes are kept along with the cards (``hashes``: per column the hash of
its bottom cards up to each height; then the talon's hash, and the
columns' with each column's part of it), so a step hashes only the
cards it moves and the columns whose part it changes (``columns_hash``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .klondike_kernel_hash import (
    EDGE,
    KEPT,
    TALON_HASH,
    Hashes,
    columns_hash,
    grown_table,
    mix,
    pair,
    position_hash,
    probe,
    rehash,
)
from .klondike_kernel_steps import (
    CDOWN,
    CLEN,
    FOUNDATION,
    HEIGHT,
    PTR,
    TALON,
    THEN_HOME,
    TLEN,
    WASTE_SOURCE,
    Cards,
    Flags,
    Ints,
    generate,
    twin,
)

Board = tuple[Cards, Ints, Hashes]
"""``engine.solver.compiled.Board``'s arrays: cards, counts, hashes."""
Stack = tuple[Cards, Ints, Ints, Ints, Hashes, Cards]
"""``engine.solver.compiled.Stack``'s arrays: moves, nmoves, cursor, undo, saved, settled."""
Scratch = tuple[Ints, Ints, Flags, Ints, Ints, Flags]
"""``engine.solver.compiled.Scratch``'s arrays: cand, empty, met, wants, ranked, safe."""

COLUMN_CARDS = 32
"""Room per column: a column is always a prefix of what it held at the
root plus one run of at most 13 cards, so roots with columns of up to 19
cards (the most play can build) fit (``engine.solver.compiled`` checks)."""
TALON_CARDS = MOST_SETTLED = 52
"""The most cards a talon holds, and the forced moves after one step send home."""

BUDGET_SPENT, WON, EXHAUSTED, GROW_TABLE, GROW_STACK = 0, 1, 2, 3, 4
"""What ``advance`` returns; the last two ask the caller for more room
and to call again (nothing was consumed)."""

"""A free slot of the table (``position_hash`` is never 0)."""
DEPTH, NODES, USED = 0, 1, 2
"""Indices of the ``scalars`` array: the stack's top, the nodes counted, the table's entries."""
OLD_PTR, OLD_DOWN, SETTLED = 0, 1, 2
"""Fields of ``undo``: the pointer and the source column's face-down
count before the step, how many cards the forced moves sent home after it."""
SOURCE, DOWN, CARD = 0, 1, 2
"""Fields of a ``settled`` entry: the column (or ``WASTE_SOURCE``) a
forced card left, that column's face-down count before, the card."""
@njit(cache=True, nogil=True)
def _move_cards(cards: Cards, counts: Ints, hashes: Hashes, src: int, dst: int, count: int) -> None:
    """The top ``count`` cards of column ``src`` put on column ``dst`` (the
    arrays of ``src`` keep them: the caller shortens it), prefix hashes kept."""
    size, start = counts[CLEN + dst], counts[CLEN + src] - count
    for i in range(count):
        card = cards[src, start + i]
        cards[dst, size + i] = card
        hashes[dst, size + i + 1] = mix(hashes[dst, size + i], np.uint64(card))
    counts[CLEN + dst] = size + count


@njit(cache=True, nogil=True)
def _push_card(cards: Cards, counts: Ints, hashes: Hashes, c: int, card: int) -> None:
    size = counts[CLEN + c]
    cards[c, size] = card
    hashes[c, size + 1] = mix(hashes[c, size], np.uint64(card))
    counts[CLEN + c] = size + 1


@njit(cache=True, nogil=True)
def _put_back(cards: Cards, counts: Ints, hashes: Hashes, c: int, card: int, rewrite: bool) -> None:
    """``card``, which column ``c`` lost, on its top again (``_take_back``)."""
    if rewrite:
        _push_card(cards, counts, hashes, c, card)
    else:
        counts[CLEN + c] += 1


@njit(cache=True, nogil=True)
def _shorten(counts: Ints, src: int, count: int) -> None:
    """``count`` cards leave column ``src``; a face-down card left on top turns up."""
    left = counts[CLEN + src] - count
    counts[CLEN + src] = left
    if left > 0 and counts[CDOWN + src] >= left:
        counts[CDOWN + src] = left - 1


@njit(cache=True, nogil=True)
def _take_from_talon(cards: Cards, counts: Ints, hashes: Hashes, pointer: int) -> int:
    """The card at ``pointer - 1`` leaves the talon (its pairs' hash
    changed to match); the waste is what lay before it."""
    size = counts[TLEN]
    index = pointer - 1
    before = cards[TALON, index - 1] if index > 0 else EDGE
    after = cards[TALON, pointer] if pointer < size else EDGE
    card = cards[TALON, index]
    hashes[TALON, TALON_HASH] += pair(before, after) - pair(before, card) - pair(card, after)
    for i in range(pointer, size):
        cards[TALON, i - 1] = cards[TALON, i]
    counts[TLEN] = size - 1
    counts[PTR] = index
    return card


@njit(cache=True, nogil=True)
def _put_back_in_talon(cards: Cards, counts: Ints, index: int, card: int) -> None:
    """``card`` back at ``index`` of the talon (the caller restores the hashes)."""
    size = counts[TLEN]
    for i in range(size, index, -1):
        cards[TALON, i] = cards[TALON, i - 1]
    cards[TALON, index] = card
    counts[TLEN] = size + 1


@njit(cache=True, nogil=True)
def _safe_suits(counts: Ints, safe: Flags) -> bool:
    """``KlondikeDomain._safe_cards`` as a flag per suit (its next card is
    safe, ``is_safe`` with slack 2); whether any is."""
    anything = False
    for suit in range(4):
        level = counts[HEIGHT + suit]
        rank = level + 1
        ok = False
        if level < 13:
            if rank <= 2:
                ok = True
            else:
                if suit == 0 or suit == 3:
                    low = min(counts[HEIGHT + 1], counts[HEIGHT + 2])
                else:
                    low = min(counts[HEIGHT], counts[HEIGHT + 3])
                ok = low >= rank - 1 and counts[HEIGHT + 3 - suit] >= rank - 2
        safe[suit] = ok
        anything = anything or ok
    return anything


@njit(cache=True, nogil=True)
def _goes_home(counts: Ints, card: int, safe: Flags) -> bool:
    """Whether ``card`` is the next card of its suit and safe (``_safe_suits``' flags)."""
    return safe[card >> 4] and (card & 15) == counts[HEIGHT + (card >> 4)] + 1


@njit(cache=True, nogil=True)
def _forced_top(cards: Cards, counts: Ints, c: int, safe: Flags) -> bool:
    """Whether column ``c``'s top is face up and ``_goes_home``."""
    size = counts[CLEN + c]
    return size > counts[CDOWN + c] and _goes_home(counts, cards[c, size - 1], safe)


@njit(cache=True, nogil=True)
def _forced_waste(cards: Cards, counts: Ints, per_draw: int, safe: Flags) -> bool:
    """Whether the waste's top is forced: a forced source in draw 1 only."""
    pointer = counts[PTR]
    return per_draw == 1 and pointer > 0 and _goes_home(counts, cards[TALON, pointer - 1], safe)


@njit(cache=True, nogil=True)
def _nothing_forced(cards: Cards, counts: Ints, per_draw: int, safe: Flags, src: int, dst: int) -> bool:
    """Whether no card is forced after a step from ``src`` to ``dst`` that
    sent no card home, known from the piles it changed alone: ``_settle``'s
    full answer, because the position before the step was settled (any
    but the root, which may not be: ``CompiledSearch`` leaves a forced
    card that would undo the last move), so no forced source's top was
    then the next card of its suit and safe; the step raised no
    foundation, so no top it left in place became either (``is_safe``
    only grows with the heights); a card it brought down from a
    foundation is on ``dst``; and in draw 1 only a waste play changes
    the waste's top.  Most steps send no card home, and this spares them
    the scan of every pile."""
    if not _safe_suits(counts, safe):
        return True
    if _forced_top(cards, counts, dst, safe):
        return False
    if src < FOUNDATION:
        return not _forced_top(cards, counts, src, safe)
    return src != WASTE_SOURCE or not _forced_waste(cards, counts, per_draw, safe)


@njit(cache=True, nogil=True)
def _settle(cards: Cards, counts: Ints, hashes: Hashes, settled: Cards, d: int, per_draw: int, safe: Flags) -> int:
    """``KlondikeDomain.forced`` after depth ``d``'s step: the first of the
    forced sources (the waste in draw 1 only, then the columns) whose top
    is safe goes home, again until none is; each card sent is noted in
    ``settled[d]`` for ``_take_back``.  How many, it returns."""
    count = 0
    while _safe_suits(counts, safe):
        if _forced_waste(cards, counts, per_draw, safe):
            card = _take_from_talon(cards, counts, hashes, counts[PTR])
            settled[d, count, SOURCE] = WASTE_SOURCE
        else:
            c = 0
            while c < 7 and not _forced_top(cards, counts, c, safe):
                c += 1
            if c == 7:
                break
            card = cards[c, counts[CLEN + c] - 1]
            settled[d, count, SOURCE] = c
            settled[d, count, DOWN] = counts[CDOWN + c]
            _shorten(counts, c, 1)
        settled[d, count, CARD] = card
        counts[HEIGHT + (card >> 4)] += 1
        count += 1
    return count


@njit(cache=True, nogil=True)
def _play(cards: Cards, counts: Ints, hashes: Hashes, src: int, dst: int, count: int, pointer: int) -> None:
    """A step played on the board (before the forced cards)."""
    if src < FOUNDATION:
        if dst < FOUNDATION:
            _move_cards(cards, counts, hashes, src, dst, count)
        else:
            counts[HEIGHT + dst - FOUNDATION] += 1
        _shorten(counts, src, count)
        if pointer == THEN_HOME:
            card = cards[src, counts[CLEN + src] - 1]
            counts[HEIGHT + (card >> 4)] += 1
            _shorten(counts, src, 1)
        return
    if src == WASTE_SOURCE:
        card = _take_from_talon(cards, counts, hashes, pointer)
    else:
        card = (src - FOUNDATION) * 16 + counts[HEIGHT + src - FOUNDATION]
        counts[HEIGHT + src - FOUNDATION] -= 1
    if dst < FOUNDATION:
        _push_card(cards, counts, hashes, dst, card)
    else:
        counts[HEIGHT + dst - FOUNDATION] += 1


@njit(cache=True, nogil=True)
def _take_back(
    cards: Cards, counts: Ints, hashes: Hashes, undo: Ints, saved: Hashes, settled: Cards,
    d: int, src: int, dst: int, count: int, pointer: int, rewrite: bool,
) -> None:
    """The board as it was before depth ``d``'s step and its forced cards:
    the forced cards first, last one first, then the step.  Cards a
    column loses stay in its row, prefix hashes included, until a later
    step puts others there: a step taken back at once (its child was
    seen, or the budget is spent) finds them, and only lengthens the
    columns again; one taken back after its child was searched
    (``rewrite``) writes them again."""
    for k in range(undo[d, SETTLED] - 1, -1, -1):
        card = settled[d, k, CARD]
        counts[HEIGHT + (card >> 4)] -= 1
        c = settled[d, k, SOURCE]
        if c == WASTE_SOURCE:
            _put_back_in_talon(cards, counts, counts[PTR], card)
            counts[PTR] += 1
        else:
            _put_back(cards, counts, hashes, c, card, rewrite)
            counts[CDOWN + c] = settled[d, k, DOWN]
    if src < FOUNDATION:
        if pointer == THEN_HOME:
            home = twin(cards[dst, counts[CLEN + dst] - count - 1])
            counts[HEIGHT + (home >> 4)] -= 1
            _put_back(cards, counts, hashes, src, home, rewrite)
        if dst < FOUNDATION:
            if rewrite:
                _move_cards(cards, counts, hashes, dst, src, count)
            else:
                counts[CLEN + src] += count
            counts[CLEN + dst] -= count
        else:
            _put_back(cards, counts, hashes, src, (dst - FOUNDATION) * 16 + counts[HEIGHT + dst - FOUNDATION], rewrite)
            counts[HEIGHT + dst - FOUNDATION] -= 1
        counts[CDOWN + src] = undo[d, OLD_DOWN]
    else:
        if dst < FOUNDATION:
            counts[CLEN + dst] -= 1
            card = cards[dst, counts[CLEN + dst]]
        else:
            card = (dst - FOUNDATION) * 16 + counts[HEIGHT + dst - FOUNDATION]
            counts[HEIGHT + dst - FOUNDATION] -= 1
        if src == WASTE_SOURCE:
            _put_back_in_talon(cards, counts, pointer - 1, card)
        else:
            counts[HEIGHT + src - FOUNDATION] += 1
    counts[PTR] = undo[d, OLD_PTR]
    for k in range(KEPT):
        hashes[TALON, k] = saved[d, k]


@njit(cache=True, nogil=True)
def _touched(settled: Cards, undo: Ints, d: int, src: int, dst: int) -> int:
    """The columns depth ``d``'s step and its forced cards changed, as bits."""
    touched = 0
    if src < FOUNDATION:
        touched |= 1 << src
    if dst < FOUNDATION:
        touched |= 1 << dst
    for k in range(undo[d, SETTLED]):
        if settled[d, k, SOURCE] != WASTE_SOURCE:
            touched |= 1 << settled[d, k, SOURCE]
    return touched


@njit(cache=True, nogil=True)
def _won(counts: Ints) -> bool:
    return counts[HEIGHT] == 13 and counts[HEIGHT + 1] == 13 and counts[HEIGHT + 2] == 13 and counts[HEIGHT + 3] == 13


@njit(cache=True, nogil=True)
def begin(board: Board, stack: Stack, table: Hashes, scalars: Ints, per_draw: int, scratch: Scratch) -> None:
    """The root (depth 0) entered: its hashes computed, its key seen, its
    steps generated, one node counted."""
    cards, counts, hashes = board
    rehash(cards, counts, hashes)
    h = position_hash(counts, hashes, per_draw)
    table[-1 - probe(table, h)] = h
    moves, nmoves, cursor, _undo, _saved, _settled = stack
    cand, empty, met, wants, ranked, _safe = scratch
    generate(cards, counts, moves, nmoves, 0, per_draw, cand, empty, met, wants, ranked)
    cursor[0] = 0
    scalars[DEPTH] = 0
    scalars[NODES] = 1
    scalars[USED] = 1


@njit(cache=True, nogil=True)
def advance(
    board: Board, stack: Stack, allowed: Flags, table: Hashes, scalars: Ints, budget: int, per_draw: int, scratch: Scratch
) -> int:
    """``_depth_first``'s loop until a win, exhaustion, or ``budget`` nodes:
    the step at the top's cursor is played on the board; a won position
    ends the search before its key is looked at, a key seen is taken
    back and skipped, and a new one is counted (only while nodes <
    budget) and expanded; a depth whose steps are all tried is left by
    taking back the step that entered it.  At the root only steps
    ``allowed`` are tried (those that do not undo the move before it).
    A step stopped at by the budget or a request for room is taken back
    and tried again by the next call, so between calls the board is the
    position at the top of the stack (or, after a win, the won one).
    The arrays leave their tuples once, here: numba counts a reference
    each time a tuple's field is read, which cost more than the search."""
    cards, counts, hashes = board
    moves, nmoves, cursor, undo, saved, settled = stack
    cand, empty, met, wants, ranked, safe = scratch
    depth = scalars[DEPTH]
    nodes = scalars[NODES]
    used = scalars[USED]
    limit = cursor.shape[0]
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
            j = cursor[depth] - 1
            src, dst, count, pointer = moves[depth, j, 0], moves[depth, j, 1], moves[depth, j, 2], moves[depth, j, 3]
            _take_back(cards, counts, hashes, undo, saved, settled, depth, src, dst, count, pointer, True)
            continue
        if depth == 0 and not allowed[i]:
            cursor[0] = i + 1
            continue
        src, dst, count, pointer = moves[depth, i, 0], moves[depth, i, 1], moves[depth, i, 2], moves[depth, i, 3]
        undo[depth, OLD_PTR] = counts[PTR]
        undo[depth, OLD_DOWN] = counts[CDOWN + src] if src < FOUNDATION else 0
        for k in range(KEPT):
            saved[depth, k] = hashes[TALON, k]
        _play(cards, counts, hashes, src, dst, count, pointer)
        if depth and dst < FOUNDATION and pointer != THEN_HOME and _nothing_forced(cards, counts, per_draw, safe, src, dst):
            undo[depth, SETTLED] = 0
        else:
            undo[depth, SETTLED] = _settle(cards, counts, hashes, settled, depth, per_draw, safe)
        columns_hash(cards, counts, hashes, _touched(settled, undo, depth, src, dst))
        if _won(counts):
            status = WON
            break
        h = position_hash(counts, hashes, per_draw)
        slot = probe(table, h)
        if slot >= 0 or nodes >= budget:
            _take_back(cards, counts, hashes, undo, saved, settled, depth, src, dst, count, pointer, False)
            if slot >= 0:
                cursor[depth] = i + 1
                continue
            status = BUDGET_SPENT
            break
        table[-1 - slot] = h
        used += 1
        nodes += 1
        cursor[depth] = i + 1
        depth += 1
        generate(cards, counts, moves, nmoves, depth, per_draw, cand, empty, met, wants, ranked)
        cursor[depth] = 0
    scalars[DEPTH] = depth
    scalars[NODES] = nodes
    scalars[USED] = used
    return status
