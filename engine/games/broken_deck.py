"""Broken Deck: FreeCell-like play with six torn cards, as its rule text describes it.

Piles: ``t1``..``t8`` the columns, ``c1``..``c4`` the free cells, ``r`` the
Repair Slot, ``fs fh fd fc`` the foundations (one per suit, order SHDC).
Aliases: ``f`` means "my foundation", ``c`` "a free cell" (``t3-f``,
``t3-c``).  There are no actions: every move goes from a pile to a pile.

The deal, exactly (anyone can reproduce it from ``engine.rng``):
1. ``cards = shuffled(full_deck(), rng)`` with the deal's generator.
2. Practice: the 52 whole cards of ``cards`` are dealt one at a time,
   round robin, to t1, t2, … t8, t1 … (t1..t4 get 7, t5..t8 get 6).
3. Otherwise the last 6 cards of ``cards`` are torn.  The piece list is
   the first 46 cards in shuffle order, then for each torn card in shuffle
   order its left half and its right half (12 halves).  That list of 58
   pieces is shuffled again with the same generator (continuing its
   stream) and dealt round robin from t1 (t1, t2 get 8, t3..t8 get 7).
Everything is face up.

The Repair Slot holds one half or one whole card.  A half that meets its
match there becomes the whole card (the halves join in the slot); that
card must leave (to a legal column, an empty cell or its foundation)
before another half may enter.

Decisions where the rule text is silent (also for ``docs/rules.md``):
- The repair count is not stored: it is ``(12 - halves on the board) / 2``,
  so undo restores it exactly and a practice position counts 6.
- A whole card may go from a free cell to another empty free cell
  ("Whole cards may move between empty cells"); a half may not.
- Group moves use the capacity (empty cells + 1) × 2^(empty columns other
  than the destination).  A single card is not a group: it needs no
  capacity.  Moving a whole column to an empty column is legal, if useless.
- Every empty free cell is its own destination (``t3-c2``), so a player can
  choose where a card goes; ``t3-c`` picks the first empty one.
- "Some practice positions have all six repairs already complete": the
  dealt practice position has no halves; a practice position written in
  notation (a tutorial) may still hold halves.  The flag only marks the
  game as practice in the view and the notation (records leave it out).
- A position read from notation may have fewer torn cards than a deal
  (each missing pair counts as a repair done), but never more than six,
  and each half's match must be on the board.
- Double-click (``auto_move``): a half tries only the Repair Slot; a whole
  card tries its foundation, then (only from a column) the first empty
  free cell.
- Hint order, most useful first: a half completing a repair in the slot;
  the repaired card leaving the slot (to its foundation first); a half
  entering the empty slot while its match is exposed (top of a column or
  in a cell); a whole card to its foundation; a move that exposes a half
  or empties a column onto cards; a cell card going back onto a column;
  a column-to-column move; a half leaving a column for a cell; a whole
  card to a cell; a card to an empty column that uncovers another; a
  half entering the slot whose match is buried.  Never suggested:
  cell-to-cell moves, parking the slot's half, a cell card going to an
  empty column, and a column's last cards going to an empty column or a
  free cell.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar

from ..cards import (
    LEFT_HALF,
    PART,
    RANK,
    RED,
    RIGHT_HALF,
    SUIT,
    describe,
    full_deck,
    make_card,
    other_half,
    whole,
)
from ..data.broken_deck_seeds import SEEDS as VERIFIED_SEEDS
from ..descriptor import GameDescriptor, Lobby, LobbyOption, PoolVariant, ProgressCounter
from ..errors import ActionUnavailable, BadNotation, IllegalMove
from ..game import Game, Move, Option, Position
from ..rng import SplitMix64, shuffled

TABLEAU = tuple(range(8))
CELLS = (8, 9, 10, 11)
SLOT = 12
FOUNDATIONS = (13, 14, 15, 16)

TABLEAU_NAMES = tuple(f"t{i}" for i in range(1, 9))
CELL_NAMES = ("c1", "c2", "c3", "c4")
FOUNDATION_NAMES = ("fs", "fh", "fd", "fc")

TORN_CARDS = 6
HALVES_DEALT = 2 * TORN_CARDS
DIFFICULTIES = ("relaxed", "standard", "challenge")

# A card's rank and colour as one int, to index columns by the card they accept.
KEY = [RANK[card] * 2 + RED[card] for card in range(len(RANK))]
# WANTS[card] is the KEY of the cards that may land on ``card`` in a column.
WANTS = [(RANK[card] - 1) * 2 + (not RED[card]) for card in range(len(RANK))]


def group_capacity(empty_cells: int, spare_empty_columns: int) -> int:
    """How many cards may move together: (empty cells + 1) × 2^(spare empty columns)."""
    return (empty_cells + 1) << spare_empty_columns


class BrokenDeck(Game):
    id = "broken-deck"
    title = "Broken Deck"
    PILES = (*TABLEAU_NAMES, *CELL_NAMES, "r", *FOUNDATION_NAMES)
    ALIASES: ClassVar[dict[str, tuple[str, ...]]] = {"f": FOUNDATION_NAMES, "c": CELL_NAMES}
    FIRST_DEAL = 1
    LAST_DEAL = 1000
    HISTORY_LIMIT = 128
    OPTIONS = (
        Option("difficulty", "relaxed", choices=DIFFICULTIES, doc="challenge turns off hint, undo, redo and highlights"),
        Option("practice", False, choices=(False, True), doc="deal with all six repairs done; kept out of records"),
    )

    def _configure(self) -> None:
        names = self.PILES
        self._plain = [[Move(a, b) for b in names] for a in names]

    # ------------------------------------------------------------- deal

    def _seed_for_deal(self, deal: int) -> int:
        """Numbered deals are verified layouts: a number whose own shuffle
        has no certified win is dealt from the seed the deal table names
        (``engine/data/broken_deck_seeds.py``, built with the certificates
        by ``arena deals verify broken-deck``)."""
        return VERIFIED_SEEDS.get(deal, deal)

    def _deal(self, rng: SplitMix64) -> Position:
        """See the module docstring: one shuffle, the last six cards torn,
        a second shuffle of the 58 pieces, then round robin from t1."""
        cards = shuffled(full_deck(), rng)
        if self.options["practice"]:
            pieces = cards
        else:
            kept, torn = cards[:-TORN_CARDS], cards[-TORN_CARDS:]
            halves = [make_card(RANK[c], SUIT[c], part=part) for c in torn for part in (LEFT_HALF, RIGHT_HALF)]
            pieces = shuffled(kept + halves, rng)
        columns = tuple(tuple(pieces[i :: len(TABLEAU)]) for i in TABLEAU)
        empty = ((),) * (len(self.PILES) - len(TABLEAU))
        return Position(columns + empty, (0,) * len(self.PILES))

    # ------------------------------------------------------------- moves

    def _moves(self, pos: Position) -> list[Move]:
        """Written flat, with table look-ups, because random playouts and the
        solver call it for every position (see ``bench/engine.py``)."""
        piles = pos.piles
        plain = self._plain
        names = self.PILES
        moves: list[Move] = []
        add = moves.append
        next_up = [len(piles[f]) + 1 for f in FOUNDATIONS]
        empty_cells = [i for i in CELLS if not piles[i]]
        empty_columns: list[int] = []
        wanted: dict[int, list[int]] = {}
        for i in TABLEAU:
            cards = piles[i]
            if not cards:
                empty_columns.append(i)
            elif not PART[cards[-1]]:
                wanted.setdefault(WANTS[cards[-1]], []).append(i)
        slot = piles[SLOT]
        slot_takes = -1 if not slot else other_half(slot[0]) if PART[slot[0]] else 0
        singles = []
        for src in TABLEAU:
            cards = piles[src]
            if not cards:
                continue
            top = cards[-1]
            if PART[top]:
                for dst in empty_cells:
                    add(plain[src][dst])
                if slot_takes == -1 or slot_takes == top:
                    add(plain[src][SLOT])
                continue
            singles.append((src, top))
            for dst in empty_cells:
                add(plain[src][dst])
        for src in CELLS:
            if piles[src]:
                card = piles[src][0]
                if not PART[card]:
                    singles.append((src, card))
                    for dst in empty_cells:
                        add(plain[src][dst])
                elif slot_takes == -1 or slot_takes == card:
                    add(plain[src][SLOT])
        if slot:
            card = slot[0]
            if PART[card]:
                for dst in empty_cells:
                    add(plain[SLOT][dst])
            else:
                singles.append((SLOT, card))
                for dst in empty_cells:
                    add(plain[SLOT][dst])
        for src, card in singles:
            if RANK[card] == next_up[SUIT[card]]:
                add(plain[src][FOUNDATIONS[SUIT[card]]])
            for dst in wanted.get(KEY[card], ()):
                add(plain[src][dst])
            for dst in empty_columns:
                add(plain[src][dst])
        onto_cards = (len(empty_cells) + 1) << len(empty_columns)
        onto_empty = onto_cards >> 1
        for src in TABLEAU:
            cards = piles[src]
            limit = min(len(cards), onto_cards)
            count = 2
            while count <= limit:
                base, above = cards[-count], cards[1 - count]
                if PART[base] or PART[above] or WANTS[base] != KEY[above]:
                    break
                for dst in wanted.get(KEY[base], ()):
                    add(Move(names[src], names[dst], count))
                if count <= onto_empty:
                    for dst in empty_columns:
                        add(Move(names[src], names[dst], count))
                count += 1
        return moves

    def _apply(self, pos: Position, move: Move) -> Position:
        index = self._index
        src, dst, count = index[move.src], index[move.dst], move.count
        piles = list(pos.piles)
        cards = piles[src]
        moving = cards[len(cards) - count :]
        piles[src] = cards[: len(cards) - count]
        if dst == SLOT and piles[SLOT]:
            piles[SLOT] = (whole(moving[0]),)
        else:
            piles[dst] = piles[dst] + moving
        return Position(tuple(piles), pos.down)

    # ------------------------------------------------------------- refusals

    def _refusal(self, pos: Position, move: Move) -> IllegalMove:
        if not move.dst:
            return self.illegal("no_actions", "Broken Deck has no actions; move a piece from one pile to another")
        if move.src not in self._index or move.dst not in self._index:
            unknown = move.src if move.src not in self._index else move.dst
            return self.illegal("no_such_pile", f"there is no pile {unknown!r} in Broken Deck")
        src, dst, count = self._index[move.src], self._index[move.dst], move.count
        piles = pos.piles
        cards = piles[src]
        if count < 1:
            return self.illegal("bad_count", "a move takes at least one piece")
        if src == dst:
            return self.illegal("same_pile", "a piece must move to another pile")
        if src in FOUNDATIONS:
            return self.illegal("foundation_is_final", "a foundation card can return only through Undo")
        if not cards:
            return self.illegal("empty_source", f"{move.src} is empty")
        if count > 1:
            refusal = self._group_refusal(pos, src, dst, count)
            if refusal is not None:
                return refusal
        card = cards[-count]
        if PART[card]:
            return self._half_refusal(pos, src, dst, card)
        return self._whole_refusal(pos, dst, card)

    def _group_refusal(self, pos: Position, src: int, dst: int, count: int) -> IllegalMove | None:
        cards = pos.piles[src]
        if src not in TABLEAU:
            return self.illegal("single_card_only", "a free cell or the Repair Slot holds one piece; only columns move groups")
        if dst not in TABLEAU:
            return self.illegal("single_card_only", "groups move only onto columns; cells, the slot and foundations take one piece")
        if count > len(cards):
            return self.illegal("not_enough_cards", f"{self.PILES[src]} has only {len(cards)} pieces")
        moving = cards[-count:]
        if any(PART[c] for c in moving):
            return self.illegal("group_has_half", "a half blocks any group containing it from moving; repair its match first")
        for below, above in zip(moving, moving[1:]):
            if RANK[below] != RANK[above] + 1:
                return self.illegal("not_descending", "every card in a moving group must descend by one rank")
            if RED[below] == RED[above]:
                return self.illegal("not_alternating", "every card in a moving group must alternate colours")
        capacity = self._capacity(pos, dst)
        if count > capacity:
            return self.illegal(
                "group_too_large",
                f"with these free cells and empty columns you can move at most {capacity} cards together, not {count}",
            )
        return None

    def _capacity(self, pos: Position, dst: int) -> int:
        piles = pos.piles
        cells = sum(1 for i in CELLS if not piles[i])
        spare = sum(1 for i in TABLEAU if not piles[i] and i != dst)
        return group_capacity(cells, spare)

    def _half_refusal(self, pos: Position, src: int, dst: int, card: int) -> IllegalMove:
        if dst in TABLEAU:
            return self.illegal("half_to_column", f"{describe(card)} cannot enter a column; halves go to a free cell or the Repair Slot")
        if dst in FOUNDATIONS:
            return self.illegal("half_to_foundation", f"{describe(card)} cannot go to a foundation; repair it first")
        if dst in CELLS:
            if src in CELLS:
                return self.illegal("half_cell_to_cell", "from a free cell a half can move only to the Repair Slot")
            return self.illegal("cell_occupied", f"{self.PILES[dst]} is not empty; a free cell holds one piece")
        slot = pos.piles[SLOT]
        if slot and not PART[slot[0]]:
            return self.illegal("slot_holds_repaired_card", "move the repaired card out before starting another repair")
        return self.illegal("slot_occupied", f"the Repair Slot holds {describe(slot[0])}; it accepts only its matching half")

    def _whole_refusal(self, pos: Position, dst: int, card: int) -> IllegalMove:
        if dst == SLOT:
            return self.illegal("whole_card_to_slot", "whole cards cannot enter the Repair Slot")
        if dst in CELLS:
            return self.illegal("cell_occupied", f"{self.PILES[dst]} is not empty; a free cell holds one piece")
        if dst in FOUNDATIONS:
            if FOUNDATIONS.index(dst) != SUIT[card]:
                return self.illegal("wrong_suit", f"{describe(card)} belongs on its own suit's foundation")
            return self.illegal("foundation_order", f"foundations build up by suit from Ace to King; {describe(card)} does not fit")
        top = pos.piles[dst][-1]
        if PART[top]:
            return self.illegal("onto_half", f"nothing can land on {describe(top)}; repair it first")
        if RANK[top] != RANK[card] + 1:
            return self.illegal("not_descending", f"{describe(card)} must go on a card one rank higher")
        return self.illegal("not_alternating", f"{describe(card)} must go on a card of the other colour")

    # ------------------------------------------------------------- status

    def halves(self, pos: Position) -> int:
        """How many half pieces are on the board."""
        return sum(1 for pile in pos.piles for card in pile if PART[card])

    def all_repaired(self, pos: Position | None = None) -> bool:
        """No half left anywhere (of ``pos``, or of the current position):
        automatic finishing may only start then."""
        return self.halves(self.position if pos is None else pos) == 0

    def check_finish(self, pos: Position | None = None) -> None:
        """Relaxed and Standard can automatically finish only after all
        halves are repaired (the rule text); the proven path is the solver's part."""
        self._check_assists("Automatic finishing")
        if not self.all_repaired(pos):
            raise ActionUnavailable("automatic finishing waits until every half is repaired", code="halves_unrepaired")

    def _won(self, pos: Position) -> bool:
        piles = pos.piles
        return all(len(piles[f]) == 13 for f in FOUNDATIONS) and self.all_repaired(pos)

    # ------------------------------------------------------------- assists

    @property
    def assists(self) -> bool:
        return self.options["difficulty"] != "challenge"

    def _moving_card(self, pos: Position, move: Move) -> int:
        cards = pos.piles[self._index[move.src]]
        return cards[len(cards) - move.count]

    def _destination_order(self, pos: Position, move: Move) -> int | None:
        """Double-click: a fragment tries only the Repair Slot; a whole card
        its foundation, then an empty free cell when it leaves a column."""
        src, dst = self._index[move.src], self._index[move.dst]
        if PART[self._moving_card(pos, move)]:
            return 0 if dst == SLOT else None
        if dst in FOUNDATIONS:
            return 0
        if dst in CELLS and src in TABLEAU:
            return 1
        return None

    def _hint_order(self, pos: Position, move: Move) -> int | None:
        """The ranking in the module docstring: repairs, then foundations,
        then moves that uncover halves or free space."""
        src, dst = self._index[move.src], self._index[move.dst]
        piles = pos.piles
        card = self._moving_card(pos, move)
        if PART[card]:
            if dst == SLOT:
                if piles[SLOT]:
                    return 0
                return 3 if self._exposed(pos, other_half(card)) else 11
            return None if src == SLOT else 8
        if src == SLOT:
            return 1 if dst in FOUNDATIONS else 2
        if dst in FOUNDATIONS:
            return 4
        if src in CELLS:
            return 6 if piles[dst] and dst in TABLEAU else None
        remaining = len(piles[src]) - move.count
        if dst in TABLEAU and piles[dst]:
            if remaining == 0 or PART[piles[src][remaining - 1]]:
                return 5
            return 7
        if remaining == 0:
            return None
        return 9 if dst in CELLS else 10

    def _exposed(self, pos: Position, card: int) -> bool:
        """Whether ``card`` can move now: on top of a column or in a cell."""
        piles = pos.piles
        return any(piles[i] and piles[i][-1] == card for i in (*TABLEAU, *CELLS))

    def _extra_counters(self, pos: Position) -> dict[str, int]:
        return {
            "repairs": (HALVES_DEALT - self.halves(pos)) // 2,
            "foundation": sum(len(pos.piles[f]) for f in FOUNDATIONS),
        }

    def _view_extra(self, pos: Position) -> dict[str, Any]:
        return {
            "practice": self.options["practice"],
            "difficulty": self.options["difficulty"],
            "repairs": (HALVES_DEALT - self.halves(pos)) // 2,
        }

    # ------------------------------------------------------------- positions

    def census(self, pos: Position) -> list[int]:
        """The whole cards present: a torn card's two halves count as that
        card once, so 58 pieces and 52 whole cards are the same census."""
        pieces = [card for pile in pos.piles for card in pile]
        torn = {whole(card) for card in pieces if PART[card]}
        return sorted([card for card in pieces if not PART[card]] + list(torn))

    def _check_position(self, pos: Position) -> None:
        """A position is playable when its pieces are the 52 cards, each
        whole once or torn into both its halves (at most six torn), all face
        up, cells and slot holding at most one piece, and every foundation
        a run of its own suit from the Ace."""
        pieces = [card for pile in pos.piles for card in pile]
        duplicated = [card for card, seen in Counter(pieces).items() if seen > 1]
        if duplicated:
            raise BadNotation(f"{describe(duplicated[0])} appears more than once")
        if self.census(pos) != sorted(full_deck()):
            raise BadNotation("the position does not hold exactly the 52 cards of Broken Deck")
        present = set(pieces)
        for card in pieces:
            if PART[card] and other_half(card) not in present:
                raise BadNotation(f"{describe(card)} has no matching half on the board")
        if self.halves(pos) > HALVES_DEALT:
            raise BadNotation(f"a Broken Deck position has at most {TORN_CARDS} torn cards")
        if any(pos.down):
            raise BadNotation("every Broken Deck piece is face up")
        for i in (*CELLS, SLOT):
            if len(pos.piles[i]) > 1:
                raise BadNotation(f"{self.PILES[i]} holds one piece at most")
        for suit, f in enumerate(FOUNDATIONS):
            expected = tuple(make_card(rank, suit) for rank in range(1, len(pos.piles[f]) + 1))
            if len(pos.piles[f]) > 13 or pos.piles[f] != expected:
                raise BadNotation(f"foundation {self.PILES[f]} must hold its suit from the Ace up, in order")


DESCRIPTOR = GameDescriptor(
    rules=BrokenDeck,
    lobby=Lobby(
        blurb="FreeCell with six torn cards: repair them in the Repair Slot, then build the foundations.",
        cards=52,
        deal_kinds=("random", "daily", "number"),
        options=(
            LobbyOption(
                "difficulty", "Difficulty",
                choices=(("relaxed", "Relaxed"), ("standard", "Standard"), ("challenge", "Challenge")),
            ),
            LobbyOption("practice", "Practice deal (all six repairs done)", toggle=True),
        ),
        changeable=("difficulty",),
        choose_random_deal=True,
    ),
    counters=(ProgressCounter("repairs", "Repairs", TORN_CARDS),),
    pools=(PoolVariant("broken-deck", {}, 1_000),),
    daily=tuple({"difficulty": difficulty} for difficulty in DIFFICULTIES),
    domain="engine.solver.broken_deck:BrokenDeckDomain",
    recorded=("repairs",),
)
"""Every deal is verified (1 to 1,000), so the lobby deals no "winnable"
kind; a daily deal per difficulty, since the difficulty changes the contest."""
