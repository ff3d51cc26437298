"""The hashes of the compiled WordLink search's board
(``engine.solver.klondike_kernel``): the talon's, kept along as cards
leave it, and the columns', kept per column and hashed again only for
the columns a step can have changed (``columns_hash``).

Apart from the search loop because the key is the part of the kernel
that the soundness argument rests on (``twin_blind_columns`` in
``engine.solver.klondike``), and the loop only calls it.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from .klondike_kernel_steps import CDOWN, CLEN, PTR, TALON, TLEN, Cards, Ints, fit_key, twin

Hashes = NDArray[np.uint64]
"""``hashes``, and the stack's saved hashes and the table of positions seen."""

TALON_HASH, COLUMNS_HASH, FACE_UP, CONTRIBUTION, NEEDS = 0, 1, 2, 3, 10
"""Where ``hashes[TALON]`` holds the talon's hash, the columns' hash
(``columns_hash``), the face-up cards as bits, and per column (7 each)
its part of the columns' hash and the cards that part depends on: the
twins of its covered face-up cards.  ``saved`` keeps these ``KEPT``
values as they were before each depth's step."""
KEPT = NEEDS + 7
ALL_COLUMNS = (1 << 7) - 1
"""``columns_hash``'s ``touched`` for hashing every column's part (the root)."""

EDGE = 63
"""The talon's start and end in its pairs (``pair``): no card is 63."""

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_COLUMN_SEED = np.uint64(0x51ED27)
_TALON_SEED = np.uint64(0xC0FFEE)
_LINK_SEED = np.uint64(0x7A1E5)
_TWIN_PAIR = np.uint64(64)
"""Added to a card's ``fit_key`` for the pair of twins in a link
(``columns_hash``): unlike any card, which is below 64."""


@njit(cache=True, nogil=True)
def mix(h: np.uint64, x: np.uint64) -> np.uint64:
    """SplitMix64's finaliser of ``h + x`` (both uint64): every input bit
    reaches every output bit, so sequences hash apart."""
    z = h + x + _GOLDEN
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, nogil=True)
def pair(before: int, after: int) -> np.uint64:
    """The hash of two cards lying next to each other in the talon
    (``EDGE`` for its start or end).  The talon's cards are distinct, so
    the set of its neighbouring pairs, start and end included, is the
    talon; their sum hashes it, and taking out the card a waste play
    takes changes three pairs instead of rehashing the talon."""
    return mix(mix(_TALON_SEED, np.uint64(before)), np.uint64(after))


@njit(cache=True, nogil=True)
def _face_up(cards: Cards, counts: Ints) -> np.uint64:
    """The face-up cards of the columns, a bit per card (cards are below 64)."""
    face_up = _ZERO
    for c in range(7):
        for i in range(counts[CDOWN + c], counts[CLEN + c]):
            face_up |= _ONE << np.uint64(cards[c, i])
    return face_up


@njit(cache=True, nogil=True)
def _column_part(cards: Cards, counts: Ints, hashes: Hashes, c: int, face_up: np.uint64) -> None:
    """Column ``c``'s part of the hash of ``twin_blind_columns``, and the
    cards it depends on (``NEEDS``): one hash for its base (``hashes[c,
    i]`` is the hash of its bottom ``i`` cards, the chain ``mix`` of the
    cards bottom up, so the base's is at hand) and one per link, a card
    and the card it lies on, or that card's pair of twins when both are
    face up, which ``face_up`` tells."""
    size = counts[CLEN + c]
    part = _ZERO
    needs = _ZERO
    if size:
        hidden = counts[CDOWN + c]
        part = mix(hashes[c, hidden + 1], np.uint64(hidden))
        for i in range(hidden, size - 1):
            below = cards[c, i]
            other = _ONE << np.uint64(twin(below))
            needs |= other
            under = _TWIN_PAIR + np.uint64(fit_key(below)) if face_up & other else np.uint64(below)
            part += mix(_LINK_SEED, (under << np.uint64(6)) | np.uint64(cards[c, i + 1]))
    hashes[TALON, CONTRIBUTION + c] = part
    hashes[TALON, NEEDS + c] = needs


