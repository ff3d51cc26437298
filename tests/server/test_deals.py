"""``server.deals.numbered.choose_deal``: which deal number a new game gets, and
whether it is called verified.  The pools are replaced with small lists
(``choose_deal`` reads them through ``server.deals.numbered.verified_deals``)."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from protocol import ErrorCode
from server.deals import numbered as deals
from server.deals.numbered import DealChoice, choose_deal
from server.model.refusal import Refusal
from server.runtime.entropy import SystemEntropy

KLONDIKE = engine.game_class("klondike")
POOL = [3, 5, 8]
VEGAS = [3, 5]
ENTROPY = SystemEntropy()


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any], str]]:
    """Replace the verified pools with ``POOL`` (Vegas: ``VEGAS``); the list
    records each lookup as (game id, options, kind)."""
    calls: list[tuple[str, dict[str, Any], str]] = []

    def fake(game_id: str, options: dict[str, Any], kind: str = "winnable") -> list[int]:
        calls.append((game_id, options, kind))
        return list(VEGAS if kind == "vegas" else POOL)

    monkeypatch.setattr(deals, "verified_deals", fake)
    return calls


def test_a_numbered_deal_in_the_pool_is_verified(asked: list[tuple[str, dict[str, Any], str]]) -> None:
    assert choose_deal(KLONDIKE, 5, {"draw": 3}, ENTROPY) == DealChoice(5, "number", True)
    assert asked == [("klondike", {"draw": 3}, "winnable")]


def test_a_numbered_deal_not_in_the_pool_is_not_verified(asked: list[tuple[str, dict[str, Any], str]]) -> None:
    assert choose_deal(KLONDIKE, 4, {"draw": 3}, ENTROPY) == DealChoice(4, "number", False)


def test_winnable_picks_from_the_verified_deals(asked: list[tuple[str, dict[str, Any], str]]) -> None:
    choices = [choose_deal(KLONDIKE, "winnable", {"draw": 1}, ENTROPY) for _ in range(30)]
    assert {choice.number for choice in choices} <= set(POOL)
    assert all(choice.kind == "winnable" and choice.verified for choice in choices)
    assert asked and all(call == ("klondike", {"draw": 1}, "winnable") for call in asked)


def test_a_random_vegas_deal_is_a_verified_vegas_preset(asked: list[tuple[str, dict[str, Any], str]]) -> None:
    choices = [choose_deal(KLONDIKE, "random", {"draw": 1, "scoring": "vegas"}, ENTROPY) for _ in range(30)]
    assert {choice.number for choice in choices} <= set(VEGAS)
    assert all(choice.kind == "vegas" and choice.verified for choice in choices)
    assert asked and all(call[2] == "vegas" for call in asked)


def test_a_random_deal_is_any_deal_and_not_verified(asked: list[tuple[str, dict[str, Any], str]]) -> None:
    choice = choose_deal(KLONDIKE, "random", {"draw": 1}, ENTROPY)
    assert choice.kind == "random" and not choice.verified
    assert KLONDIKE.FIRST_DEAL <= choice.number <= KLONDIKE.LAST_DEAL
    assert not asked, "a random deal needs no pool"


def test_the_daily_deal_is_not_chosen_here(asked: list[tuple[str, dict[str, Any], str]]) -> None:
    with pytest.raises(ValueError, match="server.deals.daily"):
        choose_deal(KLONDIKE, "daily", {"draw": 1}, ENTROPY)


def test_an_empty_pool_is_refused_as_a_bad_option(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deals, "verified_deals", lambda game_id, options, kind="winnable": [])
    with pytest.raises(Refusal) as refused:
        choose_deal(KLONDIKE, "winnable", {"draw": 1}, ENTROPY)
    assert refused.value.code is ErrorCode.BAD_OPTION
    assert "no winnable deals" in refused.value.message
