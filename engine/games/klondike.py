"""WordLink: Klondike as its rule text describes it.

Piles: ``s`` stock, ``w`` waste, ``fs fh fd fc`` the foundations (one per
suit, so "the" foundation of a card is never ambiguous), ``t1``..``t7``
the tableau.  Actions: ``draw`` taps the stock (and, when the stock is
empty, turns the waste over into a new stock: unlimited passes).

Decisions where the rule text is silent (also in ``docs/rules.md``):
- "Flip / Move a card: +5" gives +5 for each tableau card turned face up
  and +5 for each card moved from the waste to the tableau; tableau to
  tableau moves score nothing, else shuttling a King between empty
  columns would print points.
- Vegas earns +5 per card that reaches a foundation and gives the 5 back
  if the card leaves it, so the total is 5 × cards on the foundations.
- Scores may go below zero; the time penalty is whole minutes elapsed.
- The game is lost when, through a whole cycle of the stock, no move
  other than drawing and recycling is legal, and the cards the player has
  seen prove it: a stock card not yet seen might be any card the player
  has not seen, so the status never depends on a face-down card.
"""

from __future__ import annotations

from typing import Any, ClassVar, Iterable

from ..cards import RANK, RED, SUIT, describe, full_deck
from ..descriptor import GameDescriptor, Lobby, LobbyOption, PoolVariant
from ..errors import ActionUnavailable, IllegalMove
from ..game import Game, Move, Option, Position
from ..moves import Snapshot
from ..rng import SplitMix64, shuffled

STOCK, WASTE = 0, 1
FOUNDATIONS = (2, 3, 4, 5)
TABLEAU = tuple(range(6, 13))
DRAW = Move("draw")

FOUNDATION_NAMES = ("fs", "fh", "fd", "fc")

# A card fits on a tableau card when FITS_KEY[card] == ACCEPTS_KEY[target]:
# one rank lower and the other colour, as one int per card so that move
# generation does a dict look-up instead of building tuples.
FITS_KEY = [RANK[c] * 2 + RED[c] for c in range(len(RANK))]
ACCEPTS_KEY = [(RANK[c] - 1) * 2 + (not RED[c]) for c in range(len(RANK))]
TABLEAU_NAMES = tuple(f"t{i}" for i in range(1, 8))
PILE_NAMES = ("s", "w", *FOUNDATION_NAMES, *TABLEAU_NAMES)

# Every pile-to-pile move, built once: MOVES[src][dst][count].  Move
# generation is WordLink's hot path (a new list of moves after every
# move), and looking a move up costs a fraction of constructing it.
MOVES = [[[Move(src, dst, count) for count in range(14)] for dst in PILE_NAMES] for src in PILE_NAMES]

# What the columns and foundations allow, whatever the stock and the waste
# hold: ``Klondike._targets``, the moves from those piles, and ``_lost``'s
# verdicts on the stocks and wastes met beside them where only drawing is
# legal (while the columns stay, only draws and undos change the stock and
# the waste, so they are few: VERDICTS_KEPT bounds them all the same).
Board = tuple[dict[int, list[int]], list[int], list[Move], dict[tuple[object, ...], bool]]
VERDICTS_KEPT = 64


