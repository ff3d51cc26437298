"""Making and checking certificates: a deal counts as verified only once its
winning moves have been replayed through the checked engine (``Game.play``,
the path a player's moves take), never on the search's word alone."""

from __future__ import annotations

from typing import Any, Iterator

from ..game import WON, Game
from ..games import GAMES
from .driver import solve
from .pools import REMAP_STRIDE, Certificate, remap_seed_base
from .search import WON as SOLVED

BUILD_BUDGET = 30_000
"""Nodes per attempt when building pools (a win or give up: a deal the
solver cannot win within this budget is left out, never called unwinnable)."""


def seeded_game(game_id: str, deal: int, seed: int, options: dict[str, Any]) -> Game:
    """A game of ``deal`` whose layout comes from shuffle ``seed``.

    A game whose deal table already maps ``deal`` to ``seed`` gives it
    directly; otherwise the layout is dealt from the seed and loaded as
    the starting position (restart returns to it).
    """
    game = GAMES[game_id](deal, **options)
    if seed != game.seed_for_deal(deal):
        game.load_position(game.layout_of_seed(seed))
    return game


def replays(game_id: str, options: dict[str, Any], certificate: Certificate) -> bool:
    """Whether the certificate's moves, played one by one through the checked
    entry point, win its deal.  An illegal move raises (a broken certificate
    is a bug to see, not a deal to skip)."""
    game = seeded_game(game_id, certificate.deal, certificate.seed, options)
    for move in certificate.moves:
        game.play(move)
    return game.status == WON


def certify(game_id: str, options: dict[str, Any], deal: int, seed: int, budget: int = BUILD_BUDGET) -> Certificate | None:
    """A replayed certificate for the layout of ``seed``, or None if the
    solver found no win within ``budget``."""
    game = seeded_game(game_id, deal, seed, options)
    found = solve(game, budget=budget, prove=False)
    if found.result != SOLVED:
        return None
    certificate = Certificate(deal, seed, tuple(str(move) for move in found.moves))
    if not replays(game_id, options, certificate):
        raise RuntimeError(f"{game_id} deal {deal} seed {seed}: the solver's line does not win through the checked engine")
    return certificate


def candidate_seeds(deal: int, remap: bool) -> Iterator[int]:
    """The seeds tried for ``deal``, in order: its own number, then (for a
    game whose deal numbers must all be verified) ``remap_seed_base(deal)``
    and up, at most ``REMAP_STRIDE`` of them."""
    yield deal
    if remap:
        base = remap_seed_base(deal)
        yield from range(base, base + REMAP_STRIDE)
