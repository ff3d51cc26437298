"""Which deal number a casual game gets.

This module is the one place that turns ``"random"``, ``"winnable"``
(and WordLink's Vegas mode, "a preset Vegas deal with Vegas scoring")
into a number.  ``winnable`` and Vegas draw from the verified pools
(``server.deals.pools``): deals whose winning move list ships in
``engine/data`` and is replayed by the tests.  A game and options with no
pool get no such deal (``bad_option``) rather than an unproven one.
Vegas presets are a documented subset of WordLink's pool
(``engine.solver.pools.vegas_presets``).

The daily deal is no number: it is a secret seed (``server.deals.proofs``,
fixed with its commitment by ``server.deals.book``), so ``choose_deal``
refuses ``"daily"`` and no path can skip the commitment.  Random numbers
and draws from a pool come from the process's ``Entropy``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from engine import Game
from protocol import ErrorCode
from server.deals.pools import verified_deals
from server.model.refusal import Refusal
from server.runtime.entropy import Entropy


@dataclass(frozen=True)
class DealChoice:
    number: int
    kind: str
    verified: bool


def pool_for(game_cls: type[Game], options: dict[str, Any], kind: str) -> tuple[Sequence[int], bool]:
    """The deals to draw ``kind`` ("winnable", "vegas") from for a
    game with these options, and whether they are verified (always, now:
    only certified deals are in a pool)."""
    return verified_deals(game_cls.id, options, "vegas" if kind == "vegas" else "winnable"), True


def _wants_vegas(options: dict[str, Any]) -> bool:
    return options.get("scoring") == "vegas"


def random_deal(game_cls: type[Game], entropy: Entropy) -> int:
    return game_cls.FIRST_DEAL + entropy.randbelow(game_cls.LAST_DEAL - game_cls.FIRST_DEAL + 1)


def choose_deal(game_cls: type[Game], requested: int | str, options: dict[str, Any], entropy: Entropy) -> DealChoice:
    """The deal for a ``new_game`` request other than ``"daily"`` (a
    number is taken as given; the engine checks its range)."""
    if isinstance(requested, int):
        pool, verified = pool_for(game_cls, options, "winnable")
        return DealChoice(requested, "number", verified and requested in pool)
    if requested == "daily":
        raise ValueError("the daily deal comes from server.deals.daily, with its commitment")
    if requested == "random" and not _wants_vegas(options):
        return DealChoice(random_deal(game_cls, entropy), "random", False)
    kind = "vegas" if requested == "random" else requested
    pool, verified = pool_for(game_cls, options, kind)
    if not pool:
        raise Refusal(ErrorCode.BAD_OPTION, f"{game_cls.title} has no {kind} deals for these options yet")
    return DealChoice(entropy.choice(pool), kind, verified)
