"""The certificate file format, both ways, and the pool lookups."""

from __future__ import annotations

import pytest

from engine.solver.pools import (
    Certificate,
    Pool,
    compress,
    deal_seeds,
    expand,
    format_pool,
    parse_pool,
    remap_seed_base,
    variant_of,
    vegas_presets,
)
from server.deals.pools import load_pool, verified_deals


def sample_pool() -> Pool:
    return Pool(
        "klondike",
        {"draw": 3},
        9,
        {
            2: Certificate(2, 2, ("draw", "draw", "w-fs", "t2-fs", "t5-t2", "t5-t2")),
            7: Certificate(7, 7, ("t1-t2x3", "draw")),
        },
    )


def test_a_pool_round_trips_through_its_text() -> None:
    pool = sample_pool()
    assert parse_pool(format_pool(pool, "two deals")) == pool


def test_repeated_moves_are_written_once_with_a_count() -> None:
    moves = ("draw", "draw", "draw", "w-t1", "t2-t3x2", "t2-t3x2")
    assert compress(moves) == "draw*3 w-t1 t2-t3x2*2"
    assert expand(compress(moves)) == moves


def test_a_line_of_the_file_is_deal_seed_and_moves() -> None:
    text = format_pool(sample_pool())
    assert "7\t7\tt1-t2x3 draw" in text.splitlines()
    assert "game=klondike draw=3 next=9" in text.splitlines()


@pytest.mark.parametrize(
    "text",
    ["2\t2\tdraw\n", "game=klondike\n2\t2\n", "game=klondike\nx\t2\tdraw\n", "game=klondike\n2\t2\tdraw*0\n"],
)
def test_a_damaged_file_is_refused_with_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        parse_pool(text)


def test_only_remapped_deals_appear_in_the_seed_table() -> None:
    pool = Pool("broken-deck", {}, 3, {1: Certificate(1, 1, ()), 2: Certificate(2, remap_seed_base(2) + 4, ())})
    assert deal_seeds(pool) == {2: 1_002_004}


def test_the_variant_of_wordlink_is_its_draw_count_and_vegas_presets_are_the_first_deals() -> None:
    assert variant_of("klondike", {"draw": 3, "scoring": "vegas"}) == "klondike-draw3"
    assert variant_of("klondike", {}) == "klondike-draw1"
    assert variant_of("chequers", {}) == "chequers"
    assert vegas_presets(sample_pool()) == [2, 7]


def test_the_server_reads_the_shipped_wordlink_pools_and_their_vegas_presets() -> None:
    draw3 = verified_deals("klondike", {"draw": 3, "scoring": "standard"})
    assert len(draw3) >= 2_000 and draw3 == sorted(draw3)
    assert set(verified_deals("klondike", {"draw": 3}, kind="vegas")) <= set(draw3)
    assert len(verified_deals("klondike", {"draw": 1}, kind="vegas")) == 500
    assert load_pool("klondike-draw1").options == {"draw": 1}


def test_the_server_knows_no_pool_for_an_unknown_variant() -> None:
    assert verified_deals("no-such-game", {}) == []
    with pytest.raises(KeyError):
        load_pool("no-such-game")
