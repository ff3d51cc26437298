"""Broken Deck for the search: repairs and safe cards played at once,
repairs first, interchangeable columns and cells merged.

Forced (played without branching), with why no win is lost:
- a whole card to its foundation when rank 2 or less, or when both
  foundations of the other colour hold rank − 1.  Foundation cards never
  come back, so in the second case nothing can ever lie on the card
  again; in the first only Aces could, and an exposed whole Ace is better
  sent home (nothing lies on an Ace, and its foundation takes it at
  once).  So a winning line played with the card already home, skipping
  its moves and moving a group it tops without it (a smaller group needs
  no more capacity), stays legal and wins;
- completing the last repair: the slot holds a half and its match, the
  only other half on the board, is exposed.  A winning line must join
  them in the slot some time; played with the card already whole in the
  slot (and its halves' places free: nothing can lie on a half), it skips
  the halves' moves, and until the join the slot could have held only
  these halves.  With other halves still torn the argument fails: a line
  may park the slot's half, repair another card first and keep this card
  waiting in the slot as a fifth cell, which the forced line cannot copy.
  No position is known where that matters (none among thousands of small
  random ones), but unproven, the rule is left to the bold domain, which
  completes every repair at once.
Never generated (the same position up to the order of columns or cells,
which the key ignores, so the search would merge it with one it has):
a whole card from a cell to another cell, a whole column to an empty
column, and a move to an empty column or cell other than the first
empty one.
The bold domain drops nothing else: leaving out what the hint order
calls pointless (parking the slot's half, a cell card to an empty
column) lost more wins than it saved time (13 of 30 raw deals won in
20,000 nodes against 22 of 30 with every move kept).  With only the last
repair forced the sound domain still wins 29 of deals 1-30 in 20,000
nodes (the bold one 30, in a fifth fewer nodes), so hints and
finishing, which need no proof, search the bold domain alone.
Order: by ``score``; among equal scores the latest position first, and
moves in the game's hint order, in which repairs come first (the rule text's
"Hint suggests a useful move, prioritizing repairs").
"""

from __future__ import annotations

from typing import Hashable

from ..cards import PART, RANK, SUIT, other_half
from ..game import Game, Move, Position
from ..games.broken_deck import CELLS, FOUNDATIONS, KEY, SLOT, TABLEAU, WANTS
from .freecell import compiled_win
from .klondike import OPPOSITE
from .search import Domain, Progress, Step

EXPOSED = (*TABLEAU, *CELLS)
WEIGHTS = (2, 1, 2, 4, 2, 1)
"""Of ``score``: cards off the foundations, cards on the next cards wanted,
occupied cells, halves, cards on halves, cards not in sequence."""
OTHER_WEIGHTS = ((4, 1, 2, 4, 2, 1), (2, 2, 2, 4, 2, 1), (1, 1, 1, 4, 2, 1))
"""The scores of the bold searches that take turns with the first one once
it has had ``FIRST_SEARCH_NODES``: best-first search has heavy tails, and
which weights find a win fast differs from deal to deal (practice deal 79:
no win in 30,000 nodes with ``WEIGHTS``, won after 1,014, 9,910 and
12,931 with these; deal 5 the other way round)."""
REPAIR_ORDER = 3
"""The game's hint orders 0..3 are the repair moves (see its ``_hint_order``)."""


