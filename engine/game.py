"""The game interface every solitaire implements, and the machinery they share.

A game is rules (``engine.rules.Rules``: pure functions of a ``Position``,
the underscore hooks a subclass fills in) plus a small amount of session
state around them, here: the undo and redo stacks, counters and options.
Everything public is written once so that the server, the solver, the
notation and the views stay generic over games.  What the registry knows
of a game besides its rules is its descriptor (``engine.descriptor``).

Positions are immutable (tuples of tuples of card ints), so undo is a
snapshot restore that cannot be subtly wrong, and the solver can use the
same positions as transposition-table keys.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache
from typing import Any, Callable, Iterable

from .cards import CODE
from .errors import ActionUnavailable, BadNotation, BadOption, EngineError, IllegalMove
from .moves import LOST, PLAYING, WON, Move, Position, Snapshot
from .options import Option, format_option
from .rng import deal_rng
from .rules import Rules

__all__ = ["LOST", "PLAYING", "WON", "Game", "IllegalMove", "Move", "Option", "Position", "Rules"]

# A server reads the same few move texts and writes the same few legal
# moves after every action; remembering the most recent ones spares
# parsing and formatting them each time (bad text raises, and is not kept).
_read_move = lru_cache(maxsize=1024)(Move.from_text)
_notation = lru_cache(maxsize=4096)(Move.__str__)


class Game(Rules):
    """Base class of every game: the rules (``Rules``) played, with the
    session state around them; see the module docstring."""

    def __init__(self, deal: int = 1, /, **options: Any) -> None:
        if isinstance(deal, bool) or not isinstance(deal, int) or not self.FIRST_DEAL <= deal <= self.LAST_DEAL:
            raise BadOption(
                f"deal {deal!r} is not valid for {self.title}; numbered deals run from "
                f"{self.FIRST_DEAL} to {self.LAST_DEAL}"
            )
        self.deal = deal
        self.options = self._validate_options(options)
        self._index = {name: i for i, name in enumerate(self.PILES)}
        self._options_view = dict(self.options)
        unseen = Position(((),) * len(self.PILES), (-1,) * len(self.PILES))
        self._last_view: tuple[Position, dict[str, Any]] = (unseen, {})
        self._configure()
        self._initial = self._deal(deal_rng(self.id, self._seed_for_deal(deal)))
        self._start(self._initial)

    def _lost(self, pos: Position) -> bool:
        """Lost when no legal move remains (a rules hook a game may replace;
        its default lives here, beside the cache of legal moves it reads)."""
        return not self._legal(pos)

    @property
    def assists(self) -> bool:
        """Whether hint, undo, redo and destination highlights are offered."""
        return True

    # ----------------------------------------------------------- session state

    def _start(self, position: Position) -> None:
        self.position = position
        self.moves = 0
        self.score = 0
        self.undos = 0
        self.redos = 0
        self.hints = 0
        self.last_move: Move | None = None
        self._history: deque[Snapshot] = deque(maxlen=self.HISTORY_LIMIT)
        self._future: list[Snapshot] = []
        self._status_of: tuple[Position, str] | None = None
        self._moves_of: tuple[Position, list[Move]] | None = None
        self._new_piles: list[tuple[int, ...]] = []

    def _hold_new_piles(self, before: Position) -> None:
        """Keep the piles an action made (those not in ``before``) in a list
        the game holds for its whole life, so that the garbage collector
        can untrack the position's and the next snapshot's tuples at the
        first young collection that meets them.  That collection untracks
        the tuples that survive it in the order it finds them reachable,
        and a pile reachable only through the new tuple of piles would be
        found after it, leaving that tuple tracked (and then the snapshot
        made of it) until a middle collection: with many games in play,
        most of what every middle collection walked.  Held here, the new
        piles keep their place before the tuple of piles, which is made
        after them."""
        self._new_piles[:] = [pile for pile, old in zip(self.position.piles, before.piles) if pile is not old]

    def _legal(self, pos: Position) -> list[Move]:
        """``_moves`` with a one-entry cache: status, legal_moves and play
        all ask about the same position in turn."""
        cached = self._moves_of
        if cached is not None and cached[0] is pos:
            return cached[1]
        moves = self._moves(pos)
        self._moves_of = (pos, moves)
        return moves

    def _snapshot(self) -> Snapshot:
        piles, down, aux = self.position
        return piles, down, aux, self.moves, self.score

    def _restore(self, snap: Snapshot) -> None:
        piles, down, aux, self.moves, self.score = snap
        self.position = Position(piles, down, aux)

    def _advance(self, move: Move) -> None:
        before = self.position
        after = self._apply(before, move)
        self.score += self._score_delta(before, move, after)
        self.moves += 1
        self.position = after
        self.last_move = move

    # ----------------------------------------------------------- public API

    @property
    def status(self) -> str:
        """``"playing"``, ``"won"`` or ``"lost"``, derived from the position
        and, where a rule could look past the player's view (WordLink's
        ``lost``), from the cards the player has seen: never from a card
        still unseen."""
        cached = self._status_of
        if cached is not None and cached[0] is self.position:
            return cached[1]
        pos = self.position
        result = WON if self._won(pos) else LOST if self._lost(pos) else PLAYING
        self._status_of = (pos, result)
        return result

    @property
    def counters(self) -> dict[str, int]:
        """Moves, undos, hints and what this game counts besides."""
        result = {"moves": self.moves, "undos": self.undos, "redos": self.redos, "hints": self.hints}
        score = self.score_at(0)
        if score is not None:
            result["score"] = score
        result.update(self._extra_counters(self.position))
        return result

    def legal_moves(self) -> list[Move]:
        """Every legal move now; empty once the game is won or lost."""
        if self.status != PLAYING:
            return []
        return list(self._legal(self.position))

    def parse_move(self, text: str) -> Move:
        """Read a move in this game's notation; raises ``BadNotation``.

        A destination alias (``f`` for "my foundation") resolves to the
        single pile where the move is legal, so people can type less.
        """
        move = _read_move(text)
        if not move.dst:
            if move.src not in self.ACTIONS:
                raise BadNotation(f"{text!r}: unknown action; {self.title} has {self._action_list()}")
            return move
        if not self._is_place(move.src):
            raise BadNotation(f"{text!r}: there is no pile {move.src!r} in {self.title}")
        if move.dst in self.ALIASES:
            return self._resolve_alias(move)
        if not self._is_place(move.dst):
            raise BadNotation(f"{text!r}: there is no pile {move.dst!r} in {self.title}")
        return move

    def _is_place(self, name: str) -> bool:
        """A pile, or one of ``MOVE_PLACES``: names a game's moves use that
        are not whole piles (Lara's Game's spread positions ``r1``, ``r2`` …)."""
        return name in self._index or name in self.MOVE_PLACES

    def _action_list(self) -> str:
        return ", ".join(sorted(self.ACTIONS)) or "no actions"

    def _resolve_alias(self, move: Move) -> Move:
        candidates = [Move(move.src, dst, move.count) for dst in self.ALIASES[move.dst]]
        legal = set(self._legal(self.position)) if self.status == PLAYING else set()
        for candidate in candidates:
            if candidate in legal:
                return candidate
        return candidates[0]

    def play(self, move: Move | str) -> Move:
        """Apply a move if the rules allow it; else raise and change nothing.

        Raises ``BadNotation`` for text that is not a move of this game and
        ``IllegalMove`` (with a specific ``code``) for a move the rules
        refuse.  Autoplay moves, if the game has them on, follow inside the
        same action, so one undo takes them all back.
        """
        if isinstance(move, str):
            move = self.parse_move(move)
        if self.status != PLAYING:
            raise IllegalMove(f"the game is already {self.status}", code="game_over")
        pos = self.position
        if move not in self._legal(pos):
            raise self._refusal(pos, move)
        self._history.append(self._snapshot())
        self._future.clear()
        self._advance(move)
        self._autoplay()
        self._hold_new_piles(pos)
        return move

    def _autoplay(self) -> None:
        while self.status == PLAYING:
            follow = self._auto_move(self.position)
            if follow is None:
                return
            self._advance(follow)

    def _check_assists(self, what: str) -> None:
        if not self.assists:
            raise ActionUnavailable(f"{what} is not available at this difficulty", code="assist_disabled")

    def can_undo(self) -> bool:
        return self.assists and bool(self._history) and self._undo_budget_left()

    def _undo_budget_left(self) -> bool:
        return True

    def undo(self) -> None:
        """Take back the last action; lowers moves, raises the undo count."""
        self._check_assists("Undo")
        if not self._history:
            raise ActionUnavailable("there is nothing to undo", code="nothing_to_undo")
        if not self._undo_budget_left():
            raise ActionUnavailable("no undos are left in this game", code="undo_limit")
        self._future.append(self._snapshot())
        self._restore(self._history.pop())
        self.undos += 1
        self.last_move = None

    def redo(self) -> None:
        """Play again the action the last undo took back."""
        self._check_assists("Redo")
        if not self._future:
            raise ActionUnavailable("there is nothing to redo", code="nothing_to_redo")
        self._history.append(self._snapshot())
        self._restore(self._future.pop())
        self.redos += 1
        self.last_move = None

    def restart(self) -> None:
        """Back to the first position of this deal; the counters start again."""
        self._start(self._initial)

    def suggest(self, moves: Iterable[Move] | None = None) -> Move | None:
        """A useful legal move, without counting it as a hint.

        The heuristic here orders ``moves`` by the game's ``_hint_order``;
        by default they are the legal moves that neither undo the previous
        move nor lead back to a position already reached (``leads_back``),
        so that following suggestions never goes round in circles.
        """
        if moves is None:
            last = self.last_move
            moves = [m for m in self.legal_moves() if not m.undoes(last) and not self.leads_back(m)]
        else:
            moves = list(moves)
        pos = self.position
        ranked = [(order, i) for i, m in enumerate(moves) if (order := self._hint_order(pos, m)) is not None]
        return moves[min(ranked)[1]] if ranked else None

    def leads_back(self, move: Move) -> bool:
        """Whether the legal ``move`` leads to a position this game has been
        in before (now, or anywhere in its undo history): a hint never
        suggests one, which is what makes a trail of hints lead somewhere.
        The answer never depends on a hidden card: no hidden card moves
        without being turned up, so the player, who saw those positions,
        could tell."""
        after = self.after(self.position, move)
        return after == self.position or after in self.reached()

    def reached(self) -> list[Position]:
        """The positions of this game's undo history, oldest first: the
        boards its player has seen on the way here (hints neither return to
        them nor forget the cards they showed)."""
        return [Position(piles, down, aux) for piles, down, aux, _, _ in self._history]

    def _hint_budget_left(self) -> bool:
        return True

    def check_hint(self) -> None:
        """Raise ``ActionUnavailable`` unless a hint may be given now (the
        difficulty allows assists and the hint budget is not spent)."""
        self._check_assists("Hint")
        if not self._hint_budget_left():
            raise ActionUnavailable("no hints are left in this game", code="hint_limit")

    def check_finish(self, pos: Position | None = None) -> None:
        """Raise ``ActionUnavailable`` unless automatic finishing may be
        offered in ``pos`` (default: now); whether a path exists is the
        solver's question (``engine.solver.auto_finish``).  Only games with
        torn cards finish automatically, so here it never may."""
        raise ActionUnavailable(f"{self.title} has no automatic finishing", code="finish_not_offered")

    def finish_offered(self) -> bool:
        """Whether ``check_finish`` passes now, without the refusal it
        raises: a server asks after every action, where building and
        raising the refusal took longer than the question (a game whose
        question is cheap answers it here directly)."""
        try:
            self.check_finish()
        except EngineError:
            return False
        return True

    def hint(self, find: Callable[[Game], Move | None]) -> Move | None:
        """A suggested move, counted as a hint; ``find`` is the search that
        suggests it (``engine.solver.assist.hint_for_view``: the rules do
        not import the solver, which is built on them, so whoever asks for
        a hint brings it).

        A game that charges for hints does so in ``score_at`` from the hint
        count, not by changing ``score``: undo restores ``score``, and an
        undo must not refund a hint.  A server splits this in three
        (``check_hint``, the search off its event loop, ``note_hint``).
        """
        self.check_hint()
        move = find(self)
        self.note_hint(move)
        return move

    def note_hint(self, move: Move | None) -> None:
        """Count a hint whose suggestion is already known, without searching.

        Replaying a session log calls this with the logged suggestion: the
        search behind ``hint`` may be costly, and a replay must reach the
        same counters whatever the search would say today.
        """
        if move is not None:
            self.hints += 1

    def auto_move(self, src: str, count: int = 1) -> Move | None:
        """The best legal move of the top ``count`` cards of ``src``, or None.

        This is the tap / double-click helper: the game's
        ``_destination_order`` says which destination is best.
        """
        if not self._is_place(src):
            raise BadNotation(f"there is no pile {src!r} in {self.title}")
        pos = self.position
        ranked = []
        for move in self.legal_moves():
            if move.src == src and move.count == count and move.dst:
                order = self._destination_order(pos, move)
                if order is not None:
                    ranked.append((order, move))
        return min(ranked)[1] if ranked else None

    def destinations(self) -> list[str]:
        """Legal moves as notation, for destination highlights; empty where
        the difficulty disables assists."""
        if not self.assists:
            return []
        return [_notation(m) for m in self.legal_moves()]

    def view(self) -> dict[str, Any]:
        """Exactly what the player may see, as JSON-safe data.

        Face-down cards appear only as a count per pile, so nothing here
        (nor any diff computed from views) can reveal them.  Only the piles
        that differ from the last view's position are built again (a move
        changes two piles; the others are the same tuples, shared between
        positions), and the others give back the same entries, so the
        server neither rebuilds nor re-compares every pile after every
        action; callers must not change a view.
        """
        pos = self.position
        shown, piles = self._last_view
        if shown is not pos:
            piles = dict(piles)
            now, before, downs, downs_before = pos.piles, shown.piles, pos.down, shown.down
            for index in range(len(now)):
                cards, down = now[index], downs[index]
                if cards is not before[index] or down != downs_before[index]:
                    piles[self.PILES[index]] = {"down": down, "up": [CODE[c] for c in cards[down:]]}
            self._last_view = (pos, piles)
        result: dict[str, Any] = {
            "game": self.id,
            "deal": self.deal,
            "options": self._options_view,
            "piles": piles,
        }
        result.update(self._view_extra(pos))
        return result

    def score_at(self, elapsed_seconds: float) -> int | None:
        """The score shown after ``elapsed_seconds`` of play (None if the game
        keeps no score); the engine has no clock, the server passes it in."""
        return self.score if self.HAS_SCORE else None

    def with_options(self, **changes: Any) -> Game:
        """A fresh game of the same deal with some options changed (Broken
        Deck's difficulty change restarts the same deal this way)."""
        return type(self)(self.deal, **{**self.options, **changes})

    def to_text(self) -> str:
        """The position notation of the current position (see ``engine.notation``)."""
        header = [self.id, f"deal={self.deal}"] + [f"{k}={format_option(v)}" for k, v in self.options.items()]
        pos = self.position
        state = [f"moves={self.moves}"]
        if self.HAS_SCORE:
            state.append(f"score={self.score}")
        state += [f"{name}={value}" for name, value in zip(self.AUX_FIELDS, pos.aux)]
        lines = [" ".join(header), " ".join(state)]
        for name, cards, down in zip(self.PILES, pos.piles, pos.down):
            parts = ["[" + " ".join(CODE[c] for c in cards[:down]) + "]"] if down else []
            parts += [CODE[c] for c in cards[down:]]
            lines.append(f"{name}: {' '.join(parts)}".rstrip())
        return "\n".join(lines) + "\n"

    def load_position(self, position: Position, moves: int = 0, score: int = 0) -> None:
        """Start this game from ``position`` instead of its deal.

        The position is checked (``_check_position``) so that a typo in a
        practice position or bug report fails here, not mid-game.  Restart
        returns to it.
        """
        if len(position.piles) != len(self.PILES) or len(position.down) != len(self.PILES):
            raise BadNotation(f"{self.title} has {len(self.PILES)} piles")
        if len(position.aux) != len(self.AUX_FIELDS):
            raise BadNotation(f"{self.title} keeps {len(self.AUX_FIELDS)} extra state fields")
        self._check_position(position)
        self._initial = position
        self._start(position)
        self.moves = moves
        self.score = score

    def census(self, pos: Position) -> list[int]:
        """The sorted multiset of cards in ``pos``; moves never change it
        (Broken Deck counts a torn card's two halves as that card)."""
        return sorted(c for pile in pos.piles for c in pile)

    def _check_position(self, pos: Position) -> None:
        """Raise ``BadNotation`` unless ``pos`` is one this game can be in."""
        if self.census(pos) != self.census(self._initial):
            raise BadNotation(f"the position does not hold exactly the cards of {self.title}")
        for name, cards, down in zip(self.PILES, pos.piles, pos.down):
            if not 0 <= down <= len(cards):
                raise BadNotation(f"pile {name!r} has {down} face-down cards but only {len(cards)} cards")
