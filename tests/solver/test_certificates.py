"""Every shipped certificate wins its deal through the checked engine.

A deal is "verified" only because of this test: the pool files in
``engine/data`` are the list of deals the server may call winnable, and
each line's moves are played one by one with ``Game.play`` (the path a
player's moves take) and must end in a win.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import engine
from engine.solver.certify import replays, seeded_game
from engine.solver.pools import TARGETS, VARIANTS, remap_seed_base, vegas_presets
from server.deals.pools import load_pool, verified_deals

DATA = Path(engine.__file__).parent / "data"
SHIPPED = sorted(VARIANTS)
"""Every variant must ship its pool: taken from ``VARIANTS`` rather than from
the files present, so a deleted pool file fails the size test below instead
of quietly dropping out of these tests."""


def test_every_pool_file_is_a_known_variant() -> None:
    files = {path.stem for path in DATA.glob("*.txt")}
    assert files <= set(VARIANTS)


@pytest.mark.parametrize("variant", SHIPPED)
def test_every_certificate_replays_to_a_win(variant: str) -> None:
    """Randomly selected from guaranteed winnable deals"""
    pool = load_pool(variant)
    game_id, options = VARIANTS[variant]
    assert (pool.game_id, pool.options) == (game_id, options)
    losing = [deal for deal, certificate in pool.certificates.items() if not replays(game_id, options, certificate)]
    assert not losing


@pytest.mark.parametrize("variant", SHIPPED)
def test_a_pool_holds_as_many_verified_deals_as_the_issue_asks(variant: str) -> None:
    assert len(load_pool(variant).certificates) >= TARGETS[variant]


@pytest.mark.parametrize("variant", SHIPPED)
def test_the_server_draws_exactly_the_certified_deals(variant: str) -> None:
    """``verified_deals`` reads only the deal numbers; they are the parsed pool's."""
    pool = load_pool(variant)
    game_id, options = VARIANTS[variant]
    assert verified_deals(game_id, options) == pool.deals()
    assert verified_deals(game_id, options, "vegas") == vegas_presets(pool)


def test_every_numbered_broken_deck_deal_has_a_verified_layout() -> None:
    """New Deal chooses another verified layout."""
    pool = load_pool("broken-deck")
    assert sorted(pool.certificates) == list(range(1, 1001))
    for deal, certificate in pool.certificates.items():
        assert certificate.seed == deal or remap_seed_base(deal) <= certificate.seed < remap_seed_base(deal + 1)


def test_a_numbered_broken_deck_deal_is_dealt_from_its_verified_seed() -> None:
    pool = load_pool("broken-deck")
    for deal, certificate in pool.certificates.items():
        dealt = engine.new_game("broken-deck", deal)
        assert dealt.position == seeded_game("broken-deck", deal, certificate.seed, {}).position
