"""A game's variant: the options that make it a different contest.

Records and daily deals are kept per (game, variant).  The variant is
derived from the engine's option declarations, so a new game needs no
edit here: options with a closed set of non-boolean choices (WordLink's
draw and scoring, Broken Deck's difficulty) define the variant; switches
and budgets (auto-collect, autoplay, undo limits) do not.
"""

from __future__ import annotations

from typing import Any

from engine import Game
from engine.options import variant_name


def variant_label(game_cls: type[Game], options: dict[str, Any]) -> str:
    """``name=value`` pairs of the variant-defining options, or ``default``:
    how records and daily boards name a variant (not the solver pools'
    variant, ``engine.solver.pools.variant_of``, which only the draw
    count decides)."""
    return variant_name(game_cls.OPTIONS, options)


def record_key(game_cls: type[Game], options: dict[str, Any]) -> str:
    """The key of a player's record for this game and variant."""
    return f"{game_cls.id}/{variant_label(game_cls, options)}"
