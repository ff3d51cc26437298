"""The verified deal pools, read from the package data the solver built.

The engine does no I/O, so the certificate files (``engine/data/*.txt``,
format in ``engine.solver.pools``) are read here and handed to the engine's
pure parsers.  ``verified_deals`` is what ``server.deals.numbered.pool_for`` draws
Winning Deal, Daily Challenge and Vegas deals from; it needs only the deal
numbers, so it keeps those (read once per process, on the event loop, by
``choose_deal``) and never expands the move lists.  ``load_pool`` parses
the whole file, moves included, for the tests, the benches and the builder.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from engine.solver.pools import VARIANTS, VEGAS_PRESETS, Pool, deal_numbers, parse_pool, variant_of


def pool_path(variant: str) -> Path:
    """Where a variant's certificate file lives in the source tree (the
    builder writes there; an installed package reads it with ``load_pool``)."""
    return Path(str(resources.files("engine") / "data" / f"{variant}.txt"))


def _source(variant: str) -> Traversable | None:
    if variant not in VARIANTS:
        raise KeyError(f"no deal pool {variant!r}; pools are: {', '.join(VARIANTS)}")
    source = resources.files("engine") / "data" / f"{variant}.txt"
    return source if source.is_file() else None


@lru_cache(maxsize=None)
def load_pool(variant: str) -> Pool:
    """The parsed pool of ``variant``, every certificate's moves included;
    an empty pool if the file is absent."""
    source = _source(variant)
    if source is None:
        game_id, options = VARIANTS[variant]
        return Pool(game_id, dict(options), 1, {})
    return parse_pool(source.read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _deals(variant: str) -> tuple[int, ...]:
    """The deal numbers of ``variant``'s pool, sorted (``load_pool(variant).deals()``
    without the moves); empty if the file is absent."""
    source = _source(variant)
    return () if source is None else tuple(deal_numbers(source.read_text(encoding="utf-8")))


def verified_deals(game_id: str, options: dict[str, Any], kind: str = "winnable") -> list[int]:
    """Deal numbers with a certificate for this game and options, in
    order; ``kind="vegas"`` gives WordLink's Vegas presets (the first
    ``VEGAS_PRESETS``, as ``engine.solver.pools.vegas_presets``)."""
    variant = variant_of(game_id, options)
    if variant not in VARIANTS:
        return []
    deals = _deals(variant)
    return list(deals[:VEGAS_PRESETS] if kind == "vegas" else deals)
