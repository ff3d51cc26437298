"""Lara's Game: the two-deck solitaire of its rule text, with the decisions
of ``docs/rules.md``, *Lara's Game*.

Piles (``PILES``, in this order):

- ``us uh ud uc``: the four up foundations, Ace to King, one per suit (SHDC);
- ``ds dh dd dc``: the four down foundations, King to Ace, one per suit;
- ``p1`` .. ``p13``: the packs, numbered as the rule text numbers them;
- ``s``: the stock, face down (its top is the last card dealt to it);
- ``r``: the spread row at the bottom, listed left to right.  The
  rightmost card becomes the top of its pack when the pack goes back.

Extra state (``AUX_FIELDS``): ``spread``, the number of the pack that is
spread out in the row now, 0 when none is.  While pack ``n`` is spread,
pile ``pn`` is empty and its cards are in ``r``.

Moves:

- ``p3-uh``: the top card of pack 3 to the hearts up foundation;
  ``p3-p5``: to pack 5, which must be empty and numbered as the card;
- ``r2-dc``, ``r2-p7``: the second spread card from the left, the same way;
- ``r3-r1``: rearrange: take the third spread card and insert it so that
  it becomes the first;
- ``draw``: click the stock (see below).
- ``f`` as a destination means "a foundation": it resolves to the first
  foundation (up ones first) that takes the card.

Why ``r1``, ``r2`` … and not one pile per spread card: the row is one
ordered pile whose order the player sets, so one pile keeps the position,
the view and the notation simple (``r: 5H QSb 7C``); only moves need to
point into it.  ``r<k>`` (k = 1..27; no spread can hold more than 16 cards,
8 dealt plus 8 turned of its rank) is therefore a name that moves accept but
that is not a pile: ``parse_move`` and ``auto_move`` know these names, and
``str(move)`` writes them back unchanged.  A bare ``r`` in a move is
refused because it does not say which card.

The deal (``deal_in_order`` does it for a given card order; ``_deal``
gives it ``shuffled(full_deck(2))``): take the cards one by one and give
them to the packs in turn, ``p1`` to ``p13`` and round again.  After a
card goes to pack ``n``, the next cards go face down onto the stock:
one if the card's rank is ``n``, one more if it is an Ace or a King, and
one more if ``n`` is 13 (the end of the row of packs).  The rules add up,
so an Ace on pack 1 sends two cards to the stock and a King on pack 13
three.  The deal stops when the 104 cards run out, even in the middle of
such a step.

Decisions where the rule text is silent (also in ``docs/rules.md``):

- The packs are face up: the rule text calls only the stock face down.  Only a
  pack's top card is playable; the whole pack is visible, as in a squared
  face-up pile that a player may look through.
- ``draw`` is legal whenever the stock has cards, even while plays remain
  ("when all possible plays have been made" is advice, not a condition).
  It puts the open spread back on its pack in row order, then turns the
  stock's top card and spreads the pack of its rank with that card at the
  right end.  With an empty stock there is no redeal: ``draw`` is refused
  and the open spread stays playable.
- When the last card leaves the spread row, the spread closes
  (``spread=0``): the pack is then really empty, so a card of its number
  may fill it.  While the row holds cards, their pack is not empty.
- The game is lost when no move but rearranging remains (rearranging
  alone never makes a card playable).  It is won with all 104 cards on the
  foundations.
- AutoPlay: after each action the game plays, one at a time, a card that
  is a pack top or in the row (packs 1..13 first, then the row from the
  left) to a foundation that takes it, when its twin (the other card of
  the same rank and suit) is already on the suit's other foundation.  Such
  a card can only ever go to this one foundation, and taking an available
  card off the table never takes a move away (packs only shrink, pack tops
  stay tops, fewer cards go back with a spread), so no choice is lost.
  When both foundations of a suit want the card, or the twin is still out,
  the choice is the player's.
- The tap helper (``auto_move``) prefers the up foundation, then the down
  foundation, then an empty pack; it never rearranges.
"""

from __future__ import annotations

from itertools import islice
from typing import Any, ClassVar, Sequence

from ..cards import RANK, SUIT, SUIT_SYMBOLS, describe, full_deck
from ..descriptor import GameDescriptor, Lobby, LobbyOption, PoolVariant, ProgressCounter
from ..errors import BadNotation, IllegalMove
from ..game import Game, Move, Option, Position
from ..rng import SplitMix64, shuffled

