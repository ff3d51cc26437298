"""Lara's Game for the search: the spread is ordered once, when it goes back.

Rearranging the spread row changes nothing but the order in which its
cards return to their pack at the next ``draw``, so the bold domain never
rearranges as a step of its own: its ``draw`` steps first put the row in
the order the next plays are likely to need (the card nearest to a
foundation on the right, where it becomes the pack's top, the farthest on
the left; one step for each of the ``TOP_CHOICES`` most needed cards on
top), then draw; and its key ignores the row's order.  So a hint may well
be a rearrangement: the first move of a winning line.  That order
is a guess, so the bold domain is not complete.  The sound domain keeps
the engine's moves as they are, every rearrangement a step, with the row
order in its key: its exhausted search is a proof, but only small
positions can be exhausted.

Forced in both: a card whose twin is already on its suit's other
foundation goes to the one foundation left for it (the game's AutoPlay
rule).  Why no win is lost: that foundation is the only one that can
ever take the card, and no other card can join it first; cards never
lie on a card (only an empty pack takes one, of its number), so taking
the card away frees its place and blocks nothing.  A winning line played
with the card already home skips the card's own moves and its
rearrangements, and rearranges the rest of the row the same way: pack
tops stay tops, a spread goes back with the same cards less this one,
and a pack left empty is only one more place a card may go.  The sound
domain's other steps are every engine move (``draw`` included), and its
key merges only twins (``card & SAME_CARD``), which the rules never tell
apart.
"""

from __future__ import annotations

from typing import Hashable

from ..cards import RANK, SUIT
from ..game import Game, Move, Position
from ..games.laras_game import (
    DOWN,
    DOWN_NAMES,
    DRAW,
    FOUNDATIONS,
    PACK_BASE,
    REARRANGEMENTS,
    ROW,
    SAME_CARD,
    SLOT_NAMES,
    STOCK,
    UP,
    UP_NAMES,
    plays,
    twin_move,
)
from .search import Domain, Step

FAR = 99
TOP_CHOICES = 2
HOMES = frozenset(UP_NAMES + DOWN_NAMES)


class Twinless(dict[tuple[int, ...], tuple[int, ...]]):
    """Piles with each card's deck bit dropped (``card & SAME_CARD``), as
    the key holds them, made once per pile: a step changes a few piles of
    23, so nearly every pile a key reads was masked for a key before."""

    def __missing__(self, cards: tuple[int, ...]) -> tuple[int, ...]:
        masked = self[cards] = tuple([card & SAME_CARD for card in cards])
        return masked


def urgency(pos: Position, card: int) -> int:
    """How many cards its foundations still need before ``card`` fits one."""
    suit, rank = SUIT[card], RANK[card]
    up, down = len(pos.piles[UP[suit]]), len(pos.piles[DOWN[suit]])
    upward = rank - up - 1 if rank > up else FAR
    downward = 13 - down - rank if rank <= 13 - down else FAR
    return min(upward, downward)


def order_moves(row: tuple[int, ...], target: list[int]) -> list[Move]:
    """Rearrangements (``ri-rj``) that turn ``row`` into ``target``."""
    current = list(row)
    moves = []
    for place, card in enumerate(target):
        found = current.index(card, place)
        if found != place:
            moves.append(Move(SLOT_NAMES[found], SLOT_NAMES[place]))
            current.insert(place, current.pop(found))
    return moves


class LarasGameDomain(Domain):
    HAS_BOLD = True
    FIRST_SEARCH_NODES = 1_000
    HINT_BUDGET = 14_000
    """Nearly twice WordLink's, shared among ``HINT_WORLDS`` orders of the
    hidden stock (875 nodes each), each of which must reach a win through
    the draws of two decks.  Following hints alone won 57% and 51% of two
    samples of 100 verified deals with 8 worlds of 437 nodes, 68% and 58%
    with 8 of 875, 66% of the first with 8 of 1,312, and 70% and 65% with
    16 of 875, for a 95th-percentile hint of 622 and 675 ms of CPU
    (docs/solver.md, "Lara's Game: twice the worlds" and "the same hints
    for less CPU")."""
    HINT_WORLDS = 16
    """Twice the default: past 875 nodes a world more nodes bought nothing
    measurable (66% at 1,312), and twice the worlds won 135 of the 200
    deals where 8 won 126."""
    PROOF_SHARE = 0.1
    """The sound search tries every rearrangement of the row (up to 240
    moves a position), so it exhausts only small positions: a tenth of
    the budget is all it gets."""

    def __init__(self, game: Game, bold: bool = False) -> None:
        super().__init__(game, bold)
        self._twinless = Twinless()

    def key(self, pos: Position) -> Hashable:
        piles = pos.piles
        twinless = self._twinless.__getitem__
        row = twinless(piles[ROW])
        return (
            tuple(map(len, piles[: len(FOUNDATIONS)])),
            tuple(map(twinless, piles[PACK_BASE + 1 : STOCK])),
            twinless(piles[STOCK]),
            tuple(sorted(row)) if self.bold else row,
            pos.aux,
        )

    def forced_move(self, pos: Position) -> Move | None:
        """The AutoPlay card (``twin_move``), sound as the module docstring argues."""
        return twin_move(pos.piles)

    def steps(self, pos: Position) -> list[Step]:
        return [self.step(pos, moves) for moves in self.lines(pos)]

    def lines(self, pos: Position) -> list[tuple[Move, ...]]:
        """Foundation plays, then pack fillings, then (sound) the
        rearrangements, then the draws, each in the engine's order."""
        home: list[tuple[Move, ...]] = []
        fill: list[tuple[Move, ...]] = []
        for move in plays(pos):
            (home if move.dst in HOMES else fill).append((move,))
        lines = home + fill
        if not self.bold:
            lines += [(move,) for move in REARRANGEMENTS[len(pos.piles[ROW])]]
        if pos.piles[STOCK]:
            lines += self._draws(pos)
        return lines

    def _draws(self, pos: Position) -> list[tuple[Move, ...]]:
        """The ``draw`` steps: as the row lies (sound), or (bold) after
        ordering it by urgency, with each of the ``TOP_CHOICES`` most
        urgent cards tried on top."""
        row = pos.piles[ROW]
        if not self.bold or len(row) < 2:
            return [(DRAW,)]
        ranked = sorted(row, key=lambda card: -urgency(pos, card))
        draws = []
        tops: set[int] = set()
        for card in reversed(ranked):
            if len(tops) == TOP_CHOICES:
                break
            if card & SAME_CARD in tops:
                continue
            tops.add(card & SAME_CARD)
            target = [other for other in ranked if other != card] + [card]
            draws.append((*order_moves(row, target), DRAW))
        return draws