@njit(cache=True, nogil=True)
def columns_hash(cards: Cards, counts: Ints, hashes: Hashes, touched: int) -> None:
    """The hash of ``twin_blind_columns`` after a step that changed the
    columns ``touched`` (bits): the sum of the columns' parts, because no
    order of the columns may change it.  Only the parts that can have
    changed are hashed again: those of the columns touched, and of the
    columns whose links lie on a twin of a card that turned up, went
    home or came onto a column (a card moving between columns stays face
    up); the others are as before the step."""
    face_up = _face_up(cards, counts)
    changed = face_up ^ hashes[TALON, FACE_UP]
    hashes[TALON, FACE_UP] = face_up
    total = _ZERO
    for c in range(7):
        if (touched >> c) & 1 or hashes[TALON, NEEDS + c] & changed:
            _column_part(cards, counts, hashes, c, face_up)
        total += hashes[TALON, CONTRIBUTION + c]
    hashes[TALON, COLUMNS_HASH] = total


@njit(cache=True, nogil=True)
def rehash(cards: Cards, counts: Ints, hashes: Hashes) -> None:
    """Every hash the board keeps, from its cards (at the root)."""
    for c in range(7):
        hashes[c, 0] = _COLUMN_SEED
        for i in range(counts[CLEN + c]):
            hashes[c, i + 1] = mix(hashes[c, i], np.uint64(cards[c, i]))
    columns_hash(cards, counts, hashes, ALL_COLUMNS)
    size = counts[TLEN]
    pairs = pair(EDGE, cards[TALON, 0] if size else EDGE)
    for i in range(size):
        pairs += pair(cards[TALON, i], cards[TALON, i + 1] if i + 1 < size else EDGE)
    hashes[TALON, TALON_HASH] = pairs


@njit(cache=True, nogil=True)
def position_hash(counts: Ints, hashes: Hashes, per_draw: int) -> np.uint64:
    """The 64-bit hash of the sound ``KlondikeDomain.key``: the talon, the
    pointer only when off-cycle, the columns blind to their order and to
    which face-up twin holds which run (``COLUMNS_HASH``), the
    foundations left out.  Equal keys hash equal; for different ones the
    sums of independent-looking 64-bit hashes collide like one, and
    ``engine.solver.compiled`` says why collisions do not matter.  Never
    0, which marks a free slot of the table."""
    pointer = counts[PTR]
    off_cycle = pointer % per_draw != 0 and pointer != counts[TLEN]
    talon = mix(hashes[TALON, TALON_HASH], np.uint64(pointer if off_cycle else 0))
    h = mix(talon, hashes[TALON, COLUMNS_HASH])
    return _ONE if h == _ZERO else h


@njit(cache=True, nogil=True)
def probe(table: Hashes, h: np.uint64) -> np.int64:
    """Where ``h`` (never 0: 0 marks a free slot) is in the open-addressing
    ``table``, or, as ``-1 - slot``, the free slot where it would go.
    The table is kept at most half full (the WordLink kernel's ``advance``
    and the Broken Deck kernel's ``search`` grow it before), so probes are short."""
    mask = table.shape[0] - 1
    slot = np.int64(h & np.uint64(mask))
    while table[slot] != _ZERO:
        if table[slot] == h:
            return slot
        slot = (slot + 1) & mask
    return -1 - slot


@njit(cache=True, nogil=True)
def grown_table(table: Hashes) -> Hashes:
    """A table of twice the size holding the same hashes."""
    bigger = np.zeros(2 * table.shape[0], dtype=np.uint64)
    for i in range(table.shape[0]):
        if table[i] != _ZERO:
            bigger[-1 - probe(bigger, table[i])] = table[i]
    return bigger
