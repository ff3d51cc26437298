"""WordLink (Klondike) for the search: the stock as a pointer, safe cards
played at once, useful moves first.

The stock and waste are one sequence ``T = waste + reversed(stock)`` and a
pointer ``p = len(waste)``: a draw moves the pointer by the draw count (to
the end at most), a draw on an empty stock turns it back to 0, and the
waste's top card is ``T[p - 1]``.  Drawing never changes anything but the
pointer, so the search has no ``draw`` step: a waste card is played as one
step "draw d times, then play", for every pointer the draws can reach in
one trip round the stock, with the fewest draws that reach it.  Positions
whose pointers reach the same set of pointers are one search position
(with draw 1 every pointer reaches every other, so only ``T`` counts).

Forced (played without branching), in the sound domain: a card goes to
its foundation when it is of rank 2 or less, or when both foundations of
the other colour hold at least rank − 1 and the other foundation of its
own colour at least rank − 2 (``is_safe``); from a column always, from
the waste only in draw 1.  Why no win is lost, by induction on the rank
(cards may come back down from the foundations, which is what makes
this more than "nothing can ever lie on it"): take a winning line from
the position.  If some card of rank q < r comes down from a foundation
in it, take the first such move; until then no foundation fell below
min(its height, r − 1), so the card that came down satisfies the rule
for rank q, and by induction sending it straight back home (which is
the position before that move) loses nothing: the line gets shorter.
So some winning line brings no card of rank below r down.  In it the
two cards that could lie on ours (the other colour's rank − 1, already
home) stay home, so nothing ever lies on our card, and its suit's
rank − 1 stays home under it; playing the same line with our card
already home (skipping its own moves, moving a run it tops without it)
keeps every move legal and wins.  (For rank 2, the only cards that
could lie on it are Aces, which are better sent home.)  From the waste
the same line works in draw 1, where taking a card out of the talon
leaves every other card reachable with one draw less; in draw 3 it
shifts which cards the draws turn up, and can lose the win (draw-3
deals 1, 99 and 429), so neither domain forces waste cards there (the
bold domain found no more wins with it: 74 against 75 of draw-3 deals
1-100 at 20,000 nodes).  The bold domain asks only rank − 3 of the own
colour: it never brings foundation cards down, and without that nothing
of rank − 1 of the other colour, once home, can ever lie on the card.

Pruning, sound because it only leaves out positions the key merges
with one already generated:
- a run starting with a King at the bottom of a column never moves to an
  empty column, and a King from the waste goes only to the first empty
  column (the same positions with columns swapped); columns are compared
  as a set in the search key for the same reason;
- there is no draw step: draws only move the pointer and commute with
  every other move, so a line can always draw just before it plays from
  the waste, and the fewest draws that reach a pointer reach the same
  position as any more.

Twins, in the sound domain.  The two cards of one rank and colour (the
7♥ and the 7♦) take the same cards.  When both lie face up on columns,
a position and the one where the runs on them have changed places
(``twin_blind_columns`` gives both one key) are equally few steps from a
win, counting as one step a *twin step*: the run on a twin moved onto the
other twin, a column's top, then the twin it uncovered home (``steps``
offers one wherever the twin is due home).  Why: the face-up cards of a
column form a run (a card lands on a column only where it fits, and only
a top card turns up), so the twins lie on two columns and neither lies in
the run on the other.  Each step of one position has a step of the
other that leads to two positions again differing only in that choice,
or to the same one: a move of cards lying on a twin, or of a run holding
a twin with all that lies on it, moves the same cards (no twin's run can
go onto the other's: it would lie on a card of lower rank); a card put
on the top of a run lying on a twin, or on an uncovered twin, goes onto
the same card, or onto the other twin, uncovered there; a twin going
home from a column's top is, in the other position, where the run
covers it and the other twin is a top, the twin step, which ends in the
same position (and a twin step is, the other way round, that twin going
home from the top); every other step is the same step.  The search
needs no more (``search.Domain``): among the positions it meets from
which a win can be reached, one with the shortest win has a step to a
position with a shorter one, a forced card home never makes a win longer
(the argument above shortens the line), and a position merged with it
has a win as short.  Draw-3 deal 17's proof of loss went from 108,663
positions to 9,198, deal 65's from 6.1 million to 71,649.

The bold domain also drops foundation cards coming back down and moves
that split a face-up run, unless the card they uncover goes to its
foundation (both are rarely needed and multiply the positions); it keys
columns as they lie and offers no twin steps.
Move order, most useful first: a move that turns a face-down card up (from
the column with most face-down cards first), a card to a foundation, a
waste card (fewest draws first), a column emptied onto cards, then moves
that only split a face-up run, and foundation cards coming back last.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Hashable, Sequence

from ..cards import RANK, SUIT, make_card
from ..game import Game, Move, Position
from ..games.klondike import (
    ACCEPTS_KEY,
    DRAW,
    FITS_KEY,
    FOUNDATION_NAMES,
    FOUNDATIONS,
    MOVES,
    STOCK,
    TABLEAU,
    WASTE,
    Klondike,
)
from .search import Domain, Step

OPPOSITE = ((1, 2), (0, 3), (0, 3), (1, 2))
"""Suits of the other colour, by suit (order SHDC)."""
SAME_COLOUR_OTHER = (3, 2, 1, 0)
COLUMNS = slice(TABLEAU[0], TABLEAU[-1] + 1)
TWIN = {make_card(rank, suit): make_card(rank, SAME_COLOUR_OTHER[suit]) for rank in range(1, 14) for suit in range(4)}
"""Each card's twin: the same rank in the other suit of its colour, the
only other card that takes the same cards on a column."""
TWIN_PAIR = {card: -1 - FITS_KEY[card] for card in TWIN}
"""A number for a card's pair of twins, unlike any card: what a link to
either twin says when both are face up."""


def is_safe(card: int, height: list[int], slack: int = 2) -> bool:
    """Whether ``card`` (the next card of its suit) can go up without loss:
    rank 2 or less, or the other colour's foundations at rank − 1 and the
    own colour's other one at rank − ``slack`` (2 for the sound domain,
    3 for the bold one; the module docstring says why each is safe)."""
    rank, suit = RANK[card], SUIT[card]
    if rank <= 2:
        return True
    low, high = OPPOSITE[suit]
    return min(height[low], height[high]) >= rank - 1 and height[SAME_COLOUR_OTHER[suit]] >= rank - slack


def reachable_pointers(pointer: int, size: int, per_draw: int) -> list[tuple[int, int]]:
    """``(pointer, draws)`` for every non-zero pointer that draws reach from
    ``pointer`` within one trip round a talon of ``size`` cards."""
    result = []
    seen = set()
    current, draws = pointer, 0
    while current not in seen:
        seen.add(current)
        if current:
            result.append((current, draws))
        current = 0 if current == size else min(current + per_draw, size)
        draws += 1
    return result


def twin_blind_columns(columns: Sequence[tuple[int, ...]], down: Sequence[int]) -> tuple[frozenset[tuple[tuple[int, ...], int]], frozenset[tuple[int, int]]]:
    """The columns as the sound key holds them: each column's base (its
    face-down cards and the first face-up one, with the face-down count),
    and which card lies on which face-up card, except that a card lying on
    one of two twins that are both face up says only the twins' rank and
    colour.  So two positions that differ only in which of two face-up
    twins holds which run (the module docstring says why they are equally
    far from a win) have one key, and no others do: the bases and the
    links rebuild the columns up to that choice."""
    face_up: set[int] = set()
    for cards, hidden in zip(columns, down):
        face_up.update(cards[hidden:])
    bases = frozenset((cards[: hidden + 1], hidden) for cards, hidden in zip(columns, down) if cards)
    links = frozenset(
        (cards[index + 1], TWIN_PAIR[cards[index]] if TWIN[cards[index]] in face_up else cards[index])
        for cards, hidden in zip(columns, down)
        for index in range(hidden, len(cards) - 1)
    )
    return bases, links

Targets = tuple[dict[int, list[int]], list[int]]
"""``Klondike._targets`` of a position: columns by the card they accept, and the empty ones."""
Candidate = tuple[int, int, tuple[Move, ...], Position, tuple[int, ...]]
"""A step before its forced moves: its rank in the move order (two numbers),
its moves, the position they lead to, and the piles whose top they changed
when no foundation was among them (``KlondikeDomain._forced_among``), else ()."""
RANKED_ORDER = itemgetter(0, 1)
"""Sorts ``steps``' candidates by their rank in the move order (stable, so ties keep their order)."""
NEXT_CARD = tuple(tuple(make_card(rank, suit) for rank in range(1, 14)) for suit in range(4))
"""The card of each suit that goes on a foundation holding ``level`` cards: ``NEXT_CARD[suit][level]``."""
DRAWS = tuple((DRAW,) * draws for draws in range(2 * 52))
"""The draws before a waste play, by count (at most one trip round the talon)."""


