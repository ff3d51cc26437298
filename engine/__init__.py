"""Solitaire Arena's rules engine: pure, deterministic, free of I/O.

Entry points: ``new_game``, ``seeded_game`` (a raw shuffle seed) and
``from_text`` to get a ``Game``; ``GAMES`` to list what exists; ``diff`` /
``apply_diff`` to move views over a wire.
"""

from __future__ import annotations

from typing import Any

from . import notation
from .errors import ActionUnavailable, BadNotation, BadOption, EngineError, IllegalMove, UnknownGame
from .game import LOST, PLAYING, WON, Game, Move, Option, Position
from .games import GAMES
from .views import apply_diff, diff

__all__ = [
    "GAMES",
    "LOST",
    "PLAYING",
    "WON",
    "ActionUnavailable",
    "BadNotation",
    "BadOption",
    "EngineError",
    "Game",
    "IllegalMove",
    "Move",
    "Option",
    "Position",
    "UnknownGame",
    "apply_diff",
    "diff",
    "from_text",
    "game_class",
    "game_options",
    "new_game",
    "seeded_game",
]


def game_class(game_id: str) -> type[Game]:
    """The class registered under ``game_id``; raises ``UnknownGame``."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise UnknownGame(f"unknown game {game_id!r}; games are: {', '.join(GAMES)}") from None


def game_options(game_id: str, /, **options: Any) -> dict[str, Any]:
    """The options a game of ``game_id`` is played with when ``options`` are
    asked for (each checked, the defaults filled in), without dealing one:
    a board or leaderboard request names its variant by them, and dealing
    cost it 44 to 146 µs (by game) where checking the options costs 1 or 2.
    Raises ``UnknownGame`` or ``BadOption``."""
    return game_class(game_id)._validate_options(options)


def new_game(game_id: str, deal: int | None = None, /, **options: Any) -> Game:
    """A new game of ``deal`` (default 1); raises ``UnknownGame`` or ``BadOption``.
    The parameters are positional only, so that options a client chose,
    passed as ``**options`` beside a positional deal, can never clash with
    them: ``deal`` or ``game_id`` among them is an unknown option.  Only
    when no deal is given positionally does ``deal=`` name the deal."""
    if deal is None:
        deal = options.pop("deal", 1)
    return game_class(game_id)(deal, **options)


def seeded_game(game_id: str, seed: int, /, **options: Any) -> Game:
    """A game dealt from a raw 64-bit shuffle ``seed`` (``Game.layout_of_seed``):
    anyone holding the seed rebuilds the layout bit for bit, as with a deal
    number, but the seeds are too many to tabulate.  Restart returns to it;
    its ``deal`` number means nothing and is never shown."""
    cls = game_class(game_id)
    game = cls(cls.FIRST_DEAL, **options)
    game.load_position(game.layout_of_seed(seed))
    return game


def from_text(game_id: str, text: str) -> Game:
    """A game at the position written in ``text`` (see ``engine.notation``)."""
    game_class(game_id)
    written = text.strip().split(maxsplit=1)[0] if text.strip() else ""
    if written != game_id:
        raise BadNotation(f"the position is of {written!r}, not {game_id!r}")
    return notation.from_text(GAMES, text)
