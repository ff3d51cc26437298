"""Chequers for the search: foundations first, safe cards played at once.

Forced (played without branching) in the sound domain: the last card of
a suit still off the foundations goes to the one foundation that takes
it.  (The rule used to ask that every card that could lie on it, the
copies of its suit's neighbours, be home; with cards that never leave a
foundation that holds only for the last card of a suit.)  Why no win is
lost: nothing can ever lie on the card, no other card can join its
suit's foundations before it, and a winning line played with the card
already home, skipping its own moves, stays legal.  When the card was
alone in its pile, going home refills the pile from the reserve at
once; the forced line then keeps the reserve's top card alone in a pile
instead, from where it can go wherever the reserve's top could, and
each refill that follows takes the next reserve card, so up to which
pile holds which card the forced line is the winning line with the card
home and the reserve's top card lying in a pile of its own.  The bold
domain plays every card that exactly one foundation takes at once (which
copy goes up does not matter: the key drops the deck bit), and drops
what the hint order calls pointless (the only card of a pile to an
empty pile).
Of several empty piles only the first is a destination (the key sorts
the piles, so the others lead to the same position).
Order: by ``score`` of the position reached, ties in the game's hint
order (foundations, then moves that empty a pile or uncover a card a
foundation wants, then reserve cards, then builds).  The score keeps the
depth-first line short: in hint order alone it wanders through thousands
of builds before it wins.
"""

from __future__ import annotations

from ..cards import RANK, SUIT
from ..game import Move, Position
from ..games.chequers import DOWN, RESERVE, SUIT_SIZE, TABLEAU, UP
from .search import Domain, Step

SOURCES = (*TABLEAU, RESERVE)
CARDS = 104


def foundation_for(pos: Position, card: int) -> list[int]:
    """The foundations that take ``card`` now."""
    suit, rank = SUIT[card], RANK[card]
    piles = pos.piles
    takers = []
    if rank == len(piles[UP[suit]]) + 1:
        takers.append(UP[suit])
    if rank == SUIT_SIZE - len(piles[DOWN[suit]]):
        takers.append(DOWN[suit])
    return takers


def last_of_suit(pos: Position, card: int) -> bool:
    """Whether ``card`` is the only card of its suit off the foundations."""
    suit = SUIT[card]
    return len(pos.piles[UP[suit]]) + len(pos.piles[DOWN[suit]]) == 2 * SUIT_SIZE - 1


class ChequersDomain(Domain):
    HAS_BOLD = True
    FIRST_SEARCH_NODES = 1_000
    HINT_BUDGET = 250

    def score(self, pos: Position) -> int:
        """Twice the cards still off the foundations, plus, for every card a
        foundation wants next, the cards lying on its least buried copy."""
        piles = pos.piles
        wanted: dict[int, int] = {}
        placed = 0
        for suit in range(4):
            up, down = len(piles[UP[suit]]), len(piles[DOWN[suit]])
            placed += up + down
            if up + down < 2 * SUIT_SIZE:
                wanted[suit * 16 + up + 1] = 99
                wanted[suit * 16 + SUIT_SIZE - down] = 99
        for i in SOURCES:
            cards = piles[i]
            top = len(cards) - 1
            for depth, card in enumerate(cards):
                key = card & 63
                if key in wanted and top - depth < wanted[key]:
                    wanted[key] = top - depth
        return 2 * (CARDS - placed) + sum(wanted.values())

    def forced_move(self, pos: Position) -> Move | None:
        """The last card of a suit (bold: any card one foundation takes) to
        its foundation; the module docstring says why that loses no win."""
        names = self.game.PILES
        for src in SOURCES:
            cards = pos.piles[src]
            if not cards:
                continue
            takers = foundation_for(pos, cards[-1])
            if len(takers) == 1 and (self.bold or last_of_suit(pos, cards[-1])):
                return Move(names[src], names[takers[0]])
        return None

    def steps(self, pos: Position) -> list[Step]:
        game = self.game
        index = game.pile
        empty = next((game.PILES[i] for i in TABLEAU if not pos.piles[i]), None)
        ranked = []
        for order, move in enumerate(game.moves_from(pos)):
            dst = index(move.dst)
            if dst in TABLEAU and not pos.piles[dst] and move.dst != empty:
                continue
            rank = game.hint_order(pos, move)
            if self.bold and rank is None:
                continue
            ranked.append((9 if rank is None else rank, order, move))
        ranked.sort()
        steps = [self.step(pos, (move,)) for _, _, move in ranked]
        steps.sort(key=lambda step: self.score(step.position))
        return steps