UP_NAMES = ("us", "uh", "ud", "uc")
DOWN_NAMES = ("ds", "dh", "dd", "dc")
PACK_NAMES = tuple(f"p{number}" for number in range(1, 14))
UP = (0, 1, 2, 3)
DOWN = (4, 5, 6, 7)
FOUNDATIONS = UP + DOWN
PACK_BASE = 7  # pack n is pile PACK_BASE + n
STOCK = 21
ROW = 22
CARDS = 104
SAME_CARD = 63  # card & SAME_CARD drops the deck bit: twins give the same value

ROW_LIMIT = 27
SLOT_NAMES = tuple(f"r{place}" for place in range(1, ROW_LIMIT + 1))
SLOT = {name: index for index, name in enumerate(SLOT_NAMES)}
DRAW = Move("draw")

# Every rearrangement of a row of n cards, built once: they depend only on
# the row's length, and random playouts spend most of their moves here.
# For the solver: only the order in which the row goes back at the next
# ``draw`` matters, and ``ri-rj`` with |i-j| = 1 reaches the same row as
# ``rj-ri``; a search can skip rearrangements altogether and instead branch,
# just before each ``draw``, over which row cards to put on top (in practice:
# the few that the next plays can need), treating the twins 7H / 7Hb as
# equal in its key.
REARRANGEMENTS = tuple(
    tuple(Move(SLOT_NAMES[i], SLOT_NAMES[j]) for i in range(length) for j in range(length) if i != j)
    for length in range(ROW_LIMIT + 1)
)

RANK_WORDS = ("", *"Ace Two Three Four Five Six Seven Eight Nine Ten Jack Queen King".split())


def deal_in_order(cards: Sequence[int]) -> Position:
    """The starting position when the cards come off the deck in this order
    (the procedure is in the module docstring)."""
    packs: list[list[int]] = [[] for _ in PACK_NAMES]
    stock: list[int] = []
    feed = iter(cards)
    number = 1
    for card in feed:
        packs[number - 1].append(card)
        rank = RANK[card]
        to_stock = (rank == number) + (rank in (1, 13)) + (number == 13)
        stock.extend(islice(feed, to_stock))
        number = number % 13 + 1
    piles = ((),) * len(FOUNDATIONS) + tuple(tuple(pack) for pack in packs) + (tuple(stock), ())
    down = [0] * len(piles)
    down[STOCK] = len(stock)
    return Position(piles, tuple(down), (0,))


def _wanted(pos: Position) -> dict[int, list[str]]:
    """Where a card can go, keyed by its rank and suit (``card & SAME_CARD``):
    up foundation first, then down foundation, then an empty pack."""
    piles = pos.piles
    wanted: dict[int, list[str]] = {}
    for suit in range(4):
        need = len(piles[UP[suit]]) + 1
        if need <= 13:
            wanted[suit * 16 + need] = [UP_NAMES[suit]]
    for suit in range(4):
        need = 13 - len(piles[DOWN[suit]])
        if need:
            wanted.setdefault(suit * 16 + need, []).append(DOWN_NAMES[suit])
    spread = pos.aux[0]
    for number, cards in enumerate(piles[PACK_BASE + 1 : STOCK], start=1):
        if not cards and number != spread:
            for suit in range(4):
                wanted.setdefault(suit * 16 + number, []).append(PACK_NAMES[number - 1])
    return wanted


def _available(piles: tuple[tuple[int, ...], ...]) -> list[tuple[str, int]]:
    """The playable cards by the name that moves them: pack tops, packs 1 to
    13, then the spread row from the left."""
    available = [(name, cards[-1]) for name, cards in zip(PACK_NAMES, piles[PACK_BASE + 1 : STOCK]) if cards]
    available += zip(SLOT_NAMES, piles[ROW])
    return available


def plays(pos: Position) -> list[Move]:
    """The legal moves that play a card to a foundation or an empty pack,
    in ``_moves``' order (``_available``'s, then ``_wanted``'s): the moves
    of the search's bold domain, which never draws as a step of its own
    nor rearranges, so it need not list and skip those."""
    wanted = _wanted(pos)
    moves: list[Move] = []
    for src, card in _available(pos.piles):
        targets = wanted.get(card & SAME_CARD)
        if targets:
            moves += [Move(src, dst) for dst in targets]
    return moves


