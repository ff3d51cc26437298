"""The registry: game id → game class.  A fifth game is one module here
and one line below."""

from __future__ import annotations

from ..game import Game
from .klondike import Klondike

GAMES: dict[str, type[Game]] = {
    Klondike.id: Klondike,
}
