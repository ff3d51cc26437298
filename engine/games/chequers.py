"""Chequers: the two-deck game of its rule text.

Piles: ``us uh ud uc`` the Ace foundations (built up, one per suit),
``ds dh dd dc`` the King foundations (built down, one per suit), ``t1``..
``t25`` the tableau and ``v`` the reserve.  Naming each foundation by its
suit and direction is what enforces "only one foundation per suit in each
direction": a card has exactly two foundations it could ever join.  The
alias ``f`` means "whichever foundation takes this card".  There are no
actions (no stock, no redeal).

Decisions where the rule text is silent or could be read two ways (also in
``docs/rules.md``):
- Deal: the shuffled 104 cards go round robin to ``t1``..``t25`` four
  times (the first round is the bottom row); the last four cards form the
  reserve, the very last one on top.
- The reserve is "four face-down cards, only the top card accessible": its
  top card is shown face up so that the player can see what they may play;
  the cards below it stay hidden (``down = len(reserve) - 1``).
- Refilling an emptied tableau pile from the reserve is part of the move
  that emptied it (one move, one undo), and the reserve card below then
  becomes the accessible top.  Because of this rule no tableau pile is ever
  empty while the reserve holds cards; positions that break it are refused
  when loaded.
- Once the reserve is empty, an empty tableau pile takes any single top
  card, and every empty pile is a separate destination.  Moving the only
  card of a pile to an empty pile is legal but pointless: hints and the tap
  helper never choose it.
- Tableau building wraps around in both directions within a suit (Ace on
  King, King on Ace); the foundations do not wrap.
- Cards never leave a foundation.  When both foundations of a suit want the
  same rank (Ace side at 6, King side at 8, both want a 7) the card may go
  to either; ``f`` picks the Ace side.
- Lost means what the rule text says: no legal move remains (and the game is
  not won).  Once the reserve is empty and a pile is empty, a tableau card
  can always move, so such a game is never lost; the player simply stops.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..cards import RANK, SUIT, SUIT_SYMBOLS, describe, full_deck
from ..descriptor import GameDescriptor, Lobby, PoolVariant, ProgressCounter
from ..errors import BadNotation, IllegalMove
from ..game import Game, Move, Position
from ..rng import SplitMix64, shuffled

UP_NAMES = ("us", "uh", "ud", "uc")
DOWN_NAMES = ("ds", "dh", "dd", "dc")
TABLEAU_NAMES = tuple(f"t{i}" for i in range(1, 26))
RESERVE_NAME = "v"
PILE_NAMES = (*UP_NAMES, *DOWN_NAMES, *TABLEAU_NAMES, RESERVE_NAME)

UP = range(0, 4)
DOWN = range(4, 8)
FOUNDATIONS = range(0, 8)
TABLEAU = range(8, 33)
RESERVE = 33
ROUNDS = 4
SUIT_SIZE = 13

# Every move of the game, built once: move generation is a table look-up.
_MOVE = [[Move(src, dst) for dst in PILE_NAMES] for src in PILE_NAMES]
_MOVE_TO = [list(column) for column in zip(*_MOVE)]
_ALL_FACE_UP = (0,) * RESERVE


def _down_for(reserve: tuple[int, ...]) -> tuple[int, ...]:
    """Face-down counts: only the reserve hides cards, all of them but its top."""
    return _ALL_FACE_UP + (max(len(reserve) - 1, 0),)


def _same_suit_neighbours(key: int) -> tuple[int, int]:
    """The rank-and-suit keys one rank above and below, wrapping King↔Ace."""
    suit, rank = key >> 4, key & 15
    return suit * 16 + rank % SUIT_SIZE + 1, suit * 16 + (rank - 2) % SUIT_SIZE + 1


# A card's rank-and-suit key is ``card & 63`` (the deck bit, 64, dropped).
_NEIGHBOURS = [_same_suit_neighbours(key) if 1 <= key & 15 <= SUIT_SIZE else (0, 0) for key in range(64)]


class Chequers(Game):
    id = "chequers"
    title = "Chequers"
    PILES = PILE_NAMES
    ALIASES: ClassVar[dict[str, tuple[str, ...]]] = {"f": (*UP_NAMES, *DOWN_NAMES)}

    # ------------------------------------------------------------- deal

    def _deal(self, rng: SplitMix64) -> Position:
        """Round robin: card ``k`` of the first 100 goes to pile ``k mod 25``."""
        cards = shuffled(full_deck(2), rng)
        piles_count = len(TABLEAU)
        dealt = piles_count * ROUNDS
        tableau = tuple(tuple(cards[pile:dealt:piles_count]) for pile in range(piles_count))
        reserve = tuple(cards[dealt:])
        piles = ((),) * len(FOUNDATIONS) + tableau + (reserve,)
        return Position(piles, _down_for(reserve))

    # ------------------------------------------------------------- moves

    def _moves(self, pos: Position) -> list[Move]:
        """One pass indexes, by rank-and-suit key, the piles that would take
        a card (foundations and the tableau tops' two same-suit neighbours);
        then each source top is a single look-up instead of a scan of 25
        piles."""
        piles = pos.piles
        takers: dict[int, list[int]] = {}
        for f in UP:
            if len(piles[f]) < SUIT_SIZE:
                takers[f * 16 + len(piles[f]) + 1] = [f]
        for f in DOWN:
            if len(piles[f]) < SUIT_SIZE:
                takers.setdefault((f - 4) * 16 + SUIT_SIZE - len(piles[f]), []).append(f)
        sources: list[int] = []
        empty: list[int] = []
        for i in TABLEAU:
            cards = piles[i]
            if not cards:
                empty.append(i)
                continue
            sources.append(i)
            for key in _NEIGHBOURS[cards[-1] & 63]:
                takers.setdefault(key, []).append(i)
        if piles[RESERVE]:
            sources.append(RESERVE)
        moves: list[Move] = []
        for src in sources:
            key = piles[src][-1] & 63
            if key in takers:
                row = _MOVE[src]
                for dst in takers[key]:
                    moves.append(row[dst])
        for dst in empty:
            column = _MOVE_TO[dst]
            moves.extend([column[src] for src in sources])
        return moves

    def _apply(self, pos: Position, move: Move) -> Position:
        """Move one card; an emptied tableau pile takes the reserve's top
        card within the same move."""
        src = self._index[move.src]
        dst = self._index[move.dst]
        piles = list(pos.piles)
        source = piles[src]
        piles[src] = source[:-1]
        piles[dst] = piles[dst] + source[-1:]
        if src == RESERVE:
            return Position(tuple(piles), _down_for(piles[RESERVE]))
        reserve = piles[RESERVE]
        if len(source) == 1 and reserve:
            piles[src] = reserve[-1:]
            piles[RESERVE] = reserve[:-1]
            return Position(tuple(piles), _down_for(piles[RESERVE]))
        return Position(tuple(piles), pos.down)

    def _refusal(self, pos: Position, move: Move) -> IllegalMove:
        src, dst = self._index[move.src], self._index[move.dst]
        if src in FOUNDATIONS:
            return self.illegal("foundation_is_final", "cards on a foundation stay there")
        if dst == RESERVE:
            return self.illegal("bad_destination", "no card can be put on the reserve")
        if src == dst:
            return self.illegal("same_pile", "a card must move to another pile")
        if move.count > 1:
            return self.illegal(
                "single_card_only", "only one card may be moved at a time; sequences cannot be moved together"
            )
        cards = pos.piles[src]
        if not cards:
            return self.illegal("empty_source", f"{move.src} is empty")
        card = cards[-1]
        if dst in FOUNDATIONS:
            return self._foundation_refusal(pos, card, dst)
        # An empty tableau pile takes any card (it exists only once the
        # reserve is empty), so a refused tableau destination has a top card.
        top = pos.piles[dst][-1]
        if SUIT[top] != SUIT[card]:
            return self.illegal("not_same_suit", f"the tableau builds by suit: {describe(card)} cannot go on {describe(top)}")
        return self.illegal(
            "not_adjacent_rank",
            f"the tableau builds one rank up or down (King and Ace join): {describe(card)} cannot go on {describe(top)}",
        )

    def _foundation_refusal(self, pos: Position, card: int, dst: int) -> IllegalMove:
        suit = dst % 4
        if SUIT[card] != suit:
            symbol = SUIT_SYMBOLS[suit]
            return self.illegal("wrong_suit", f"the {symbol} foundations take only {symbol} cards, not {describe(card)}")
        return self.illegal(
            "foundation_order",
            f"{describe(card)} does not fit: {self._foundation_needs(pos, suit)}",
        )

    @staticmethod
    def _foundation_needs(pos: Position, suit: int) -> str:
        """What the two foundations of ``suit`` take next, in words."""
        up, down = len(pos.piles[UP[suit]]), len(pos.piles[DOWN[suit]])
        up_text = f"needs {describe(suit * 16 + up + 1)}" if up < SUIT_SIZE else "is complete"
        down_text = f"needs {describe(suit * 16 + SUIT_SIZE - down)}" if down < SUIT_SIZE else "is complete"
        return f"the {SUIT_SYMBOLS[suit]} Ace foundation {up_text} and the {SUIT_SYMBOLS[suit]} King foundation {down_text}"

    def _resolve_alias(self, move: Move) -> Move:
        """``f`` for a card no foundation takes resolves to its own suit's
        Ace foundation, so the refusal explains the order, not the suit."""
        resolved = super()._resolve_alias(move)
        cards = self.position.piles[self._index[move.src]]
        if resolved in self._legal(self.position) or not cards or self._index[move.src] in FOUNDATIONS:
            return resolved
        return Move(move.src, UP_NAMES[SUIT[cards[-1]]])

    # ------------------------------------------------------------- status

    def _won(self, pos: Position) -> bool:
        """Every card is on a foundation exactly when no card is anywhere
        else (the census is fixed at 104)."""
        return not any(pos.piles[TABLEAU.start :])

    def _check_position(self, pos: Position) -> None:
        """Beyond the census: foundations in order, only the reserve hiding
        cards, and no empty tableau pile while the reserve could fill it."""
        super()._check_position(pos)
        for f in FOUNDATIONS:
            suit = f % 4
            for height, card in enumerate(pos.piles[f]):
                expected = height + 1 if f in UP else SUIT_SIZE - height
                if SUIT[card] != suit or RANK[card] != expected:
                    raise BadNotation(f"foundation {self.PILES[f]!r} is not in order at {describe(card)}")
        if pos.down != _down_for(pos.piles[RESERVE]):
            raise BadNotation("only the reserve has face-down cards: all of them but its top card")
        if pos.piles[RESERVE] and not all(pos.piles[i] for i in TABLEAU):
            raise BadNotation("a tableau pile is empty while the reserve still has a card to fill it")

    # ------------------------------------------------------------- assists

    def _destination_order(self, pos: Position, move: Move) -> int | None:
        """Tap: a foundation first, then a pile with cards, then an empty
        pile (never the only card of a pile to an empty one)."""
        src, dst = self._index[move.src], self._index[move.dst]
        if dst in FOUNDATIONS:
            return 0
        if pos.piles[dst]:
            return 1
        return None if len(pos.piles[src]) == 1 else 2

    def _hint_order(self, pos: Position, move: Move) -> int | None:
        """Foundation moves, then moves that empty a pile (which brings in a
        reserve card or frees a space), then moves that uncover a card a
        foundation wants, then reserve cards, then other builds, then
        filling an empty pile."""
        src, dst = self._index[move.src], self._index[move.dst]
        if dst in FOUNDATIONS:
            return 0
        cards = pos.piles[src]
        if not pos.piles[dst] and len(cards) == 1:
            return None
        if src == RESERVE:
            return 3
        if len(cards) == 1:
            return 1
        if self._foundation_takes(pos, cards[-2]):
            return 2
        return 4 if pos.piles[dst] else 5

    @staticmethod
    def _foundation_takes(pos: Position, card: int) -> bool:
        suit, rank = SUIT[card], RANK[card]
        return rank == len(pos.piles[UP[suit]]) + 1 or rank == SUIT_SIZE - len(pos.piles[DOWN[suit]])

    def _extra_counters(self, pos: Position) -> dict[str, int]:
        return {
            "foundation": sum(len(pos.piles[f]) for f in FOUNDATIONS),
            "reserve": len(pos.piles[RESERVE]),
        }

    # ----------------------------------------------------- solver interface

    def search_key(self, pos: Position) -> Any:
        """Tableau piles are interchangeable (the rules never prefer one) and
        the two copies of a card are too, so the key is foundation heights,
        the sorted tableau and the reserve, with the deck bit dropped."""
        piles = pos.piles
        tableau = sorted(tuple(card & 63 for card in piles[i]) for i in TABLEAU)
        return (
            tuple(len(piles[f]) for f in FOUNDATIONS),
            tuple(tableau),
            tuple(card & 63 for card in piles[RESERVE]),
        )


DESCRIPTOR = GameDescriptor(
    rules=Chequers,
    lobby=Lobby(
        blurb="Two decks, 25 piles: build up or down by suit (wrapping), send cards to eight foundations.",
        cards=104,
    ),
    counters=(ProgressCounter("reserve", "Reserve"),),
    pools=(PoolVariant("chequers", {}, 1_000),),
    daily=({},),
    domain="engine.solver.chequers:ChequersDomain",
)