def twin_move(piles: tuple[tuple[int, ...], ...]) -> Move | None:
    """The AutoPlay rule: a card whose twin is already on the suit's other
    foundation goes to the one foundation left for it (no choice is lost,
    see the module docstring); the solver plays it as a forced move.

    Only a suit whose two foundations hold 13 cards or more between them
    has such a card (the next card of one is then the twin of a card on
    the other), so those suits' wanted cards are listed first and each
    playable card is one look-up: the search asks after every step it
    takes, and before any suit qualifies no card is looked at.  The cards
    are looked at in ``_available``'s order, written out here: building
    its list made this check a third slower in late positions."""
    homes: dict[int, str] = {}
    for suit in range(4):
        up_height, down_height = len(piles[UP[suit]]), len(piles[DOWN[suit]])
        if up_height + down_height >= 13:
            if up_height < 13:
                homes[suit * 16 + up_height + 1] = UP_NAMES[suit]
            if down_height < 13:
                homes[suit * 16 + 13 - down_height] = DOWN_NAMES[suit]
    if homes:
        for src, cards in zip(PACK_NAMES, piles[PACK_BASE + 1 : STOCK]):
            if cards and (home := homes.get(cards[-1] & SAME_CARD)) is not None:
                return Move(src, home)
        for src, card in zip(SLOT_NAMES, piles[ROW]):
            if (home := homes.get(card & SAME_CARD)) is not None:
                return Move(src, home)
    return None


def _a(word: str) -> str:
    """``word`` with its indefinite article, for refusal sentences."""
    return ("an " if word[0] in "AEIOU" else "a ") + word


def _is_rearrangement(move: Move) -> bool:
    return move.dst in SLOT