class BrokenDeckDomain(Domain):
    HAS_BOLD = True
    BEST_FIRST = True
    PROOF_SHARE = 0.1
    """Proofs are rare (1.2% of raw deals at 50,000 nodes), wins are what
    a solve mostly finds, and the bold domain finds them in fewer nodes:
    with half the budget for the sound search, 62 of 80 raw deals were
    won against 70 when one search had it all; with a tenth, 165 of 200
    against 166 (``bench/solver.py --deals 200 --budget 50000``), and 1
    proof against 3."""
    HINT_BUDGET = 4_000
    FIRST_SEARCH_NODES = 30_000
    """Above every budget a hint, a finishing search or a pool build gives
    the bold search (so those find what they always found), below the
    budget of a full solve."""
    RESTART_NODES = (5_000, 5_000)

    def __init__(self, game: Game, bold: bool = False, weights: tuple[int, ...] = WEIGHTS) -> None:
        super().__init__(game, bold)
        self.weights = weights

    def compiled_win(
        self, start: Position, after: Move | None, budget: int, progress: Progress | None = None
    ) -> tuple[tuple[Move, ...], int] | None:
        """The compiled search of a position without halves (``engine.solver.freecell``)."""
        return compiled_win(self.game, start, budget, after, progress)

    def alternatives(self) -> list[Domain]:
        """The same domain scored with each of ``OTHER_WEIGHTS``."""
        return [BrokenDeckDomain(self.game, self.bold, weights) for weights in OTHER_WEIGHTS]

    def key(self, pos: Position) -> Hashable:
        piles = pos.piles
        return (
            tuple(sorted(piles[i] for i in TABLEAU)),
            tuple(sorted(piles[i] for i in CELLS)),
            piles[SLOT],
            tuple(len(piles[f]) for f in FOUNDATIONS),
        )

    def score(self, pos: Position) -> int:
        """A weighted sum (``self.weights``, ``WEIGHTS`` by default) of what stands between ``pos`` and a
        win; the halves weigh most, since each one blocks its column."""
        piles = pos.piles
        heights = [len(piles[f]) for f in FOUNDATIONS]
        buried = 0
        halves = 0
        covering = 0
        disorder = 0
        for i in TABLEAU:
            cards = piles[i]
            for below, above in zip(cards, cards[1:]):
                if PART[below] or PART[above] or WANTS[below] != KEY[above]:
                    disorder += 1
            for depth, card in enumerate(reversed(cards)):
                if PART[card]:
                    halves += 1
                    covering += depth
                elif RANK[card] == heights[SUIT[card]] + 1:
                    buried += depth
        occupied = 0
        for i in CELLS:
            if piles[i]:
                occupied += 1
                halves += PART[piles[i][0]] > 0
        w = self.weights
        return w[0] * (52 - sum(heights)) + w[1] * buried + w[2] * occupied + w[3] * halves + w[4] * covering + w[5] * disorder

    def preferred(self, pos: Position, last: Move | None) -> Move | None:
        """The game's own best repair move ("Hint suggests a useful move,
        prioritizing repairs"): completing a repair, taking the repaired
        card out, or a half into the empty slot while its match is exposed."""
        game = self.game
        repairs = [
            (order, index, move)
            for index, move in enumerate(game.moves_from(pos))
            if not move.undoes(last) and (order := game.hint_order(pos, move)) is not None and order <= REPAIR_ORDER
        ]
        return min(repairs)[2] if repairs else None

    def forced_move(self, pos: Position) -> Move | None:
        """A repair to complete (any in the bold domain, the last one in the
        sound one) or a safe card to its foundation (module docstring)."""
        piles = pos.piles
        names = self.game.PILES
        slot = piles[SLOT]
        if slot and PART[slot[0]] and (self.bold or self._last_torn(pos)):
            match = other_half(slot[0])
            for i in EXPOSED:
                if piles[i] and piles[i][-1] == match:
                    return Move(names[i], "r")
        heights = [len(piles[f]) for f in FOUNDATIONS]
        for i in (SLOT, *EXPOSED):
            if not piles[i]:
                continue
            card = piles[i][-1]
            if PART[card] or RANK[card] != heights[SUIT[card]] + 1:
                continue
            low, high = OPPOSITE[SUIT[card]]
            if RANK[card] <= 2 or min(heights[low], heights[high]) >= RANK[card] - 1:
                return Move(names[i], names[FOUNDATIONS[SUIT[card]]])
        return None

    @staticmethod
    def _last_torn(pos: Position) -> bool:
        """Whether the slot's half and its match are the only halves left."""
        halves = sum(1 for i in EXPOSED for card in pos.piles[i] if PART[card])
        return halves == 1

    def steps(self, pos: Position) -> list[Step]:
        game = self.game
        index = game.pile
        piles = pos.piles
        ranked = []
        empty_column = next((i for i in TABLEAU if not piles[i]), None)
        empty_cell = next((i for i in CELLS if not piles[i]), None)
        for order, move in enumerate(game.moves_from(pos)):
            src, dst = index(move.src), index(move.dst)
            if src in CELLS and dst in CELLS:
                continue
            if not piles[dst] and dst not in (empty_column, empty_cell, SLOT, *FOUNDATIONS):
                continue
            left = len(piles[src]) - move.count
            if dst in TABLEAU and not piles[dst] and src in TABLEAU and left == 0:
                continue
            rank = game.hint_order(pos, move)
            ranked.append((12 if rank is None else rank, order, move))
        ranked.sort()
        return [self.step(pos, (move,)) for _, _, move in ranked]
