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
The bold domain also drops foundation cards coming back down and moves
that split a face-up run, unless the card they uncover goes to its
foundation (both are rarely needed and multiply the positions).
Move order, most useful first: a move that turns a face-down card up (from
the column with most face-down cards first), a card to a foundation, a
waste card (fewest draws first), a column emptied onto cards, then moves
that only split a face-up run, and foundation cards coming back last.
"""

from __future__ import annotations

from typing import Hashable

from ..cards import RANK, RED, SUIT
from ..game import Game, Move, Position
from ..games.klondike import DRAW, FOUNDATION_NAMES, FOUNDATIONS, STOCK, TABLEAU, WASTE
from .search import Domain, Step

OPPOSITE = ((1, 2), (0, 3), (0, 3), (1, 2))
"""Suits of the other colour, by suit (order SHDC)."""
SAME_COLOUR_OTHER = (3, 2, 1, 0)


def heights(pos: Position) -> list[int]:
    return [len(pos.piles[f]) for f in FOUNDATIONS]


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


def with_pointer(pos: Position, talon: tuple[int, ...], pointer: int) -> Position:
    piles = list(pos.piles)
    down = list(pos.down)
    piles[WASTE] = talon[:pointer]
    piles[STOCK] = talon[pointer:][::-1]
    down[STOCK] = len(piles[STOCK])
    return Position(tuple(piles), tuple(down), pos.aux)


class KlondikeDomain(Domain):
    HAS_BOLD = True
    HINT_BUDGET = 4_000

    def __init__(self, game: Game, bold: bool = False) -> None:
        super().__init__(game, bold)
        self.per_draw: int = game.options["draw"]
        self.names = game.PILES
        self.slack = 3 if bold else 2
        # Forced cards come from the waste only in draw 1, where that is
        # proven (module docstring).
        self.forced_sources = (WASTE, *TABLEAU) if self.per_draw == 1 else TABLEAU

    def key(self, pos: Position) -> Hashable:
        piles = pos.piles
        talon = piles[WASTE] + piles[STOCK][::-1]
        pointer = len(piles[WASTE])
        off_cycle = pointer % self.per_draw and pointer != len(talon)
        columns = sorted((piles[i], pos.down[i]) for i in TABLEAU)
        return (talon, pointer if off_cycle else 0, tuple(len(piles[f]) for f in FOUNDATIONS), tuple(columns))

    def won(self, pos: Position) -> bool:
        return all(len(pos.piles[f]) == 13 for f in FOUNDATIONS)

    def forced_move(self, pos: Position) -> Move | None:
        """A face-up card ``is_safe`` allows, from ``forced_sources`` (the
        module docstring says why this loses no win)."""
        height = heights(pos)
        for src in self.forced_sources:
            cards = pos.piles[src]
            if not cards or pos.down[src] >= len(cards):
                continue
            card = cards[-1]
            if RANK[card] == height[SUIT[card]] + 1 and is_safe(card, height, self.slack):
                return Move(self.names[src], FOUNDATION_NAMES[SUIT[card]])
        return None

    def steps(self, pos: Position) -> list[Step]:
        ranked: list[tuple[int, int, tuple[Move, ...], Position]] = []
        successor = self.game.successor
        for move in self.game.moves_from(pos):
            if move is DRAW or move.src == "w":
                continue
            order = self._order(pos, move)
            if order is not None:
                ranked.append((order[0], order[1], (move,), successor(pos, move)))
        ranked.extend(self._waste_plays(pos))
        ranked.sort(key=lambda entry: (entry[0], entry[1]))
        steps = []
        for _, _, moves, after in ranked:
            extra, settled = self.forced(after)
            steps.append(Step(moves + extra, settled))
        return steps

    def _order(self, pos: Position, move: Move) -> tuple[int, int] | None:
        index = self.game.pile
        src, dst = index(move.src), index(move.dst)
        if src in FOUNDATIONS:
            return None if self.bold else (6, 0)
        cards, down = pos.piles[src], pos.down[src]
        left = len(cards) - move.count
        if left == 0 and not pos.piles[dst]:
            return None
        if left and left == down:
            return (0, -down)
        if dst in FOUNDATIONS:
            return (1, 0)
        if left == 0:
            return (4, 0)
        if self.bold:
            exposed = cards[left - 1]
            if RANK[exposed] != heights(pos)[SUIT[exposed]] + 1:
                return None
        return (5, 0)

    def _waste_plays(self, pos: Position) -> list[tuple[int, int, tuple[Move, ...], Position]]:
        piles = pos.piles
        talon = piles[WASTE] + piles[STOCK][::-1]
        if not talon:
            return []
        height = heights(pos)
        wanted: dict[tuple[int, bool], list[str]] = {}
        empty: list[str] = []
        for i in TABLEAU:
            cards = piles[i]
            if not cards:
                empty.append(self.names[i])
            elif pos.down[i] < len(cards):
                top = cards[-1]
                wanted.setdefault((RANK[top] - 1, not RED[top]), []).append(self.names[i])
        plays = []
        successor = self.game.successor
        for pointer, draws in reachable_pointers(len(piles[WASTE]), len(talon), self.per_draw):
            card = talon[pointer - 1]
            rank = RANK[card]
            targets = []
            if rank == height[SUIT[card]] + 1:
                targets.append((2, FOUNDATION_NAMES[SUIT[card]]))
            targets.extend((3, name) for name in wanted.get((rank, RED[card]), ()))
            if rank == 13:
                targets.extend((3, name) for name in empty[:1])
            if not targets:
                continue
            drawn = with_pointer(pos, talon, pointer) if draws else pos
            for order, name in targets:
                move = Move("w", name)
                plays.append((order, draws, (DRAW,) * draws + (move,), successor(drawn, move)))
        return plays
