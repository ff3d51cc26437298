"""The deal generator is specified bit for bit (docs/notation.md, "Deals");
these vectors pin it so a deal number means the same layout forever."""

from __future__ import annotations

import pytest

from engine.cards import CODE, full_deck
from engine.rng import SplitMix64, deal_rng, fnv1a64, shuffled


def test_splitmix64_matches_the_published_reference_outputs() -> None:
    rng = SplitMix64(0)
    assert [rng.next_u64() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_fnv1a64_of_a_game_id() -> None:
    assert fnv1a64("") == 0xCBF29CE484222325
    assert fnv1a64("klondike") == 0x90338F14C91FE070


def test_bounded_draws_and_the_shuffle_are_pinned() -> None:
    rng = deal_rng("klondike", 1)
    assert [rng.below(52) for _ in range(5)] == [13, 32, 29, 33, 33]
    order = shuffled(full_deck(), deal_rng("klondike", 1))
    assert " ".join(CODE[c] for c in order[:10]) == "2C 4C 2D 8C 3H JC 8H 7H JH 7S"


def test_below_rejects_a_non_positive_bound() -> None:
    with pytest.raises(ValueError):
        SplitMix64(1).below(0)


def test_below_is_unbiased_by_rejection_near_the_top_of_the_range() -> None:
    """A bound that does not divide 2**64 must still give every value: the
    rejection limit makes the last partial block of outputs unusable."""
    rng = SplitMix64(42)
    bound = (1 << 63) + 1
    assert all(0 <= rng.below(bound) < bound for _ in range(1000))
    assert sorted({SplitMix64(s).below(3) for s in range(50)}) == [0, 1, 2]
