"""A one-suit toy game, registered by the tests only (``engine.games.registered``):
the proof that a game is its module and its registration.

The thirteen spades are dealt face up into four columns; a column's top
card goes onto the foundation ``f`` (Ace up to King) or onto a card one
rank higher (or an empty column).  It counts the cards ``left`` to send
home, which a racer's row and the board show beside the cards home, and
which a player's record sums (the cards their games left out), a counter
of its own that the store keeps without knowing the game."""

from __future__ import annotations

from engine import Game, Move, Position
from engine.cards import RANK, make_card
from engine.descriptor import GameDescriptor, Lobby, ProgressCounter
from engine.errors import IllegalMove
from engine.rng import SplitMix64, shuffled

SPADES = [make_card(rank, 0) for rank in range(1, 14)]
COLUMNS = ("t1", "t2", "t3", "t4")
FOUNDATION = len(COLUMNS)


class OneSuit(Game):
    """The toy game; see the module docstring."""

    id = "one-suit"
    title = "One Suit"
    PILES = (*COLUMNS, "f")
    LAST_DEAL = 1_000

    def _deal(self, rng: SplitMix64) -> Position:
        cards = shuffled(list(SPADES), rng)
        piles = tuple(tuple(cards[index :: len(COLUMNS)]) for index in range(len(COLUMNS)))
        return Position((*piles, ()), (0,) * len(self.PILES))

    def _moves(self, pos: Position) -> list[Move]:
        moves = []
        home = len(pos.piles[FOUNDATION])
        for src, cards in zip(COLUMNS, pos.piles):
            if not cards:
                continue
            if RANK[cards[-1]] == home + 1:
                moves.append(Move(src, "f"))
            for dst, onto in zip(COLUMNS, pos.piles):
                if dst != src and (not onto or RANK[onto[-1]] == RANK[cards[-1]] + 1):
                    moves.append(Move(src, dst))
        return moves

    def _apply(self, pos: Position, move: Move) -> Position:
        piles = list(pos.piles)
        src, dst = self.pile(move.src), self.pile(move.dst)
        piles[dst] = (*piles[dst], piles[src][-1])
        piles[src] = piles[src][:-1]
        return Position(tuple(piles), pos.down)

    def _refusal(self, pos: Position, move: Move) -> IllegalMove:
        return self.illegal("not_legal", f"{move} is not a legal move in {self.title}")

    def _won(self, pos: Position) -> bool:
        return len(pos.piles[FOUNDATION]) == len(SPADES)

    def _extra_counters(self, pos: Position) -> dict[str, int]:
        home = len(pos.piles[FOUNDATION])
        return {"foundation": home, "left": len(SPADES) - home}


TOY = GameDescriptor(
    rules=OneSuit,
    lobby=Lobby(blurb="Thirteen spades, four columns.", cards=len(SPADES), deal_kinds=("number",)),
    counters=(ProgressCounter("left", "Left to send home"),),
    recorded=("left",),
)


def winning_deal() -> tuple[int, list[str]]:
    """The first deal a depth-first search wins, and its winning line."""
    for deal in range(1, OneSuit.LAST_DEAL + 1):
        game = OneSuit(deal)
        line = _win(game, game.position, set())
        if line is not None:
            return deal, line
    raise AssertionError("no toy deal can be won")


def _win(game: OneSuit, pos: Position, seen: set[Position]) -> list[str] | None:
    if game.is_won(pos):
        return []
    seen.add(pos)
    for move in game.moves_from(pos):
        after = game.successor(pos, move)
        if after not in seen and (rest := _win(game, after, seen)) is not None:
            return [str(move), *rest]
    return None