class LarasGame(Game):
    id = "laras-game"
    title = "Lara's Game"
    PILES = (*UP_NAMES, *DOWN_NAMES, *PACK_NAMES, "s", "r")
    ALIASES: ClassVar[dict[str, tuple[str, ...]]] = {"f": UP_NAMES + DOWN_NAMES}
    ACTIONS = frozenset({"draw"})
    MOVE_PLACES = frozenset(SLOT_NAMES)
    AUX_FIELDS = ("spread",)
    OPTIONS = (
        Option(
            "autoplay", False, choices=(False, True), doc="play cards to the foundations by themselves where no choice is lost",
            automatic=True,
        ),
    )

    # ------------------------------------------------------------- deal

    def _deal(self, rng: SplitMix64) -> Position:
        return deal_in_order(shuffled(full_deck(2), rng))

    # ------------------------------------------------------------- notation

    def parse_move(self, text: str) -> Move:
        """The base notation plus the spread places ``r1``, ``r2`` …"""
        move = Move.from_text(text)
        if not move.dst:
            return super().parse_move(text)
        for name in (move.src, move.dst):
            if name == "r":
                raise BadNotation(f"{text!r}: name a spread card by its place from the left, e.g. r1")
            if not self._is_place(name) and name not in self.ALIASES:
                raise BadNotation(f"{text!r}: there is no pile {name!r} in {self.title}")
        if move.src in self.ALIASES:
            raise BadNotation(f"{text!r}: {move.src!r} names a destination, not a card to move")
        if move.dst in self.ALIASES:
            return self._resolve_alias(move)
        return move

    # ------------------------------------------------------------- moves

    def _moves(self, pos: Position) -> list[Move]:
        piles = pos.piles
        moves = plays(pos)
        if piles[STOCK]:
            moves.append(DRAW)
        moves += REARRANGEMENTS[len(piles[ROW])]
        return moves

    def _apply(self, pos: Position, move: Move) -> Position:
        if not move.dst:
            return self._turn(pos)
        piles = list(pos.piles)
        spread = pos.aux[0]
        place = SLOT.get(move.src)
        if place is None:
            src = self._index[move.src]
            card = piles[src][-1]
            piles[src] = piles[src][:-1]
        else:
            row = piles[ROW]
            card = row[place]
            rest = row[:place] + row[place + 1 :]
            target = SLOT.get(move.dst)
            if target is not None:
                piles[ROW] = rest[:target] + (card,) + rest[target:]
                return Position(tuple(piles), pos.down, pos.aux)
            piles[ROW] = rest
            if not rest:
                spread = 0
        dst = self._index[move.dst]
        piles[dst] = piles[dst] + (card,)
        return Position(tuple(piles), pos.down, (spread,))

    @staticmethod
    def _turn(pos: Position) -> Position:
        """``draw``: the row goes back onto its (empty) pack, rightmost card
        on top; the stock's top card is turned and the pack of its rank is
        spread with that card at the right end."""
        piles = list(pos.piles)
        spread = pos.aux[0]
        if spread:
            piles[PACK_BASE + spread] = piles[ROW]
        card = piles[STOCK][-1]
        piles[STOCK] = piles[STOCK][:-1]
        pack = PACK_BASE + RANK[card]
        piles[ROW] = piles[pack] + (card,)
        piles[pack] = ()
        down = list(pos.down)
        down[STOCK] -= 1
        return Position(tuple(piles), tuple(down), (RANK[card],))

    # ------------------------------------------------------------- refusals

    def _refusal(self, pos: Position, move: Move) -> IllegalMove:
        if not move.dst:
            if move.src != "draw":
                return self.illegal("unknown_action", f"{self.title} has no action {move.src!r}; it has draw")
            return self.illegal("stock_empty", "the stock is empty, and there is no redeal in Lara's Game")
        for name in (move.src, move.dst):
            if name not in self._index and name not in SLOT:
                return self.illegal("unknown_pile", f"there is no pile {name!r} in {self.title}")
        if move.count != 1:
            return self.illegal("single_card_only", "cards move one at a time in Lara's Game")
        row = pos.piles[ROW]
        place = SLOT.get(move.src)
        refused = self._source_refusal(pos, move, place)
        if refused is not None:
            return refused
        card = pos.piles[self._index[move.src]][-1] if place is None else row[place]
        target = SLOT.get(move.dst)
        if target is not None:
            return self._rearrange_refusal(row, place, target)
        dst = self._index[move.dst]
        if dst in FOUNDATIONS:
            return self._foundation_refusal(pos, dst, card)
        if dst in (STOCK, ROW):
            return self.illegal("bad_destination", "cards cannot be placed on the stock or into the spread row")
        return self._pack_refusal(pos, move, dst, card)

    def _source_refusal(self, pos: Position, move: Move, place: int | None) -> IllegalMove | None:
        """Why the named card cannot move at all, or None if it is available."""
        row = pos.piles[ROW]
        if place is not None:
            if not row:
                return self.illegal("no_spread", "no pack is spread out; click the stock to spread one")
            if place >= len(row):
                return self.illegal("no_such_spread_card", f"the spread row has only {len(row)} cards")
            return None
        src = self._index[move.src]
        if src == STOCK:
            return self.illegal(
                "stock_not_playable", "click the stock to turn its top card; its cards cannot be moved directly"
            )
        if src == ROW:
            return self.illegal("spread_card_unnamed", "name a spread card by its place from the left, e.g. r1")
        if src in FOUNDATIONS:
            return self.illegal("foundation_final", "cards on a foundation stay there")
        number = src - PACK_BASE
        if not pos.piles[src] and number == pos.aux[0]:
            return self.illegal("pack_spread", f"pack {number} is spread out; play its cards from the bottom row")
        if not pos.piles[src]:
            return self.illegal("empty_source", f"pack {number} is empty")
        return None

    def _rearrange_refusal(self, row: tuple[int, ...], place: int | None, target: int) -> IllegalMove:
        if place is None:
            return self.illegal(
                "not_into_spread", "only the spread pack's own cards are in the bottom row; a pack's top card cannot join it"
            )
        if target >= len(row):
            return self.illegal("no_such_spread_card", f"the spread row has only {len(row)} cards")
        return self.illegal("same_place", f"that card is already at place {place + 1} of the row")

    def _foundation_refusal(self, pos: Position, dst: int, card: int) -> IllegalMove:
        upward = dst in UP
        suit = dst % 4
        symbol = SUIT_SYMBOLS[suit]
        name = f"the {symbol} {'up' if upward else 'down'} foundation"
        if SUIT[card] != suit:
            return self.illegal("wrong_suit", f"{name} takes only {symbol} cards, not {describe(card)}")
        height = len(pos.piles[dst])
        if height == 13:
            return self.illegal("foundation_full", f"{name} is complete")
        needed = height + 1 if upward else 13 - height
        order = "Ace to King" if upward else "King to Ace"
        return self.illegal(
            "foundation_order",
            f"{name} builds from {order} and needs {_a(RANK_WORDS[needed])} next, not {describe(card)}",
        )

    def _pack_refusal(self, pos: Position, move: Move, dst: int, card: int) -> IllegalMove:
        number = dst - PACK_BASE
        if move.src == move.dst:
            return self.illegal("same_pile", "a card must move to another pile")
        if number == pos.aux[0]:
            return self.illegal("pack_spread", f"pack {number} is spread out in the bottom row, so it is not empty")
        if pos.piles[dst]:
            return self.illegal("no_building", "there is no building on the packs; a card can only fill an empty pack")
        return self.illegal(
            "pack_number",
            f"an empty pack takes only a card of its own number: "
            f"pack {number} takes {_a(RANK_WORDS[number])}, not {describe(card)}",
        )

    # ------------------------------------------------------------- status

    def _won(self, pos: Position) -> bool:
        return not pos.piles[STOCK] and sum(len(pos.piles[f]) for f in FOUNDATIONS) == CARDS

    def _lost(self, pos: Position) -> bool:
        return all(_is_rearrangement(move) for move in self._legal(pos))

    def _check_position(self, pos: Position) -> None:
        super()._check_position(pos)
        piles, down, spread = pos.piles, pos.down, pos.aux[0]
        if any(count for index, count in enumerate(down) if index != STOCK) or down[STOCK] != len(piles[STOCK]):
            raise BadNotation("in Lara's Game the stock is face down and every other card face up")
        for suit in range(4):
            for index, card in enumerate(piles[UP[suit]]):
                if SUIT[card] != suit or RANK[card] != index + 1:
                    raise BadNotation(f"{UP_NAMES[suit]} must hold its suit from the Ace up")
            for index, card in enumerate(piles[DOWN[suit]]):
                if SUIT[card] != suit or RANK[card] != 13 - index:
                    raise BadNotation(f"{DOWN_NAMES[suit]} must hold its suit from the King down")
        if not 0 <= spread <= 13:
            raise BadNotation("spread= is a pack number from 1 to 13, or 0 for none")
        if len(piles[ROW]) > ROW_LIMIT:
            raise BadNotation(f"the spread row holds at most {ROW_LIMIT} cards")
        if bool(spread) != bool(piles[ROW]) or (spread and piles[PACK_BASE + spread]):
            raise BadNotation(
                "while pack n is spread (spread=n), pn is empty and r holds its cards; r is empty otherwise"
            )

    # ------------------------------------------------------------- assists

    def _auto_move(self, pos: Position) -> Move | None:
        """AutoPlay, where the option is on (``twin_move``)."""
        return twin_move(pos.piles) if self.options["autoplay"] else None

    def _destination_order(self, pos: Position, move: Move) -> int | None:
        """Tap: the up foundation, then the down foundation, then an empty pack."""
        if _is_rearrangement(move):
            return None
        dst = self._index[move.dst]
        if dst in UP:
            return 0
        return 1 if dst in DOWN else 2

    def _hint_order(self, pos: Position, move: Move) -> int | None:
        """Foundation plays first, then filling a pack, then the stock;
        rearranging is the player's planning, which this heuristic leaves
        alone (a solver's hint may still start with one)."""
        if not move.dst:
            return 2
        if _is_rearrangement(move):
            return None
        return 0 if self._index[move.dst] in FOUNDATIONS else 1

    def _extra_counters(self, pos: Position) -> dict[str, int]:
        return {
            "foundation": sum(len(pos.piles[f]) for f in FOUNDATIONS),
            "stock": len(pos.piles[STOCK]),
        }

    def _view_extra(self, pos: Position) -> dict[str, Any]:
        return {"spread": pos.aux[0]}


DESCRIPTOR = GameDescriptor(
    rules=LarasGame,
    lobby=Lobby(
        blurb="Two decks, thirteen packs: turn the stock to spread a pack, rearrange the row, build up and down.",
        cards=104,
        options=(LobbyOption("autoplay", "AutoPlay", toggle=True),),
    ),
    counters=(ProgressCounter("stock", "Stock"),),
    pools=(PoolVariant("laras-game", {}, 1_000),),
    daily=({},),
    domain="engine.solver.laras_game:LarasGameDomain",
)
