"""The verified deal pools, read from the package data the solver built.

The engine does no I/O, so the certificate files (``engine/data/*.txt``,
format in ``engine.solver.pools``) are read here, once per process, and
handed to the engine's pure parser.  ``verified_deals`` is what
``server.deals.pool_for`` draws Winning Deal, Daily Challenge and Vegas
deals from.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from engine.solver.pools import VARIANTS, Pool, parse_pool, variant_of, vegas_presets


def pool_path(variant: str) -> Path:
    """Where a variant's certificate file lives in the source tree (the
    builder writes there; an installed package reads it with ``load_pool``)."""
    return Path(str(resources.files("engine") / "data" / f"{variant}.txt"))


@lru_cache(maxsize=None)
def load_pool(variant: str) -> Pool:
    """The parsed pool of ``variant``; an empty pool if the file is absent."""
    if variant not in VARIANTS:
        raise KeyError(f"no deal pool {variant!r}; pools are: {', '.join(VARIANTS)}")
    source = resources.files("engine") / "data" / f"{variant}.txt"
    if not source.is_file():
        game_id, options = VARIANTS[variant]
        return Pool(game_id, dict(options), 1, {})
    return parse_pool(source.read_text(encoding="utf-8"))


def verified_deals(game_id: str, options: dict[str, Any], kind: str = "winnable") -> list[int]:
    """Deal numbers with a certificate for this game and options, in
    order; ``kind="vegas"`` gives WordLink's Vegas presets."""
    variant = variant_of(game_id, options)
    if variant not in VARIANTS:
        return []
    pool = load_pool(variant)
    return vegas_presets(pool) if kind == "vegas" else pool.deals()
