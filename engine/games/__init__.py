"""The registry: game id → descriptor (``engine.descriptor``).  A fifth
game is one module here, declaring its ``DESCRIPTOR``, and one line below;
every other table (``GAMES``, the pools, the daily variants, the solver
domains, the lobby's catalogue) is derived from ``DESCRIPTORS``.

``registered`` adds a descriptor for the length of a ``with`` block: the
tests play a toy game through the whole server that way, which is the
proof that nothing outside the registry needs to know a game."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from ..descriptor import GameDescriptor
from ..errors import UnknownGame
from ..game import Game
from . import broken_deck, chequers, klondike, laras_game

DESCRIPTORS: dict[str, GameDescriptor] = {
    descriptor.id: descriptor
    for descriptor in (klondike.DESCRIPTOR, broken_deck.DESCRIPTOR, laras_game.DESCRIPTOR, chequers.DESCRIPTOR)
}
"""In the order a lobby lists the games (the ``catalogue`` message keeps it)."""

GAMES: dict[str, type[Game]] = {game_id: descriptor.rules for game_id, descriptor in DESCRIPTORS.items()}
"""Game id → rules, the view of the registry most callers need."""


def descriptor_of(game_id: str) -> GameDescriptor:
    """The descriptor registered under ``game_id``; raises ``UnknownGame``."""
    try:
        return DESCRIPTORS[game_id]
    except KeyError:
        raise UnknownGame(f"unknown game {game_id!r}; games are: {', '.join(DESCRIPTORS)}") from None


@contextmanager
def registered(descriptor: GameDescriptor) -> Iterator[GameDescriptor]:
    """Register ``descriptor`` until the block ends (the two tables are
    changed in place, so every module that imported them sees it)."""
    if descriptor.id in DESCRIPTORS:
        raise ValueError(f"a game {descriptor.id!r} is already registered")
    DESCRIPTORS[descriptor.id] = descriptor
    GAMES[descriptor.id] = descriptor.rules
    try:
        yield descriptor
    finally:
        del DESCRIPTORS[descriptor.id]
        del GAMES[descriptor.id]
