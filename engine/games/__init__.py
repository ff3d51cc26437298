"""The registry: game id → game class.  A fifth game is one module here
and one line below."""

from __future__ import annotations

from ..game import Game
from .broken_deck import BrokenDeck
from .chequers import Chequers
from .klondike import Klondike
from .laras_game import LarasGame

GAMES: dict[str, type[Game]] = {
    BrokenDeck.id: BrokenDeck,
    Klondike.id: Klondike,
    LarasGame.id: LarasGame,
    Chequers.id: Chequers,
}
