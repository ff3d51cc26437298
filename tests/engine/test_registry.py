"""The registry: one descriptor per game, and every table derived from it.

What used to be kept in separate tables (the pools, the daily variants,
the solver domains) is read from the descriptors, so a registered game is
in all of them, and a game leaves nothing behind when it is removed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import engine
from engine.descriptor import GameDescriptor, Lobby, PoolVariant, ProgressCounter
from engine.games import DESCRIPTORS, GAMES, registered
from engine.games.klondike import Klondike
from engine.solver.domains import domain_class
from engine.solver.pools import TARGETS, VARIANTS, variant_of
from engine.solver.search import Domain
from server.deals.daily import daily_variants

PERFT = Path(__file__).parent.parent / "fixtures" / "perft"


class Mirror(Klondike):
    """WordLink under another id: a registration that changes no rule."""

    id = "mirror"
    title = "Mirror"


MIRROR = GameDescriptor(
    rules=Mirror,
    lobby=Lobby(blurb="WordLink again.", cards=52),
    counters=(ProgressCounter("foundation", "Cards home", 52),),
    pools=(PoolVariant("mirror-draw3", {"draw": 3}, 10),),
    daily=({"draw": 3},),
)


@pytest.mark.parametrize("game_id", sorted(DESCRIPTORS))
def test_every_registered_game_has_its_perft_fixture(game_id: str) -> None:
    fixture = PERFT / f"{game_id}.txt"
    assert fixture.is_file(), f"{game_id} is registered but has no {fixture}"
    assert "perft " in fixture.read_text(), f"{fixture} holds no 'perft D = N' line"


@pytest.mark.parametrize("descriptor", list(DESCRIPTORS.values()), ids=lambda d: d.id)
def test_a_descriptor_is_consistent_with_its_rules(descriptor: GameDescriptor) -> None:
    game = descriptor.rules()
    assert GAMES[descriptor.id] is descriptor.rules
    assert {counter.name for counter in descriptor.counters} <= set(game.counters)
    assert set(descriptor.recorded) <= set(game.counters)
    offered = {option.name for option in descriptor.rules.OPTIONS}
    assert {option.name for option in descriptor.lobby.options} <= offered
    assert set(descriptor.lobby.changeable) <= offered
    for options in [*descriptor.daily, *(pool.options for pool in descriptor.pools)]:
        descriptor.rules(1, **options)
    if descriptor.domain is not None:
        assert domain_class(game).__name__ == descriptor.domain.partition(":")[2]


def test_the_tables_are_derived_from_the_descriptors() -> None:
    assert VARIANTS["klondike-draw3"] == ("klondike", {"draw": 3})
    assert TARGETS["broken-deck"] == 1_000
    assert variant_of("klondike", {"draw": 3, "scoring": "vegas"}) == "klondike-draw3"
    assert variant_of("klondike", {}) == "klondike-draw1"
    assert ("broken-deck", {"difficulty": "challenge"}) in daily_variants()


def test_a_registered_game_is_in_every_table_until_it_is_removed() -> None:
    with registered(MIRROR):
        assert engine.new_game("mirror", 5).title == "Mirror"
        assert VARIANTS["mirror-draw3"] == ("mirror", {"draw": 3})
        assert TARGETS["mirror-draw3"] == 10
        assert variant_of("mirror", {"draw": 3}) == "mirror-draw3"
        assert ("mirror", {"draw": 3}) in daily_variants()
        assert domain_class(engine.new_game("mirror")) is Domain, "no domain named: the generic search"
    assert "mirror" not in GAMES and "mirror-draw3" not in VARIANTS
    assert all(game_id != "mirror" for game_id, _ in daily_variants())
    with pytest.raises(engine.UnknownGame):
        engine.new_game("mirror")


def test_a_game_id_registers_once() -> None:
    with pytest.raises(ValueError, match="already registered"):
        with registered(GameDescriptor(rules=Klondike, lobby=Lobby(blurb="", cards=52))):
            pass
    assert GAMES["klondike"] is Klondike


def test_a_domain_name_that_names_no_domain_is_refused() -> None:
    broken = GameDescriptor(rules=Mirror, lobby=Lobby(blurb="", cards=52), domain="engine.solver.search:Step")
    with registered(broken), pytest.raises(LookupError, match="does not name a solver domain"):
        domain_class(engine.new_game("mirror"))


@pytest.mark.parametrize("recorded", [("moves",), ("hints", "foundation"), ("foundation", "foundation"), ("",)])
def test_a_recorded_counter_a_record_already_sums_or_names_twice_is_refused(recorded: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match="recorded counters must be distinct, non-empty and none of games"):
        GameDescriptor(rules=Mirror, lobby=Lobby(blurb="", cards=52), recorded=recorded)


@pytest.mark.parametrize("descriptor", list(DESCRIPTORS.values()), ids=lambda d: d.id)
def test_a_games_options_are_known_without_dealing_as_a_dealt_game_has_them(descriptor: GameDescriptor) -> None:
    for options in [{}, *descriptor.daily, *(pool.options for pool in descriptor.pools)]:
        assert engine.game_options(descriptor.id, **options) == engine.new_game(descriptor.id, 1, **options).options
    for wrong in ({"no_such_option": 1}, {"deal": 3}):
        with pytest.raises(engine.BadOption) as dealt:
            engine.new_game(descriptor.id, 1, **wrong)
        with pytest.raises(engine.BadOption, match=re.escape(str(dealt.value))):
            engine.game_options(descriptor.id, **wrong)
    with pytest.raises(engine.UnknownGame):
        engine.game_options("no_such_game")
