"""Which search domain each game uses; a game without one gets the generic
``Domain`` (its own moves in its hint order, nothing pruned)."""

from __future__ import annotations

from ..game import Game
from .broken_deck import BrokenDeckDomain
from .chequers import ChequersDomain
from .klondike import KlondikeDomain
from .laras_game import LarasGameDomain
from .search import Domain

DOMAINS: dict[str, type[Domain]] = {
    "broken-deck": BrokenDeckDomain,
    "chequers": ChequersDomain,
    "klondike": KlondikeDomain,
    "laras-game": LarasGameDomain,
}


def domain_class(game: Game) -> type[Domain]:
    return DOMAINS.get(game.id, Domain)
