"""A game's rules: what a game is before anyone plays it.

``Rules`` holds a game's facts (piles, options, deal range), the hooks a
game fills in (``_deal``, ``_moves``, ``_apply``, ``_refusal``, ``_won`` …)
and the public, stateless face the solver reads them through.  The session
state around them (position, undo and redo, counters) is ``engine.game``'s
``Game``, which every game subclasses; keeping the two apart keeps each
readable on its own, and keeps what the search may call (pure functions of
a ``Position``) in one place.
"""

from __future__ import annotations

from typing import Any, ClassVar, Iterable, Mapping

from .cards import parse_card
from .errors import BadNotation, BadOption, IllegalMove
from .moves import Move, Position
from .options import Option
from .rng import SplitMix64, deal_rng


class Rules:
    """The rules half of a game; see the module docstring."""

    id: ClassVar[str]
    title: ClassVar[str]
    OPTIONS: ClassVar[tuple[Option, ...]] = ()
    PILES: ClassVar[tuple[str, ...]]
    ALIASES: ClassVar[dict[str, tuple[str, ...]]] = {}
    ACTIONS: ClassVar[frozenset[str]] = frozenset()
    MOVE_PLACES: ClassVar[frozenset[str]] = frozenset()
    AUX_FIELDS: ClassVar[tuple[str, ...]] = ()
    FIRST_DEAL: ClassVar[int] = 1
    LAST_DEAL: ClassVar[int] = (1 << 63) - 1
    HISTORY_LIMIT: ClassVar[int | None] = None
    HAS_SCORE: ClassVar[bool] = False
    _index: dict[str, int]
    """Pile name → index in a position (set per game by ``Game``)."""

    # ----------------------------------------------------------- rules hooks

    def _configure(self) -> None:
        """Derive per-instance settings from ``self.options`` (hook)."""

    def _seed_for_deal(self, deal: int) -> int:
        """The shuffle seed behind a deal number (a table can remap it)."""
        return deal

    def _deal(self, rng: SplitMix64) -> Position:
        raise NotImplementedError

    def layout_of_seed(self, seed: int) -> Position:
        """The layout the public generator deals from a raw 64-bit shuffle
        seed, with no deal number in between.  Ranked deals come from secret
        seeds (``server.deals.proofs``): numbered deals are few enough to
        tabulate, so a numbered ranked deal is known from its first board."""
        return self._deal(deal_rng(self.id, seed))

    def _moves(self, pos: Position) -> list[Move]:
        """Every legal move in ``pos`` (the position is not over)."""
        raise NotImplementedError

    def _apply(self, pos: Position, move: Move) -> Position:
        """The position after a move already known to be legal."""
        raise NotImplementedError

    def _refusal(self, pos: Position, move: Move) -> IllegalMove:
        """Why ``move`` is not legal in ``pos``, as the player should hear it."""
        raise NotImplementedError

    def _won(self, pos: Position) -> bool:
        raise NotImplementedError

    def _score_delta(self, before: Position, move: Move, after: Position) -> int:
        return 0

    def _auto_move(self, pos: Position) -> Move | None:
        """A move the game makes by itself after each action (autoplay); none by default."""
        return None

    def _destination_order(self, pos: Position, move: Move) -> int | None:
        """Sort key for ``auto_move`` candidates: lower is preferred, None
        means the helper never chooses this move."""
        return 0

    def _hint_order(self, pos: Position, move: Move) -> int | None:
        """Sort key for the heuristic hint: lower is more useful, None
        means pointless (never suggested)."""
        return 0

    def _extra_counters(self, pos: Position) -> dict[str, int]:
        return {}

    def _view_extra(self, pos: Position) -> dict[str, Any]:
        return {}

    # ----------------------------------------------------- solver interface

    def moves_from(self, pos: Position) -> list[Move]:
        """Legal moves of any position (for search; no session state)."""
        return self._moves(pos)

    def successor(self, pos: Position, move: Move) -> Position:
        """The position after a legal move (unchecked, for search)."""
        return self._apply(pos, move)

    def is_won(self, pos: Position) -> bool:
        return self._won(pos)

    def search_key(self, pos: Position) -> Any:
        """A hashable key equal for positions the search may treat as one."""
        return pos

    def after(self, pos: Position, move: Move) -> Position:
        """The position a player sees after playing the legal ``move``: its
        successor and then the moves the game makes by itself (autoplay),
        as ``Game.play`` makes them."""
        after = self._apply(pos, move)
        while not self._won(after) and (follow := self._auto_move(after)) is not None:
            after = self._apply(after, follow)
        return after

    def on_foundations(self, pos: Position) -> int:
        """How many cards lie on the foundations of ``pos`` (every game
        counts them as its ``foundation`` counter)."""
        return self._extra_counters(pos).get("foundation", 0)

    def hint_order(self, pos: Position, move: Move) -> int | None:
        """How promising the legal ``move`` looks in ``pos`` (lower first;
        None: not worth suggesting): the game's own heuristic, which hints
        and the solver's move ordering share."""
        return self._hint_order(pos, move)

    def seed_for_deal(self, deal: int) -> int:
        """The shuffle seed numbered deal ``deal`` is dealt from (what a
        certificate of a numbered deal names)."""
        return self._seed_for_deal(deal)

    # ----------------------------------------------------------- options

    @classmethod
    def _validate_options(cls, given: dict[str, Any]) -> dict[str, Any]:
        known = {opt.name: opt for opt in cls.OPTIONS}
        unknown = sorted(set(given) - set(known))
        if unknown:
            valid = ", ".join(known) or "none"
            raise BadOption(f"{cls.title} has no option {unknown[0]!r}; its options are: {valid}")
        return {name: opt.validate(given.get(name, opt.default)) for name, opt in known.items()}

    # ----------------------------------------------------------- helpers

    def pile(self, name: str) -> int:
        """Index of a pile by name."""
        return self._index[name]

    def cards_of(self, pos: Position, name: str) -> tuple[int, ...]:
        return pos.piles[self._index[name]]

    @staticmethod
    def illegal(code: str, message: str) -> IllegalMove:
        return IllegalMove(message, code=code)

    def position_from_piles(self, piles: Mapping[str, Iterable[str]], down: Mapping[str, int]) -> Position:
        """Build a position from card codes by pile (for notation and tests)."""
        missing = [name for name in piles if name not in self._index]
        if missing:
            raise BadNotation(f"there is no pile {missing[0]!r} in {self.title}")
        cards = tuple(tuple(parse_card(code) for code in piles.get(name, ())) for name in self.PILES)
        return Position(cards, tuple(down.get(name, 0) for name in self.PILES))

