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


def variant_label(game_cls: type[Game], options: dict[str, Any]) -> str:
    """``name=value`` pairs of the variant-defining options, or ``default``:
    how records and daily boards name a variant (not the solver pools'
    variant, ``engine.solver.pools.variant_of``, which only the draw
    count decides)."""
    parts = [
        f"{option.name}={options.get(option.name, option.default)}"
        for option in game_cls.OPTIONS
        if option.choices is not None and not all(isinstance(choice, bool) for choice in option.choices)
    ]
    return ",".join(parts) or "default"


def record_key(game_cls: type[Game], options: dict[str, Any]) -> str:
    """The key of a player's record for this game and variant."""
    return f"{game_cls.id}/{variant_label(game_cls, options)}"