class KlondikeDomain(Domain):
    HAS_BOLD = True
    HINT_BUDGET = 8_000
    """Twice the 200 ms of the calibration, shared among the 8 deals of
    the hidden cards a hint searches.  Following hints alone on the first
    100 verified deals won 38% of draw 3 at 4,000 nodes and 47% at 8,000,
    57% and 65% of draw 1; on the next 100, 43% and 45% of draw 3, 65%
    and 66% of draw 1.  The 95th-percentile hint takes about 0.2 s of
    CPU instead of 0.1 s (docs/solver.md, "WordLink: twice the
    budget")."""
    FIRST_SEARCH_NODES = 12_500
    """A quarter of the bold share of the old 100,000-node default: with a
    bigger budget a longer first search only put off the restarts (draw-3
    deal 12: won after 34,000 nodes of a 100,000-node solve, 80,000 of a
    300,000-node one)."""

    def __init__(self, game: Game, bold: bool = False) -> None:
        super().__init__(game, bold)
        self.per_draw: int = game.options["draw"]
        self.slack = 3 if bold else 2
        # Forced cards come from the waste only in draw 1, where that is
        # proven (module docstring).
        self.forced_sources = (WASTE, *TABLEAU) if self.per_draw == 1 else TABLEAU
        self.pointers: dict[tuple[int, int], list[tuple[int, int]]] = {}
        self.to_foundation = [[Move(name, home) for home in FOUNDATION_NAMES] for name in game.PILES]
        self.safe_by_heights: dict[tuple[int, ...], frozenset[int]] = {}
        self.last_talon: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] = ((), (), ())

    def key(self, pos: Position) -> Hashable:
        """The talon (with the pointer only where draws cannot bring it
        back, module docstring) and the columns as a set, in the sound
        domain blind to which of two face-up twins holds which run
        (``twin_blind_columns``).  The foundations are left out: they hold
        exactly the cards missing elsewhere, in order, so the rest of the
        key decides them."""
        piles = pos.piles
        waste, stock, talon = self.last_talon
        if piles[WASTE] is not waste or piles[STOCK] is not stock:
            # Every move but a waste play keeps both tuples (positions share
            # the piles they do not change), so this is rare.
            talon = piles[WASTE] + piles[STOCK][::-1]
            self.last_talon = (piles[WASTE], piles[STOCK], talon)
        pointer = len(piles[WASTE])
        off_cycle = pointer % self.per_draw and pointer != len(talon)
        columns, down = piles[COLUMNS], pos.down[COLUMNS]
        if self.bold:
            return (talon, pointer if off_cycle else 0, frozenset(zip(columns, down)))
        return (talon, pointer if off_cycle else 0, *twin_blind_columns(columns, down))

    def won(self, pos: Position) -> bool:
        piles = pos.piles
        first = FOUNDATIONS[0]
        return (
            len(piles[first]) == 13
            and len(piles[first + 1]) == 13
            and len(piles[first + 2]) == 13
            and len(piles[first + 3]) == 13
        )

    def forced_move(self, pos: Position) -> Move | None:
        """A face-up card ``is_safe`` allows, from ``forced_sources`` (the
        module docstring says why this loses no win)."""
        src = self._safe_top(pos.piles, pos.down)
        return None if src is None else self.to_foundation[src][SUIT[pos.piles[src][-1]]]

    def _safe_top(self, piles: Sequence[tuple[int, ...]], down: Sequence[int]) -> int | None:
        """The first of ``forced_sources`` whose top card ``forced_move`` plays."""
        safe = self._safe_cards(piles)
        if not safe:
            return None
        for src in self.forced_sources:
            cards = piles[src]
            if cards and cards[-1] in safe and down[src] < len(cards):
                return src
        return None

    def _safe_cards(self, piles: Sequence[tuple[int, ...]]) -> frozenset[int]:
        """The next card of each suit that ``is_safe`` sends home at the
        foundations' heights, remembered per heights: most positions have
        none, and checking four suits once beats checking seven columns
        for every position the search generates."""
        first = FOUNDATIONS[0]
        height = (len(piles[first]), len(piles[first + 1]), len(piles[first + 2]), len(piles[first + 3]))
        safe = self.safe_by_heights.get(height)
        if safe is None:
            safe = frozenset(
                NEXT_CARD[suit][level]
                for suit, level in enumerate(height)
                if level < 13 and is_safe(NEXT_CARD[suit][level], list(height), self.slack)
            )
            self.safe_by_heights[height] = safe
        return safe

    def forced(self, pos: Position) -> tuple[tuple[Move, ...], Position]:
        """The ``forced_move`` sequence, played on lists and made into one
        position at the end: the search settles every position it generates
        this way, and a position per forced card was a fifth of its time."""
        src = self._safe_top(pos.piles, pos.down)
        if src is None:
            return (), pos
        piles, down = list(pos.piles), list(pos.down)
        moved: list[Move] = []
        while src is not None:
            cards = piles[src]
            card = cards[-1]
            suit = SUIT[card]
            left = cards[:-1]
            piles[src] = left
            piles[FOUNDATIONS[suit]] += (card,)
            if left and down[src] >= len(left) and src in TABLEAU:
                down[src] = len(left) - 1
            moved.append(self.to_foundation[src][suit])
            src = self._safe_top(piles, down)
        return tuple(moved), Position(tuple(piles), tuple(down), pos.aux)

    def steps(self, pos: Position) -> list[Step]:
        targets = Klondike._targets(pos)
        ranked = self._pile_moves(pos, targets)
        ranked.extend(self._waste_plays(pos, targets))
        ranked.sort(key=RANKED_ORDER)
        forced = self.forced
        settled = self._safe_top(pos.piles, pos.down) is None
        steps = []
        for _, _, moves, after, changed in ranked:
            if settled and changed and not self._forced_among(after, changed):
                steps.append(Step(moves, after))
            else:
                extra, after = forced(after)
                steps.append(Step(moves + extra, after))
        return steps

    def _forced_among(self, pos: Position, changed: tuple[int, ...]) -> bool:
        """Whether one of the piles ``changed`` tops ``pos`` with a card
        ``forced_move`` plays, which for a move between two piles other
        than foundations, from a position where none is forced, is
        whether any is: the foundations, and so ``_safe_cards``, are those
        of that position, and every other pile kept its top.  Most
        positions keep an Ace or a 2 somewhere below, so ``_safe_cards``
        is rarely empty, and this spares a look at every source for each
        position generated."""
        safe = self._safe_cards(pos.piles)
        if not safe:
            return False
        piles, down = pos.piles, pos.down
        for src in changed:
            cards = piles[src]
            if cards and cards[-1] in safe and down[src] < len(cards) and src in self.forced_sources:
                return True
        return False

    def _pile_moves(self, pos: Position, targets: Targets) -> list[Candidate]:
        """The moves from a column or a foundation worth trying, in the
        order ``Klondike.moves_from`` lists them, each with its rank in the
        move order (module docstring) and the position it leads to, built
        directly: this is the search's hot path, where the generic
        ``moves_from``, then ``successor`` for each move, named every pile
        by its string and looked each name up again."""
        piles, down = pos.piles, pos.down
        height = [len(piles[f]) for f in FOUNDATIONS]
        wanted, empty = targets
        ranked: list[Candidate] = []
        for src in TABLEAU:
            cards = piles[src]
            size = len(cards)
            first_up = down[src]
            if first_up >= size:
                continue
            top = cards[-1]
            order: tuple[int, int] | None
            if RANK[top] == height[SUIT[top]] + 1:
                # Ranked as the turn of a face-down card when it makes one.
                order = (0, -first_up) if first_up == size - 1 and first_up else (1, 0)
                self._add(ranked, pos, src, FOUNDATIONS[SUIT[top]], 1, *order)
            index = size - 1
            while True:
                card = cards[index]
                count = size - index
                if index == first_up:
                    # Turns a face-down card up, or empties the column.
                    order = (0, -index) if index else (4, 0)
                elif self.bold and RANK[cards[index - 1]] != height[SUIT[cards[index - 1]]] + 1:
                    # The bold domain splits a run only to send the card
                    # it uncovers home.
                    order = None
                else:
                    order = (5, 0)
                if order is not None:
                    for dst in wanted.get(FITS_KEY[card], ()):
                        if dst != src:
                            self._add(ranked, pos, src, dst, count, *order)
                if RANK[card] == 13 and index:
                    # A King run from the bottom of its column never moves
                    # to an empty one (the same position, columns swapped).
                    for dst in empty:
                        self._add(ranked, pos, src, dst, count, 0, -index)
                if index == first_up or FITS_KEY[card] != ACCEPTS_KEY[cards[index - 1]]:
                    break
                index -= 1
        if not self.bold:
            for suit, f in enumerate(FOUNDATIONS):
                if height[suit]:
                    card = piles[f][-1]
                    for dst in wanted.get(FITS_KEY[card], ()):
                        self._add(ranked, pos, f, dst, 1, 6, 0)
                    if RANK[card] == 13:
                        for dst in empty:
                            self._add(ranked, pos, f, dst, 1, 6, 0)
            self._twins_home(pos, height, ranked)
        return ranked

    def _twins_home(self, pos: Position, height: list[int], ranked: list[Candidate]) -> None:
        """The sound domain's twin steps (module docstring): for each
        column whose face-up top has a twin due on its foundation but
        covered on another column, the run covering the twin moved onto
        the top, then the twin home, as one step."""
        piles, down = pos.piles, pos.down
        for dst in TABLEAU:
            top = piles[dst]
            if len(top) <= down[dst]:
                continue
            card = TWIN[top[-1]]
            suit = SUIT[card]
            if RANK[card] != height[suit] + 1:
                continue
            for src in TABLEAU:
                cards = piles[src]
                if src != dst and card in cards[down[src] : -1]:
                    self._add_twin_home(ranked, pos, src, dst, cards.index(card), suit)
                    break

    def _add_twin_home(self, ranked: list[Candidate], pos: Position, src: int, dst: int, index: int, suit: int) -> None:
        """Append the twin step for the card at ``index`` of ``src``: what
        lies on it to ``dst``, then it home, ranked right after the plain
        moves home.  Its piles changed include a foundation, so every
        forced card is looked for after it."""
        piles = list(pos.piles)
        cards = piles[src]
        piles[dst] += cards[index + 1 :]
        piles[src] = cards[:index]
        piles[FOUNDATIONS[suit]] += (cards[index],)
        down = pos.down
        if index and down[src] >= index:
            flipped = list(down)
            flipped[src] = index - 1
            down = tuple(flipped)
        moves = (MOVES[src][dst][len(cards) - index - 1], self.to_foundation[src][suit])
        ranked.append((1, 1, moves, Position(tuple(piles), down, pos.aux), ()))

    @staticmethod
    def _add(
        ranked: list[Candidate],
        pos: Position,
        src: int,
        dst: int,
        count: int,
        order: int,
        within: int,
    ) -> None:
        """Append the move of ``count`` cards from ``src`` to ``dst``, ranked
        ``(order, within)``, with the position after it."""
        piles = list(pos.piles)
        cards = piles[src]
        left = len(cards) - count
        piles[src] = cards[:left]
        piles[dst] += cards[left:]
        down = pos.down
        if left and down[src] >= left and src in TABLEAU:
            flipped = list(down)
            flipped[src] = left - 1
            down = tuple(flipped)
        changed: tuple[int, ...] = (src, dst) if dst in TABLEAU else ()
        ranked.append((order, within, (MOVES[src][dst][count],), Position(tuple(piles), down, pos.aux), changed))

    def _waste_plays(self, pos: Position, columns: Targets) -> list[Candidate]:
        """Each waste card the draws can reach and a place it fits, as a
        step (draws, play) to the position it leads to, built directly: the
        card leaves the talon, the waste is what lies before it."""
        piles = pos.piles
        talon = piles[WASTE] + piles[STOCK][::-1]
        if not talon:
            return []
        wanted, empty = columns
        plays: list[Candidate] = []
        for pointer, draws in self._reachable(len(piles[WASTE]), len(talon)):
            card = talon[pointer - 1]
            rank, suit = RANK[card], SUIT[card]
            targets = [(3, dst) for dst in wanted.get(FITS_KEY[card], ())]
            if rank == len(piles[FOUNDATIONS[suit]]) + 1:
                targets.insert(0, (2, FOUNDATIONS[suit]))
            if rank == 13 and empty:
                targets.append((3, empty[0]))
            if not targets:
                continue
            waste, stock = talon[: pointer - 1], talon[pointer:][::-1]
            down = list(pos.down)
            down[STOCK] = len(stock)
            for order, dst in targets:
                after = list(piles)
                after[WASTE], after[STOCK] = waste, stock
                after[dst] += (card,)
                moves = DRAWS[draws] + (MOVES[WASTE][dst][1],)
                changed: tuple[int, ...] = (WASTE, dst) if dst in TABLEAU else ()
                plays.append((order, draws, moves, Position(tuple(after), tuple(down), pos.aux), changed))
        return plays

    def _reachable(self, pointer: int, size: int) -> list[tuple[int, int]]:
        """``reachable_pointers``, remembered: a deal's talon sizes and pointers are few."""
        known = self.pointers.get((pointer, size))
        if known is None:
            known = self.pointers[pointer, size] = reachable_pointers(pointer, size, self.per_draw)
        return known
