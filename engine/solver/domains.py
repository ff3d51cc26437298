"""Which search domain each game uses: the one its descriptor names
(``GameDescriptor.domain``, ``"module:Class"``), or the generic ``Domain``
(its own moves in its hint order, nothing pruned) if it names none.

The name is imported here, at a search's first need, because a game's
module cannot import the solver that is built on it."""

from __future__ import annotations

import importlib
from functools import cache

from ..game import Game
from ..games import DESCRIPTORS
from .search import Domain


@cache
def _named_domain(name: str) -> type[Domain]:
    module_name, _, class_name = name.partition(":")
    found = getattr(importlib.import_module(module_name), class_name, None)
    if not (isinstance(found, type) and issubclass(found, Domain)):
        raise LookupError(f"{name!r} does not name a solver domain (a subclass of engine.solver.search.Domain)")
    return found


def domain_class(game: Game) -> type[Domain]:
    descriptor = DESCRIPTORS.get(game.id)
    if descriptor is None or descriptor.domain is None:
        return Domain
    return _named_domain(descriptor.domain)