class Klondike(Game):
    id = "klondike"
    title = "WordLink"
    PILES = PILE_NAMES
    ALIASES: ClassVar[dict[str, tuple[str, ...]]] = {"f": FOUNDATION_NAMES}
    ACTIONS = frozenset({"draw"})
    HAS_SCORE = True
    OPTIONS = (
        Option("draw", 1, choices=(1, 3), doc="cards turned per tap of the stock"),
        Option("scoring", "standard", choices=("standard", "vegas"), doc="standard points or Vegas earnings"),
        Option(
            "auto_collect", False, choices=(False, True), doc="move safe cards to the foundations by themselves",
            automatic=True,
        ),
        Option("undo_limit", None, minimum=0, optional=True, doc="undos allowed per game (none: unlimited)"),
        Option("hint_limit", None, minimum=0, optional=True, doc="hints allowed per game (none: unlimited)"),
    )

    def _configure(self) -> None:
        self._draw_count: int = self.options["draw"]
        self._vegas = self.options["scoring"] == "vegas"
        self._board: tuple[Position, Board] | None = None

    # ------------------------------------------------------------- deal

    def _deal(self, rng: SplitMix64) -> Position:
        """Row by row, left to right: row r gives one card to columns r..7;
        the last card of each column is face up; 24 cards stay in the stock
        (the last card of the shuffle is the stock's top)."""
        cards = shuffled(full_deck(), rng)
        columns: list[list[int]] = [[] for _ in TABLEAU]
        position = 0
        for row in range(7):
            for column in range(row, 7):
                columns[column].append(cards[position])
                position += 1
        stock = tuple(cards[position:])
        piles = (stock, (), (), (), (), ()) + tuple(tuple(column) for column in columns)
        down = (len(stock), 0, 0, 0, 0, 0) + tuple(len(column) - 1 for column in columns)
        return Position(piles, down)

    # ------------------------------------------------------------- moves

    @staticmethod
    def _targets(pos: Position) -> tuple[dict[int, list[int]], list[int]]:
        """Tableau columns by the card they accept (``FITS_KEY`` of that
        card → columns), and the empty columns (which accept Kings)."""
        wanted: dict[int, list[int]] = {}
        empty: list[int] = []
        piles, down = pos.piles, pos.down
        for i in TABLEAU:
            cards = piles[i]
            if not cards:
                empty.append(i)
            elif down[i] < len(cards):
                key = ACCEPTS_KEY[cards[-1]]
                if key in wanted:
                    wanted[key].append(i)
                else:
                    wanted[key] = [i]
        return wanted, empty

    def _moves(self, pos: Position) -> list[Move]:
        """The waste's moves, then the board's (columns, then foundations),
        then the draw.  The board's part is the same list while the
        foundations and columns are (one entry kept, ``_board_moves``):
        a draw, the most common action, changes only the stock and the
        waste, so the columns are not searched again after one."""
        piles = pos.piles
        wanted, empty, board, _ = self._board_moves(pos)
        waste = piles[WASTE]
        if not waste:
            return [*board, DRAW] if piles[STOCK] else list(board)
        moves: list[Move] = []
        card = waste[-1]
        from_waste = MOVES[WASTE]
        if RANK[card] == len(piles[FOUNDATIONS[SUIT[card]]]) + 1:
            moves.append(from_waste[FOUNDATIONS[SUIT[card]]][1])
        for dst in wanted.get(FITS_KEY[card], ()):
            moves.append(from_waste[dst][1])
        if RANK[card] == 13:
            moves.extend(from_waste[dst][1] for dst in empty)
        moves.extend(board)
        moves.append(DRAW)
        return moves

    def _board_moves(self, pos: Position) -> Board:
        """``_targets`` and the moves from the columns and the foundations,
        kept for the last foundations and columns asked about: they are a
        function of those piles alone, so piles equal to the kept ones
        (the same tuples, after a draw, an undo or a redo) give the kept
        answer, and nothing else can.  What is kept is the position asked
        about, whose piles are already alive in the game's history, not a
        key built from it: a new key per search kept more young objects
        alive for the garbage collector to walk (``bench/action_path.py``'s
        random play).
        The pair is replaced whole, so a search on another thread never
        reads half of one."""
        kept = self._board
        if kept is not None:
            seen = kept[0]
            if seen is pos or pos.piles[2:] == seen.piles[2:] and pos.down[6:] == seen.down[6:]:
                return kept[1]
        answer = self._search_board(pos)
        self._board = (pos, answer)
        return answer

    def _search_board(self, pos: Position) -> Board:
        piles, down = pos.piles, pos.down
        moves: list[Move] = []
        heights = [len(piles[f]) for f in FOUNDATIONS]
        wanted, empty = self._targets(pos)
        for src in TABLEAU:
            cards = piles[src]
            size = len(cards)
            first_up = down[src]
            if first_up >= size:
                continue
            from_src = MOVES[src]
            top = cards[-1]
            if RANK[top] == heights[SUIT[top]] + 1:
                moves.append(from_src[FOUNDATIONS[SUIT[top]]][1])
            index = size - 1
            while True:
                card = cards[index]
                targets = wanted.get(FITS_KEY[card])
                if targets:
                    count = size - index
                    for dst in targets:
                        if dst != src:
                            moves.append(from_src[dst][count])
                if RANK[card] == 13 and empty:
                    count = size - index
                    moves.extend(from_src[dst][count] for dst in empty)
                if index == first_up:
                    break
                if FITS_KEY[card] != ACCEPTS_KEY[cards[index - 1]]:
                    break
                index -= 1
        for suit, f in enumerate(FOUNDATIONS):
            if heights[suit]:
                card = piles[f][-1]
                from_foundation = MOVES[f]
                for dst in wanted.get(FITS_KEY[card], ()):
                    moves.append(from_foundation[dst][1])
                if RANK[card] == 13:
                    moves.extend(from_foundation[dst][1] for dst in empty)
        return wanted, empty, moves, {}

    def _apply(self, pos: Position, move: Move) -> Position:
        piles = list(pos.piles)
        down = list(pos.down)
        if move.src == "draw":
            stock = piles[STOCK]
            if stock:
                taken = stock[-self._draw_count :]
                piles[STOCK] = stock[: len(stock) - len(taken)]
                piles[WASTE] = piles[WASTE] + taken[::-1]
            else:
                piles[STOCK] = piles[WASTE][::-1]
                piles[WASTE] = ()
            down[STOCK] = len(piles[STOCK])
            return Position(tuple(piles), tuple(down))
        src = self._index[move.src]
        dst = self._index[move.dst]
        cards = piles[src]
        moving = cards[len(cards) - move.count :]
        remaining = cards[: len(cards) - move.count]
        piles[src] = remaining
        piles[dst] = piles[dst] + moving
        if remaining and down[src] >= len(remaining) and src in TABLEAU:
            down[src] = len(remaining) - 1
        return Position(tuple(piles), tuple(down))

    def _score_delta(self, before: Position, move: Move, after: Position) -> int:
        if not move.dst:
            return 0
        src = self._index[move.src]
        dst = self._index[move.dst]
        to_foundation = dst in FOUNDATIONS
        from_foundation = src in FOUNDATIONS
        if self._vegas:
            return 5 * (to_foundation - from_foundation)
        delta = 10 * to_foundation - 20 * from_foundation
        if src == WASTE and dst in TABLEAU:
            delta += 5
        if src in TABLEAU and after.down[src] < before.down[src]:
            delta += 5
        return delta

    def _refusal(self, pos: Position, move: Move) -> IllegalMove:
        if move.src == "draw":
            return self.illegal("stock_empty", "the stock and the waste are both empty")
        src, dst = self._index[move.src], self._index[move.dst]
        cards = pos.piles[src]
        if src == STOCK:
            return self.illegal("stock_not_playable", "tap the stock to draw; its cards cannot be moved directly")
        if dst in (STOCK, WASTE):
            return self.illegal("bad_destination", "cards cannot be placed on the stock or the waste")
        if src == dst:
            return self.illegal("same_pile", "a card must move to another pile")
        if not cards:
            return self.illegal("empty_source", f"{move.src} is empty")
        if move.count > 1 and src not in TABLEAU:
            return self.illegal("single_card_only", "only one card at a time can leave the waste or a foundation")
        if move.count > len(cards) - pos.down[src]:
            return self.illegal("face_down", "face-down cards cannot be moved")
        moving = cards[len(cards) - move.count :]
        for below, above in zip(moving, moving[1:]):
            if RANK[below] != RANK[above] + 1 or RED[below] == RED[above]:
                return self.illegal("not_a_sequence", "only a run descending in alternating colours moves together")
        card = moving[0]
        if dst in FOUNDATIONS:
            if move.count > 1:
                return self.illegal("single_card_only", "foundations take one card at a time")
            if FOUNDATIONS.index(dst) != SUIT[card]:
                return self.illegal("wrong_suit", f"{describe(card)} belongs on its own suit's foundation")
            return self.illegal("foundation_order", f"foundations build up by suit from Ace to King; {describe(card)} does not fit")
        target = pos.piles[dst]
        if not target:
            return self.illegal("empty_column_needs_king", "only a King (or a run starting with a King) can fill an empty column")
        top = target[-1]
        if RANK[top] != RANK[card] + 1:
            return self.illegal("not_descending", f"{describe(card)} must go on a card one rank higher")
        return self.illegal("not_alternating", f"{describe(card)} must go on a card of the other colour")

    # ------------------------------------------------------------- status

    def _won(self, pos: Position) -> bool:
        piles = pos.piles
        return len(piles[2]) == 13 and len(piles[3]) == 13 and len(piles[4]) == 13 and len(piles[5]) == 13

    def all_open(self, pos: Position | None = None) -> bool:
        """The stock and the waste are empty and every card is face up.  From
        here sending cards home always wins: each column is a run built
        down, so the lowest card left tops its column, and it is the next
        card of the lowest foundation, which auto-collect's safety rule
        always lets up; auto-collect alone therefore finishes the game."""
        pos = self.position if pos is None else pos
        return not pos.piles[STOCK] and not pos.piles[WASTE] and not any(pos.down[t] for t in TABLEAU)

    def check_finish(self, pos: Position | None = None) -> None:
        """Finish is offered once the stock and the waste are empty and every
        card is face up, where other solitaire apps finish the game in one
        tap (``docs/rules.md``, *WordLink*, Finish); the path is the
        solver's part, as in Broken Deck."""
        if not self.all_open(pos):
            raise ActionUnavailable(
                "WordLink finishes by itself once the stock and the waste are empty and every card is face up",
                code="finish_not_offered",
            )

    def finish_offered(self) -> bool:
        return self.all_open()

    def _lost(self, pos: Position) -> bool:
        """Lost once the cards the player has seen prove that a whole cycle
        of the stock brings no move but drawing and turning the waste over
        (docs/rules.md).  ``pos`` is this game's position: a face-down card
        counts only if the player saw it before it went face down
        (``_seen_down``), so two boards that look alike and were reached
        alike get the same status, whatever lies face down.  The draw is
        the last of the legal moves, so the first is another if any is."""
        legal = self._legal(pos)
        if legal and legal[0].dst:
            return False
        wanted, empty, _, verdicts = self._board_moves(pos)
        key = (pos.piles[:2], pos.down[:2], self._seen_down)
        verdict = verdicts.get(key)
        if verdict is None:
            verdict = self._cycle_is_dead(pos, wanted, empty)
            if len(verdicts) < VERDICTS_KEPT:
                verdicts[key] = verdict
        return verdict

    def _cycle_is_dead(self, pos: Position, wanted: dict[int, list[int]], empty: list[int]) -> bool:
        """``_lost``'s answer where only drawing is legal now: whether every
        card the player may see through a whole cycle of the stock fails to play."""
        piles = pos.piles
        waste = len(piles[WASTE])
        talon = piles[WASTE] + piles[STOCK][::-1]
        if not talon:
            return True
        heights = [len(piles[f]) for f in FOUNDATIONS]

        def plays(card: int) -> bool:
            rank = RANK[card]
            return rank == heights[SUIT[card]] + 1 or FITS_KEY[card] in wanted or (rank == 13 and bool(empty))

        seen = self._seen_down
        unseen_turns_up = False
        for index in self._turned_up(waste, len(talon)):
            card = talon[index]
            if index >= waste and not seen >> card & 1:
                unseen_turns_up = True
            elif plays(card):
                return False
        if not unseen_turns_up:
            return True
        return not any(
            plays(card) for cards, down in zip(piles, pos.down) for card in cards[:down] if not seen >> card & 1
        )

    def _turned_up(self, waste: int, talon: int) -> set[int]:
        """The places in the talon (the waste bottom first, then the stock
        top first: the order draws deal it in, which turning the waste
        over keeps) of the cards that top the waste, and so may play,
        while the player draws from now to the end of the stock and then
        through one whole pass: every card in draw 1, every third card and
        the last of a pass in draw 3."""
        step = self._draw_count
        return {*range(waste - 1 + step, talon, step), *range(step - 1, talon, step), talon - 1}

    # ------------------------------------------------------------- knowledge
    # What the player knows of the face-down cards: the ones they saw face
    # up before they went face down again (``_seen_down``, a bit per card).
    # Only turning the waste over, undo, redo and restart turn a card face
    # down, so only those note cards, and a move costs one comparison more.

    def _start(self, position: Position) -> None:
        """A new session has seen no face-down card."""
        super()._start(position)
        self._seen_down = 0

    def restart(self) -> None:
        """Back to the first position; the player remembers what they saw."""
        before, seen = self.position, self._seen_down
        super().restart()
        self._seen_down = seen
        self._note_turned_down(before)

    def _restore(self, snap: Snapshot) -> None:
        """Undo and redo: a drawn card goes back into the stock, a turned
        one back under its column, the waste back to the waste."""
        before = self.position
        super()._restore(snap)
        self._note_turned_down(before)

    def _advance(self, move: Move) -> None:
        """Turning the waste over hides cards the player has seen.  Every
        move passes here, so the base is called directly, not through
        ``super()``: the one test above is all a move pays for knowledge."""
        if move.src == "draw" and not self.position.piles[STOCK]:
            self._note_seen_down(self.position.piles[WASTE])
        Game._advance(self, move)

    def _note_turned_down(self, before: Position) -> None:
        """Note the cards face up in ``before`` that are face down now."""
        shown = {card for cards, down in zip(before.piles, before.down) for card in cards[down:]}
        pos = self.position
        self._note_seen_down([card for cards, down in zip(pos.piles, pos.down) for card in cards[:down] if card in shown])

    def _note_seen_down(self, cards: Iterable[int]) -> None:
        """Remember ``cards``; the cached status may change with them."""
        seen = self._seen_down
        for card in cards:
            seen |= 1 << card
        if seen != self._seen_down:
            self._seen_down = seen
            self._status_of = None

    # ------------------------------------------------------------- assists

    def _undo_budget_left(self) -> bool:
        limit = self.options["undo_limit"]
        return limit is None or self.undos < limit

    def _hint_budget_left(self) -> bool:
        limit = self.options["hint_limit"]
        return limit is None or self.hints < limit

    def score_at(self, elapsed_seconds: float) -> int | None:
        if self._vegas:
            return self.score
        return self.score - 5 * self.hints - 5 * int(elapsed_seconds // 60)

    def _auto_move(self, pos: Position) -> Move | None:
        """Auto-collect: a card goes up only when no card that could still
        need it (the two opposite-coloured cards one rank lower) is out."""
        if not self.options["auto_collect"]:
            return None
        heights = [len(pos.piles[f]) for f in FOUNDATIONS]
        for src in (WASTE, *TABLEAU):
            cards = pos.piles[src]
            if not cards or pos.down[src] >= len(cards):
                continue
            card = cards[-1]
            rank, suit = RANK[card], SUIT[card]
            if rank != heights[suit] + 1:
                continue
            opposite = [heights[s] for s in range(4) if RED[s * 16 + 1] != RED[card]]
            if rank <= 2 or min(opposite) >= rank - 1:
                return Move(self.PILES[src], FOUNDATION_NAMES[suit])
        return None

    def _destination_order(self, pos: Position, move: Move) -> int | None:
        """Tap: foundation first, then a column with cards, then an empty column."""
        src, dst = self._index[move.src], self._index[move.dst]
        if src in FOUNDATIONS:
            return None
        if dst in FOUNDATIONS:
            return 0
        return 1 if pos.piles[dst] else 2

    def _hint_order(self, pos: Position, move: Move) -> int | None:
        if not move.dst:
            return 6
        src, dst = self._index[move.src], self._index[move.dst]
        cards = pos.piles[src]
        uncovers = src in TABLEAU and len(cards) - move.count == pos.down[src] and pos.down[src] > 0
        if dst in FOUNDATIONS:
            return 0 if uncovers or src == WASTE else 1
        if uncovers:
            return 2
        if src == WASTE:
            return 3
        if src in FOUNDATIONS:
            return None
        if len(cards) == move.count:
            return None if not pos.piles[dst] else 5
        return None

    def _extra_counters(self, pos: Position) -> dict[str, int]:
        piles = pos.piles
        return {"foundation": len(piles[2]) + len(piles[3]) + len(piles[4]) + len(piles[5])}

    def search_key(self, pos: Position) -> Any:
        """The columns as a set: no rule tells one column from another, so
        a position and the one with two columns swapped lead to the same
        places.  (The solver's domain keys WordLink more finely; this key
        serves the hints' search of what is left to find.)"""
        piles, down = pos.piles, pos.down
        return piles[: TABLEAU[0]], tuple(sorted((piles[i], down[i]) for i in TABLEAU))


DESCRIPTOR = GameDescriptor(
    rules=Klondike,
    lobby=Lobby(
        blurb="Classic solitaire: build four suits from Ace to King; tap the stock to draw.",
        cards=52,
        options=(LobbyOption("scoring", "Scoring", choices=(("standard", "Standard"), ("vegas", "Vegas"))),),
    ),
    pools=(PoolVariant("klondike-draw1", {"draw": 1}, 2_000), PoolVariant("klondike-draw3", {"draw": 3}, 2_000)),
    daily=({"draw": 1}, {"draw": 3}),
    domain="engine.solver.klondike:KlondikeDomain",
)
"""Vegas shares the certificates of its draw count (scoring leaves the legal
moves alone), and has its own preset deals rather than a daily one."""
