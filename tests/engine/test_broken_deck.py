"""Broken Deck: one test per sentence of its rule text, plus the deal
pins, the refusal codes and the position checks.

Small positions are written in the notation; ``board`` fills each
foundation from its Ace up to a given rank, so a test only lists the few
pieces it is about (every position must still hold all 52 cards).
"""

from __future__ import annotations

import random
from textwrap import dedent
from typing import TypedDict

import pytest

import engine
from engine import ActionUnavailable, BadNotation, BadOption, Game, IllegalMove, Move
from engine.cards import PART, RANKS, SUITS, full_deck, parse_card, whole
from engine.data.broken_deck_seeds import SEEDS as VERIFIED_SEEDS
from engine.games.broken_deck import BrokenDeck, group_capacity
from engine.rng import deal_rng, shuffled
from engine.solver.assist import hint_for_view

FOUNDATION_NAMES = ("fs", "fh", "fd", "fc")


class Tops(TypedDict, total=False):
    """A foundation's top rank by pile, as ``board`` takes them."""

    fs: str
    fh: str
    fd: str
    fc: str


def board(layout: str, *, difficulty: str = "relaxed", practice: bool = False, **tops: str) -> BrokenDeck:
    """A game at ``layout`` (pile lines in the notation) whose foundations
    hold their suit from the Ace up to ``tops[name]`` ("" for empty, full
    when not named)."""
    lines = [f"broken-deck deal=1 difficulty={difficulty} practice={str(practice).lower()}", "moves=0", dedent(layout)]
    for suit, name in zip(SUITS, FOUNDATION_NAMES):
        top = tops.get(name, "K")
        height = RANKS.index(top) + 1 if top else 0
        lines.append(f"{name}: " + " ".join(rank + suit for rank in RANKS[:height]))
    game = engine.from_text("broken-deck", "\n".join(lines))
    assert isinstance(game, BrokenDeck)
    return game


def refuse(game: Game, move: str, code: str) -> IllegalMove:
    """Play ``move``, expect the refusal ``code`` and an unchanged game."""
    before = (game.to_text(), game.counters, game.status)
    with pytest.raises(IllegalMove) as raised:
        game.play(move)
    assert raised.value.code == code, raised.value.message
    assert raised.value.message
    assert (game.to_text(), game.counters, game.status) == before
    return raised.value


def pile(game: Game, name: str) -> list[str]:
    return game.view()["piles"][name]["up"]


def moves_from(game: Game, src: str) -> set[str]:
    return {str(m) for m in game.legal_moves() if m.src == src}


def group_counts(game: Game, src: str, dst: str) -> list[int]:
    return sorted(m.count for m in game.legal_moves() if m.src == src and m.dst == dst)


TORN_QUEEN = """
    t1: KS QS<
    t2: QS>
"""

# Everything red and stuck except through the last free cell c4: 4H and 5D,
# the next foundation cards, lie under 9H and 9D.  The slot holds a
# repaired QD; KD is torn.
LAST_CELL = """
    t1: 4H 9H
    t2: 5D 9D
    t3: 6H TH
    t4: 6D TD
    t5: 7H JH
    t6: 7D JD
    t7: KD> KD<
    t8: 5H 8D
    c1: 8H
    c2: QH
    c3: KH
    r: QD
"""
LAST_CELL_TOPS: Tops = {"fh": "3", "fd": "4"}

# The same board with KD repaired (and QD under it): all repairs complete.
LAST_CELL_REPAIRED = LAST_CELL.replace("t7: KD> KD<", "t7: QD KD").replace("    r: QD\n", "")

# A run of four (9S 8H 7S 6H) over 5S, a red Ten to receive it, three full
# cells, c4 free and t8 empty.
FOUR_RUN = """
    t1: 5S 9S 8H 7S 6H
    t2: 8S TH
    t3: TS
    t4: JS
    t5: 6S 5H
    t6: 7H 9H
    t7: JH QH
    c1: KS
    c2: KH
    c3: QS
"""
FOUR_RUN_TOPS: Tops = {"fs": "4", "fh": "4"}

# Every spade and every heart but AH (on its foundation), the Ace of spades
# and the 2 of hearts exposed.
LOW_SPADES = """
    t1: KS QS JS TS 9S 8S 7S
    t2: 6S 5S 4S 3S 2S AS
    t3: KH QH JH TH 9H 8H 7H
    t4: 6H 5H 4H 3H 2H
"""


# ---------------------------------------------------------------- goal and deal


def test_repairing_every_torn_card_and_building_every_foundation_wins() -> None:
    """Repair every torn card and build all four foundations from Ace through King."""
    game = board(
        """
        t1: KS<
        t2: KH> KS>
        t3: KH<
        """,
        fs="Q",
        fh="Q",
    )
    for move in ("t1-r", "t2-r", "r-fs"):
        game.play(move)
        assert game.status == engine.PLAYING
    for move in ("t2-r", "t3-r"):
        game.play(move)
        assert game.status == engine.PLAYING
    game.play("r-fh")
    assert game.status == engine.WON
    assert game.counters["repairs"] == 6
    assert all(len(pile(game, name)) == 13 for name in FOUNDATION_NAMES)


def test_a_deal_has_six_damaged_cards_among_the_52() -> None:
    """Repair all six damaged cards, then put all 52 whole cards in four suit foundations from Ace to King."""
    game = engine.new_game("broken-deck", 5)
    pieces = [parse_card(code) for name in game.PILES for code in pile(game, name)]
    halves = [card for card in pieces if PART[card]]
    torn = {whole(card) for card in halves}
    assert len(torn) == 6 and len(halves) == 12
    assert game.census(game.position) == sorted(full_deck())
    assert game.counters["repairs"] == 0
    assert [name for name in game.PILES if name.startswith("f")] == list(FOUNDATION_NAMES)


def test_the_deal_has_58_face_up_pieces_in_eight_columns() -> None:
    """The deal begins with 58 pieces: 46 whole cards and 12 halves, all face-up in eight columns."""
    for deal in (1, 2, 999):
        game = engine.new_game("broken-deck", deal)
        columns = [f"t{i}" for i in range(1, 9)]
        pieces = [code for name in columns for code in pile(game, name)]
        assert len(pieces) == 58
        assert sum(code[-1] in "<>" for code in pieces) == 12
        assert [len(pile(game, name)) for name in columns] == [8, 8, 7, 7, 7, 7, 7, 7]
        assert all(p["down"] == 0 for p in game.view()["piles"].values())
        assert all(not pile(game, name) for name in game.PILES if name not in columns)


def test_the_torn_cards_are_the_last_six_of_the_first_shuffle() -> None:
    """The documented deal: shuffle the deck, tear its last six cards, shuffle the 58 pieces."""
    for deal in (1, 2, 77, 1000):
        game = engine.new_game("broken-deck", deal)
        expected = shuffled(full_deck(), deal_rng("broken-deck", VERIFIED_SEEDS.get(deal, deal)))[-6:]
        halves = [card for cards in game.position.piles for card in cards if PART[card]]
        assert {whole(card) for card in halves} == set(expected)


def test_deal_pins() -> None:
    """These literal layouts pin the documented shuffle: a change here
    changes every deal number, so certificates and records would break.
    Deal 2 is one the verified deal table remaps (to seed 1,002,000)."""
    pins = {
        1: ("3H AC> 5S 3S 9C> AS 4H 6H", "TC 7S 6C< JC KC JH 5C< AD", "3H 7S QS 5S KD TC 5H"),
        2: ("9H 8S< 6H 7C 3C 3H KD JC", "QC TC 8H 5D 7D 8C QH> 3D", "7C 8H 9D 3S 2S 9C QH"),
        1000: ("TH< 9S 6C 6D 4H AH< TC KS", "3H 5S JH 4C> TH> QH QC 6H", "7S 4H TC JH KH 3S 4S"),
    }
    for deal, (t1, t2, practice_t1) in pins.items():
        game = engine.new_game("broken-deck", deal)
        assert " ".join(pile(game, "t1")) == t1
        assert " ".join(pile(game, "t2")) == t2
        assert " ".join(pile(engine.new_game("broken-deck", deal, practice=True), "t1")) == practice_t1


def test_four_free_cells_give_temporary_space() -> None:
    """Four free cells provide temporary space."""
    game = engine.new_game("broken-deck", 1)
    cells = [name for name in game.PILES if name.startswith("c")]
    assert cells == ["c1", "c2", "c3", "c4"]
    for cell, column in zip(cells, ("t3", "t4", "t5", "t6")):
        top = pile(game, column)[-1]
        game.play(f"{column}-{cell}")
        assert pile(game, cell) == [top]


def test_a_win_needs_all_six_repairs_and_all_foundations() -> None:
    """A win needs all six repairs and all foundations."""
    game = board("t1: KS<\nt2: KS>", fs="Q")
    assert not game.is_won(game.position)
    game.play("t1-r")
    game.play("t2-r")
    assert game.counters["repairs"] == 6
    assert not game.is_won(game.position) and game.status == engine.PLAYING
    game.play("r-fs")
    assert game.is_won(game.position) and game.status == engine.WON
    practice = engine.new_game("broken-deck", 3, practice=True)
    assert practice.counters["repairs"] == 6 and practice.status == engine.PLAYING


# ---------------------------------------------------------------- ending, restart, deals


def test_no_legal_move_ends_the_deal_and_undo_recovers() -> None:
    """With no legal move a started deal ends unsuccessfully; assisted modes allow Undo recovery."""
    game = board(LAST_CELL, **LAST_CELL_TOPS)
    assert game.status == engine.PLAYING
    game.play("t8-c4")
    assert game.status == engine.LOST
    assert game.legal_moves() == []
    game.undo()
    assert game.status == engine.PLAYING
    assert game.to_text() == board(LAST_CELL, **LAST_CELL_TOPS).to_text()


def test_no_whole_card_or_half_move_left_loses() -> None:
    """A started deal ends unsuccessfully when no legal whole-card or half move remains."""
    game = board(LAST_CELL, **LAST_CELL_TOPS)
    game.play("t8-c4")
    assert game.status == engine.LOST
    assert game.moves_from(game.position) == []
    assert pile(game, "t7")[-1] == "KD<"
    with pytest.raises(IllegalMove) as raised:
        game.play("t7-r")
    assert raised.value.code == "game_over"


def test_filling_the_last_free_cell_can_block_a_repaired_deck() -> None:
    """Filling the last free cell may block the deck even after all repairs are complete."""
    game = board(LAST_CELL_REPAIRED, **LAST_CELL_TOPS)
    assert game.counters["repairs"] == 6 and game.all_repaired()
    assert game.status == engine.PLAYING
    game.play("t8-c4")
    assert game.status == engine.LOST


def test_undo_recovers_a_blocked_deck_only_in_assisted_modes() -> None:
    """Undo can recover in assisted modes."""
    for difficulty in ("relaxed", "standard"):
        game = board(LAST_CELL_REPAIRED, difficulty=difficulty, **LAST_CELL_TOPS)
        game.play("t8-c4")
        game.undo()
        assert game.status == engine.PLAYING
        game.play("t1-c4")
        game.play("t1-fh")
        assert pile(game, "fh")[-1] == "4H"
    challenge = board(LAST_CELL_REPAIRED, difficulty="challenge", **LAST_CELL_TOPS)
    challenge.play("t8-c4")
    with pytest.raises(ActionUnavailable) as raised:
        challenge.undo()
    assert raised.value.code == "assist_disabled"
    assert challenge.status == engine.LOST


def test_restart_repeats_the_same_layout() -> None:
    """Restart repeats the same layout; numbered deals range from 1 to 1,000."""
    game = engine.new_game("broken-deck", 42)
    start = game.to_text()
    game.play(game.legal_moves()[0])
    game.play(game.legal_moves()[0])
    assert game.to_text() != start
    game.restart()
    assert game.to_text() == start
    assert engine.new_game("broken-deck", 42).to_text() == start


def test_numbered_deals_run_from_1_to_1000() -> None:
    """Restart repeats the layout; numbered deals run from 1 to 1,000."""
    assert BrokenDeck.FIRST_DEAL == 1 and BrokenDeck.LAST_DEAL == 1000
    engine.new_game("broken-deck", 1)
    engine.new_game("broken-deck", 1000)
    for deal in (0, 1001, -5, True, "7"):
        with pytest.raises(BadOption):
            engine.new_game("broken-deck", deal)  # type: ignore[arg-type]  # wrong types on purpose: refused at run time
    layouts = {engine.new_game("broken-deck", deal).to_text().split("\n", 2)[2] for deal in range(1, 21)}
    assert len(layouts) == 20


# ---------------------------------------------------------------- double-click


def test_double_click_sends_a_fragment_to_the_slot_and_a_whole_card_to_its_foundation_or_a_free_cell() -> None:
    """Double-click a fragment to try the Repair Slot; double-click a whole card to try its foundation, then an empty free cell when moving from a column."""
    game = board(
        """
        t1: KS QS<
        t2: QS>
        t3: KH
        t4: KD
        t5: KC<
        t6: KC>
        c1: QD
        """,
        fs="J",
        fh="Q",
        fd="J",
        fc="Q",
    )
    assert str(game.auto_move("t1")) == "t1-r"
    assert str(game.auto_move("t3")) == "t3-fh"
    assert str(game.auto_move("t4")) == "t4-c2"
    assert str(game.auto_move("c1")) == "c1-fd"
    game.play("t1-r")
    assert game.auto_move("t5") is None
    assert str(game.auto_move("t2")) == "t2-r"
    game.play("t4-c2")
    assert game.auto_move("c2") is None
    game.play("t2-r")
    assert str(game.auto_move("r")) == "r-fs"
    assert game.auto_move("fs") is None


# ---------------------------------------------------------------- the Repair Slot


def test_opposite_halves_of_the_same_card_join() -> None:
    """Join opposite halves of the same rank and suit."""
    game = board(
        """
        t1: KS QS<
        t2: QS>
        t3: KH QH>
        t4: QH<
        """,
        fs="J",
        fh="J",
    )
    game.play("t1-r")
    refuse(game, "t3-r", "slot_occupied")
    refuse(game, "t4-r", "slot_occupied")
    game.play("t2-r")
    assert pile(game, "r") == ["QS"]


def test_either_half_may_arrive_first() -> None:
    """Either half may arrive first."""
    for first, second in (("t1", "t2"), ("t2", "t1")):
        game = board(TORN_QUEEN, fs="J")
        game.play(f"{first}-r")
        game.play(f"{second}-r")
        assert pile(game, "r") == ["QS"]
        assert game.counters["repairs"] == 6


def test_two_halves_become_one_whole_card_and_count_a_repair() -> None:
    """Two matching halves become one whole card and increase the repair count."""
    game = board(TORN_QUEEN, fs="J")
    assert game.counters["repairs"] == 5 and game.view()["repairs"] == 5
    game.play("t1-r")
    assert pile(game, "r") == ["QS<"] and game.counters["repairs"] == 5
    game.play("t2-r")
    assert pile(game, "r") == ["QS"]
    assert game.counters["repairs"] == 6 and game.view()["repairs"] == 6
    assert game.census(game.position) == sorted(full_deck())


def test_an_empty_slot_accepts_one_half_and_an_occupied_slot_only_its_match() -> None:
    """An empty slot accepts one half; an occupied slot accepts only its matching half."""
    game = board(
        """
        t1: KS
        t2: KC<
        t3: KC>
        t4: QS>
        r: QS<
        """,
        fs="J",
        fc="Q",
    )
    refuse(game, "t2-r", "slot_occupied")
    refuse(game, "t3-r", "slot_occupied")
    game.play("t4-r")
    assert pile(game, "r") == ["QS"]
    game.play("r-fs")
    game.play("t2-r")
    assert pile(game, "r") == ["KC<"]


def test_whole_cards_cannot_enter_the_slot() -> None:
    """Whole cards cannot enter the slot."""
    game = board(
        """
        t1: KS QS<
        t2: QS>
        t3: KH
        c1: QH
        """,
        fs="J",
        fh="J",
    )
    refuse(game, "t3-r", "whole_card_to_slot")
    refuse(game, "c1-r", "whole_card_to_slot")
    game.play("t1-r")
    refuse(game, "t3-r", "whole_card_to_slot")
    assert "t3-r" not in {str(m) for m in game.legal_moves()}


def test_the_repaired_card_must_leave_before_another_repair() -> None:
    """Move the repaired card out before starting another repair."""
    game = board(
        """
        t1: KS
        t2: KC<
        t3: KC>
        r: QS
        """,
        fs="J",
        fc="Q",
    )
    error = refuse(game, "t2-r", "slot_holds_repaired_card")
    assert "repaired card" in error.message
    game.play("r-fs")
    game.play("t2-r")
    game.play("t3-r")
    assert pile(game, "r") == ["KC"]


# ---------------------------------------------------------------- halves


def test_an_exposed_half_goes_to_an_empty_free_cell_or_the_slot() -> None:
    """An exposed half can enter an empty free cell or the Repair Slot."""
    game = board(TORN_QUEEN, fs="J")
    assert moves_from(game, "t1") == {"t1-c1", "t1-c2", "t1-c3", "t1-c4", "t1-r"}
    game.play("t1-c3")
    assert pile(game, "c3") == ["QS<"]
    game.play("t2-r")
    assert pile(game, "r") == ["QS>"]


def test_a_half_in_a_free_cell_moves_only_to_the_slot() -> None:
    """From a free cell, a half can move only to the Repair Slot."""
    game = board(
        """
        t1: KS
        t2: QS>
        c1: QS<
        """,
        fs="J",
    )
    assert moves_from(game, "c1") == {"c1-r"}
    refuse(game, "c1-c2", "half_cell_to_cell")
    refuse(game, "c1-t1", "half_to_column")
    refuse(game, "c1-t3", "half_to_column")
    refuse(game, "c1-fs", "half_to_foundation")
    game.play("c1-r")
    assert pile(game, "r") == ["QS<"]


def test_a_waiting_half_in_the_slot_moves_to_an_empty_free_cell() -> None:
    """A waiting half in the slot can move to an empty free cell."""
    game = board(
        """
        t1: KS
        t2: QS>
        c1: KH
        r: QS<
        """,
        fs="J",
        fh="Q",
    )
    assert moves_from(game, "r") == {"r-c2", "r-c3", "r-c4"}
    refuse(game, "r-c1", "cell_occupied")
    refuse(game, "r-t3", "half_to_column")
    refuse(game, "r-fs", "half_to_foundation")
    game.play("r-c4")
    assert pile(game, "c4") == ["QS<"] and pile(game, "r") == []


def test_park_the_waiting_half_place_its_match_then_return_it() -> None:
    """For example, park that half, place its match in the slot, then return the parked half."""
    game = board(
        """
        t1: KS
        t2: QS>
        r: QS<
        """,
        fs="J",
    )
    game.play("r-c1")
    game.play("t2-r")
    assert pile(game, "r") == ["QS>"] and pile(game, "c1") == ["QS<"]
    game.play("c1-r")
    assert pile(game, "r") == ["QS"] and pile(game, "c1") == []
    assert game.counters["repairs"] == 6


def test_halves_never_enter_columns_or_foundations_nor_move_between_cells() -> None:
    """Halves cannot enter columns or foundations, or move between free cells."""
    game = board(
        """
        t1: KS QS<
        t2: QS>
        t3: KH
        c1: KC<
        t4: KC>
        """,
        fs="J",
        fh="Q",
        fc="Q",
    )
    error = refuse(game, "t1-t3", "half_to_column")
    assert "cannot enter a column" in error.message
    refuse(game, "t1-t5", "half_to_column")
    refuse(game, "t1-fs", "half_to_foundation")
    refuse(game, "c1-c2", "half_cell_to_cell")
    refuse(game, "c1-fc", "half_to_foundation")
    assert all(not m.dst.startswith(("t", "f")) for m in game.legal_moves() if m.src in ("t1", "t2", "c1", "t4"))


def test_a_half_blocks_its_group_and_no_card_lands_on_an_exposed_half() -> None:
    """A half blocks any group containing it from moving, and a whole card cannot land on an exposed half."""
    game = board(
        """
        t1: KH QS<
        t2: QS>
        t3: KS
        t4: KD JD
        c1: QD
        """,
        fs="J",
        fh="Q",
        fd="T",
    )
    refuse(game, "t1-t5x2", "group_has_half")
    refuse(game, "t4-t1", "onto_half")
    refuse(game, "c1-t1", "onto_half")
    refuse(game, "c1-t2", "onto_half")
    assert not any(m.dst in ("t1", "t2") for m in game.legal_moves())


def test_repairing_the_match_frees_the_card_under_a_half() -> None:
    """Find and repair its match first."""
    game = board(
        """
        t1: KH QS<
        t2: QS>
        t3: KS
        """,
        fs="J",
        fh="Q",
    )
    refuse(game, "t1-fh", "half_to_foundation")
    game.play("t2-r")
    game.play("t1-r")
    game.play("t1-fh")
    assert pile(game, "fh")[-1] == "KH"


# ---------------------------------------------------------------- whole cards and foundations


def test_a_repaired_card_moves_like_any_whole_card() -> None:
    """A repaired card moves like any whole card: to a legal column, an empty free cell, or its foundation."""
    game = board(
        """
        t1: KH
        t2: KS
        r: QS
        """,
        fs="J",
        fh="Q",
    )
    empty_columns = {f"r-t{i}" for i in range(3, 9)}
    assert moves_from(game, "r") == {"r-fs", "r-t1", "r-c1", "r-c2", "r-c3", "r-c4"} | empty_columns
    game.play("r-t1")
    assert pile(game, "t1") == ["KH", "QS"]


def test_columns_build_down_in_alternating_colours() -> None:
    """Columns build down one rank in alternating colors: a black Ace fits on a red 2, or a red 7 on a black 8."""
    aces = board(LOW_SPADES, fs="", fh="A")
    aces.play("t2-t4")
    assert pile(aces, "t4")[-2:] == ["2H", "AS"]
    sevens = board(
        """
        t1: KS QS JS TS 9S 8S
        t2: KH QH JH TH 9H 8H 7H
        t3: KD QD JD TD 9D 8D
        t4: KC QC JC TC 9C
        """,
        fs="7",
        fh="6",
        fd="7",
        fc="8",
    )
    refuse(sevens, "t2-t3", "not_alternating")
    refuse(sevens, "t2-t4", "not_descending")
    sevens.play("t2-t1")
    assert pile(sevens, "t1")[-2:] == ["8S", "7H"]


def test_foundations_build_up_by_suit_one_card_at_a_time() -> None:
    """Foundations build up within one suit, one card at a time: Ace, 2, 3, through King."""
    game = board(LOW_SPADES, fs="", fh="A")
    refuse(game, "t1-fs", "foundation_order")
    refuse(game, "t3-fs", "wrong_suit")
    refuse(game, "t2-fsx2", "single_card_only")
    game.play("t2-fs")
    game.play("t2-fs")
    game.play("t4-fh")
    assert pile(game, "fs") == ["AS", "2S"] and pile(game, "fh") == ["AH", "2H"]
    refuse(game, "t3-fh", "foundation_order")


def test_a_foundation_card_returns_only_through_undo() -> None:
    """A foundation card can return only through Undo."""
    game = board("t1: KS\nt2: KH", fs="Q", fh="Q")
    game.play("t1-fs")
    assert not any(m.src.startswith("f") for m in game.legal_moves())
    error = refuse(game, "fs-t3", "foundation_is_final")
    assert "Undo" in error.message
    refuse(game, "fs-c1", "foundation_is_final")
    game.undo()
    assert pile(game, "t1") == ["KS"] and pile(game, "fs")[-1] == "QS"


def test_a_practice_position_has_all_six_repairs_complete() -> None:
    """Some practice positions have all six repairs already complete so you can focus on whole cards."""
    game = engine.new_game("broken-deck", 9, practice=True)
    assert isinstance(game, BrokenDeck)
    columns = [pile(game, f"t{i}") for i in range(1, 9)]
    assert [len(column) for column in columns] == [7, 7, 7, 7, 6, 6, 6, 6]
    assert not any(code[-1] in "<>" for column in columns for code in column)
    assert game.all_repaired()
    assert game.counters["repairs"] == 6
    assert game.view()["practice"] is True
    assert engine.new_game("broken-deck", 9).view()["practice"] is False


# ---------------------------------------------------------------- empty spaces


def test_a_free_cell_holds_one_piece_never_a_stack() -> None:
    """Each free cell holds one whole card or half, never a stack."""
    game = board(
        """
        t1: KS QS<
        t2: QS>
        t3: KC QH
        t4: KH
        c1: QC
        """,
        fs="J",
        fh="J",
        fc="J",
    )
    refuse(game, "t4-c1", "cell_occupied")
    refuse(game, "t2-c1", "cell_occupied")
    refuse(game, "t3-c2x2", "single_card_only")
    game.play("t2-c2")
    assert pile(game, "c2") == ["QS>"]
    with pytest.raises(BadNotation):
        board("t1: KS\nc1: QS KH", fs="J", fh="Q")


def test_whole_cards_move_between_empty_cells_and_back() -> None:
    """Whole cards may move between empty cells and back to legal columns or foundations."""
    game = board(
        """
        t1: KH
        t2: KS
        c1: QS
        """,
        fs="J",
        fh="Q",
    )
    assert {"c1-c2", "c1-c3", "c1-c4", "c1-t1", "c1-fs"} <= moves_from(game, "c1")
    game.play("c1-c2")
    game.play("c2-t1")
    assert pile(game, "t1") == ["KH", "QS"]
    game.undo()
    game.play("c2-fs")
    assert pile(game, "fs")[-1] == "QS"


def test_any_whole_card_of_any_rank_may_enter_an_empty_column_but_no_half() -> None:
    """Any whole card, at any rank, may enter an empty column; halves may not."""
    game = board(
        """
        t1: KS QS<
        t2: QS>
        t3: KH
        t4: KD QD JD TD 9D 8D 7D 6D 5D
        """,
        fs="J",
        fh="Q",
        fd="4",
    )
    assert {"t3-t5", "t4-t5", "t4-t8"} <= moves_from(game, "t3") | moves_from(game, "t4")
    game.play("t4-t5")
    assert pile(game, "t5") == ["5D"]
    refuse(game, "t1-t6", "half_to_column")


def test_a_free_space_uncovers_a_useful_card() -> None:
    """Keeping spaces free helps you uncover useful cards."""
    game = board(LAST_CELL_REPAIRED, **LAST_CELL_TOPS)
    game.play("t1-c4")
    game.play("t1-fh")
    assert pile(game, "fh")[-1] == "4H"
    wasteful = board(LAST_CELL_REPAIRED, **LAST_CELL_TOPS)
    wasteful.play("t8-c4")
    assert wasteful.status == engine.LOST


# ---------------------------------------------------------------- groups and capacity


def test_a_moving_group_is_whole_descending_and_alternating() -> None:
    """Every card in a moving group must be whole, descending by one rank, and alternating colors."""
    game = board(
        """
        t1: KS QH JH
        t2: KH JS
        t3: QS
        t4: TS 9H
        t5: TH 9S
        t6: KC QC<
        t7: QC>
        """,
        fs="8",
        fh="8",
        fc="J",
    )
    refuse(game, "t1-t8x2", "not_alternating")
    refuse(game, "t2-t8x2", "not_descending")
    refuse(game, "t6-t8x2", "group_has_half")
    refuse(game, "t4-t8x3", "not_enough_cards")
    game.play("t4-t8x2")
    assert pile(game, "t8") == ["TS", "9H"]


def test_capacity_is_empty_cells_plus_one_doubled_per_spare_empty_column() -> None:
    """Capacity is (empty free cells + 1) × 2 for each spare empty column."""
    assert [group_capacity(cells, columns) for cells, columns in ((0, 0), (1, 0), (4, 0), (1, 1), (2, 2), (4, 3))] == [
        1,
        2,
        5,
        4,
        12,
        40,
    ]
    game = board(FOUR_RUN, **FOUR_RUN_TOPS)
    assert group_counts(game, "t1", "t2") == [4]
    game.play("t5-c4")
    refuse(game, "t1-t2x4", "group_too_large")
    assert group_counts(game, "t1", "t2") == []


def test_an_empty_destination_column_adds_no_capacity() -> None:
    """Exclude an empty destination column."""
    game = board(FOUR_RUN, **FOUR_RUN_TOPS)
    assert group_counts(game, "t1", "t8") == [1, 2]
    error = refuse(game, "t1-t8x3", "group_too_large")
    assert "at most 2" in error.message


def test_the_repair_slot_adds_no_capacity() -> None:
    """The Repair Slot contributes no capacity."""
    empty_slot = board(FOUR_RUN, **FOUR_RUN_TOPS)
    full_slot = board(FOUR_RUN.replace("t5: 6S 5H", "t5: 5H") + "r: 6S\n", **FOUR_RUN_TOPS)
    assert pile(full_slot, "r") == ["6S"]
    for game in (empty_slot, full_slot):
        assert group_counts(game, "t1", "t2") == [4]
        assert group_counts(game, "t1", "t8") == [1, 2]


def test_emptying_two_ace_cells_raises_capacity_from_one_to_three() -> None:
    """Emptying two occupied Ace cells onto their foundations raises capacity from one to three."""
    game = board(
        """
        t1: 2D 9C 8D 7C
        t2: 2C TD
        t3: 3D 4C 5D
        t4: 3C 4D 5C
        t5: 6D 6C JD
        t6: 7D 8C QC
        t7: 9D TC
        t8: JC QD
        c1: AD
        c2: AC
        c3: KD
        c4: KC
        """,
        fd="",
        fc="",
    )
    error = refuse(game, "t1-t2x3", "group_too_large")
    assert "at most 1" in error.message
    game.play("c1-fd")
    game.play("c2-fc")
    game.play("t1-t2x3")
    assert pile(game, "t2") == ["2C", "TD", "9C", "8D", "7C"]


def test_one_empty_cell_and_one_spare_empty_column_move_four_cards() -> None:
    """One empty cell and one spare empty column allow four cards, including when the group moves to a different empty column."""
    onto_a_card = board(FOUR_RUN, **FOUR_RUN_TOPS)
    onto_a_card.play("t1-t2x4")
    assert pile(onto_a_card, "t2") == ["8S", "TH", "9S", "8H", "7S", "6H"]
    two_empty = board(FOUR_RUN.replace("t3: TS\n    t4: JS", "t3: JS TS"), **FOUR_RUN_TOPS)
    assert group_counts(two_empty, "t1", "t8") == [1, 2, 3, 4]
    refuse(two_empty, "t1-t8x5", "not_descending")
    two_empty.play("t1-t4x4")
    assert pile(two_empty, "t4") == ["9S", "8H", "7S", "6H"]


# ---------------------------------------------------------------- hint, undo, redo


def test_hint_prioritizes_repairs() -> None:
    """Hint suggests a useful move, prioritizing repairs."""
    waiting = board(
        """
        t1: KS
        t2: QS>
        t3: KH
        r: QS<
        """,
        fs="J",
        fh="Q",
    )
    assert "t3-fh" in moves_from(waiting, "t3")
    assert str(waiting.hint(hint_for_view)) == "t2-r"
    assert waiting.counters["hints"] == 1
    waiting.play("t2-r")
    assert str(waiting.hint(hint_for_view)) == "r-fs"
    starting = board(TORN_QUEEN + "t3: KH\n", fs="J", fh="Q")
    assert str(starting.hint(hint_for_view)) in ("t1-r", "t2-r")


def test_hint_never_suggests_a_pointless_shuffle() -> None:
    """Over random play the hint never moves a card between free cells,
    never parks the slot's waiting half, and never undoes the last move."""
    chooser = random.Random(4)
    for deal in (4, 5, 6):
        game = engine.new_game("broken-deck", deal)
        for _ in range(80):
            if game.status != engine.PLAYING:
                break
            suggestion = game.suggest()
            if suggestion is not None:
                assert not (suggestion.src.startswith("c") and suggestion.dst.startswith("c"))
                assert not (suggestion.src == "r" and suggestion.dst.startswith("c") and pile(game, "r")[0][-1] in "<>")
                last = game.last_move
                assert last is None or (suggestion.src, suggestion.dst) != (last.dst, last.src)
            game.play(chooser.choice(game.legal_moves()))


def test_undo_and_redo_restore_halves_and_repair_counts() -> None:
    """Undo and Redo preserve exact card halves and repair counts; undoing a repair restores the separate halves."""
    game = board(TORN_QUEEN, fs="J")
    game.play("t1-r")
    game.play("t2-r")
    assert pile(game, "r") == ["QS"] and game.counters["repairs"] == 6
    game.undo()
    assert pile(game, "r") == ["QS<"] and pile(game, "t2") == ["QS>"]
    assert game.counters["repairs"] == 5
    game.undo()
    assert pile(game, "t1") == ["KS", "QS<"]
    game.redo()
    game.redo()
    assert pile(game, "r") == ["QS"] and game.counters["repairs"] == 6
    assert game.counters["redos"] == 2


def test_up_to_128_prior_boards_are_kept() -> None:
    """Up to 128 prior boards are retained."""
    game = board("t1: KH\nt2: KS\nc1: QS", fs="J", fh="Q")
    for step in range(130):
        game.play("c1-c2" if step % 2 == 0 else "c2-c1")
    for _ in range(128):
        game.undo()
    assert game.counters["moves"] == 2
    with pytest.raises(ActionUnavailable) as raised:
        game.undo()
    assert raised.value.code == "nothing_to_undo"


def test_undo_lowers_moves_and_raises_the_undo_count() -> None:
    """Undo reduces displayed moves and increases the undo count."""
    game = engine.new_game("broken-deck", 3)
    game.play(game.legal_moves()[0])
    game.play(game.legal_moves()[0])
    assert game.counters["moves"] == 2 and game.counters["undos"] == 0
    game.undo()
    assert game.counters["moves"] == 1 and game.counters["undos"] == 1


# ---------------------------------------------------------------- difficulty


def test_the_default_difficulty_is_relaxed() -> None:
    """Start with Relaxed."""
    game = engine.new_game("broken-deck")
    assert game.options["difficulty"] == "relaxed"
    assert game.view()["difficulty"] == "relaxed"
    assert game.assists
    with pytest.raises(BadOption):
        engine.new_game("broken-deck", difficulty="expert")


def test_relaxed_and_standard_share_rules_and_assists() -> None:
    """Relaxed and Standard use the same card and repair rules and provide Hint, Undo, Redo, destination highlights and safe automatic finishing.

    The engine's part: identical legal moves and the four assists.  Safe
    automatic finishing is the solver's (``tests/solver``), which relies on
    ``all_repaired``."""
    relaxed = engine.new_game("broken-deck", 11, difficulty="relaxed")
    standard = engine.new_game("broken-deck", 11, difficulty="standard")
    chooser = random.Random(11)
    for _ in range(40):
        assert relaxed.legal_moves() == standard.legal_moves()
        if relaxed.status != engine.PLAYING:
            break
        move = chooser.choice(relaxed.legal_moves())
        relaxed.play(move)
        standard.play(move)
    for difficulty in ("relaxed", "standard"):
        game = engine.new_game("broken-deck", 11, difficulty=difficulty)
        game.play(game.legal_moves()[0])
        assert game.destinations() == [str(m) for m in game.legal_moves()]
        assert game.hint(hint_for_view) is not None
        game.undo()
        game.redo()
        assert game.counters["hints"] == 1 and game.counters["undos"] == 1


def test_challenge_keeps_the_rules_and_disables_the_assists() -> None:
    """Challenge keeps the placement rules but disables those assists, including automatic finishing.

    Automatic finishing is the solver's; the engine refuses the rest."""
    relaxed = engine.new_game("broken-deck", 12)
    challenge = engine.new_game("broken-deck", 12, difficulty="challenge")
    assert relaxed.legal_moves() == challenge.legal_moves()
    challenge.play(challenge.legal_moves()[0])
    assert challenge.destinations() == []
    assert not challenge.can_undo()
    for action in (lambda: challenge.hint(hint_for_view), challenge.undo, challenge.redo):
        with pytest.raises(ActionUnavailable) as raised:
            action()
        assert raised.value.code == "assist_disabled"
    assert challenge.counters["moves"] == 1


def test_changing_difficulty_restarts_the_same_deal() -> None:
    """Change difficulty in Game Options; it restarts the same deal number."""
    game = engine.new_game("broken-deck", 321)
    start = game.position
    game.play(game.legal_moves()[0])
    changed = game.with_options(difficulty="challenge")
    assert changed.deal == 321 and changed.options["difficulty"] == "challenge"
    assert changed.position == start and changed.counters["moves"] == 0
    assert changed.options["practice"] is False


def test_a_red_seven_fits_on_a_black_eight_in_every_mode() -> None:
    """A red 7 still fits on a black 8 in every mode."""
    for difficulty in ("relaxed", "standard", "challenge"):
        game = board(
            """
            t1: KS QS JS TS 9S 8S
            t2: KH QH JH TH 9H 8H 7H
            """,
            difficulty=difficulty,
            fs="7",
            fh="6",
        )
        game.play("t2-t1")
        assert pile(game, "t1")[-1] == "7H"


# ---------------------------------------------------------------- counters and records


def test_there_is_no_score_and_no_clock() -> None:
    """There is no point target or time limit."""
    game = engine.new_game("broken-deck", 4)
    assert "score" not in game.counters
    assert game.score_at(0) is None and game.score_at(86_400) is None
    assert "score=" not in game.to_text()


def test_the_counters_records_are_built_from() -> None:
    """Normal play records repairs, moves, time, hints, undos and wins, with best moves and times per difficulty.

    The engine supplies repairs, moves, hints, undos, the win and the
    difficulty; time and the records themselves belong to the server
    (``tests/server``)."""
    game = board(TORN_QUEEN + "t3: KH\n", difficulty="standard", fs="J", fh="Q")
    game.hint(hint_for_view)
    game.play("t1-r")
    game.undo()
    game.redo()
    game.play("t2-r")
    game.play("r-fs")
    game.play("t1-fs")
    game.play("t3-fh")
    counters = game.counters
    assert {k: counters[k] for k in ("repairs", "moves", "hints", "undos", "foundation")} == {
        "repairs": 6,
        "moves": 5,
        "hints": 1,
        "undos": 1,
        "foundation": 52,
    }
    assert game.status == engine.WON and game.view()["difficulty"] == "standard"


def test_practice_games_are_flagged_for_the_records() -> None:
    """Tutorial practice does not enter these records.

    The engine marks practice games in the view and the notation; the
    server leaves them out of records (``tests/server``)."""
    game = engine.new_game("broken-deck", 8, practice=True)
    assert game.view()["practice"] is True
    assert "practice=true" in game.to_text().splitlines()[0]
    tutorial = board(TORN_QUEEN, practice=True, fs="J")
    assert tutorial.view()["practice"] is True and tutorial.counters["repairs"] == 5


# ---------------------------------------------------------------- finishing


def test_repairing_the_last_king_completes_the_sixth_repair() -> None:
    """Repairing the last King completes the sixth repair."""
    game = board("t1: KS<\nt2: KS>", fs="Q")
    assert game.counters["repairs"] == 5 and not game.all_repaired()
    game.play("t2-r")
    game.play("t1-r")
    assert game.counters["repairs"] == 6 and game.all_repaired()
    assert pile(game, "r") == ["KS"]


def test_the_repaired_king_on_its_queen_finishes_the_foundation() -> None:
    """Placing it on its suit's Queen finishes that foundation."""
    game = board("t1: KS<\nt2: KS>", fs="Q")
    game.play("t1-r")
    game.play("t2-r")
    game.play("r-f")
    assert pile(game, "fs") == [rank + "S" for rank in RANKS]


def test_a_win_requires_six_repairs_and_four_complete_foundations() -> None:
    """A win requires all six repairs and all four complete Ace-to-King foundations."""
    game = board("t1: KS<\nt2: KS>\nt3: KH", fs="Q", fh="Q")
    for move in ("t1-r", "t2-r", "r-fs"):
        game.play(move)
        assert game.status == engine.PLAYING
    game.play("t3-fh")
    assert game.status == engine.WON
    assert game.legal_moves() == []
    with pytest.raises(IllegalMove) as raised:
        game.play("t1-t2")
    assert raised.value.code == "game_over"


# ---------------------------------------------------------------- notation, aliases, bad input


def test_aliases_pick_the_foundation_and_the_first_empty_cell() -> None:
    """``f`` and ``c`` save typing: t3-f and t3-c resolve to the legal pile."""
    game = board("t1: KH\nt2: KS\nc1: QS", fs="J", fh="Q")
    assert str(game.parse_move("t2-c")) == "t2-c2"
    assert str(game.parse_move("c1-f")) == "c1-fs"
    game.play("t1-f")
    assert pile(game, "fh")[-1] == "KH"


def test_bad_moves_get_codes_and_change_nothing() -> None:
    """Input that names no real move is refused with a stable code."""
    game = board("t1: KH\nt2: KS\nc1: QS", fs="J", fh="Q")
    refuse(game, "t3-t4", "empty_source")
    refuse(game, "t1-t1", "same_pile")
    refuse(game, "c1-t3x2", "single_card_only")
    with pytest.raises(BadNotation):
        game.play("draw")
    with pytest.raises(BadNotation):
        game.play("t9-t1")
    for move, code in ((Move("draw"), "no_actions"), (Move("t1", "zz"), "no_such_pile"), (Move("x", "t1"), "no_such_pile"), (Move("t1", "t3", 0), "bad_count"), (Move("t1", "t3", -2), "bad_count")):
        with pytest.raises(IllegalMove) as raised:
            game.play(move)
        assert raised.value.code == code


def test_notation_round_trips_a_deal_in_progress() -> None:
    game = engine.new_game("broken-deck", 17, difficulty="standard")
    for _ in range(5):
        game.play(game.legal_moves()[-1])
    copy = engine.from_text("broken-deck", game.to_text())
    assert copy.position == game.position and copy.counters["moves"] == 5
    assert copy.options == game.options


@pytest.mark.parametrize(
    ("layout", "tops"),
    [
        ("t1: KS KS\nt2: KH", {"fs": "Q", "fh": "Q"}),
        ("t1: KS<\nt2: KH", {"fs": "Q", "fh": "Q"}),
        ("t1: KS< KS\nt2: KS>", {"fs": "Q"}),
        ("t1: [KS]", {"fs": "Q"}),
        ("t1: KS\nr: QS KH", {"fs": "J", "fh": "Q"}),
        ("t1: 2C< 3C< 4C< 5C< 6C< 7C< 8C<\nt2: 2C> 3C> 4C> 5C> 6C> 7C> 8C>\nt3: KC QC JC TC 9C", {"fc": "A"}),
    ],
    ids=["duplicate", "missing card", "half and whole", "face down", "two in slot", "seven torn"],
)
def test_impossible_positions_are_rejected(layout: str, tops: Tops) -> None:
    """A position from notation holds the 52 cards, each whole or torn in two
    matching halves (at most six torn), all face up."""
    with pytest.raises(BadNotation):
        board(layout, **tops)


def test_a_foundation_out_of_order_is_rejected() -> None:
    """Foundations in notation must read Ace upwards, as play builds them."""
    text = board("t1: KS\nt2: QS", fs="J").to_text().replace("fs: AS 2S", "fs: 2S AS")
    with pytest.raises(BadNotation):
        engine.from_text("broken-deck", text)


def test_every_move_is_either_legal_or_refused_with_a_code() -> None:
    """Generation and refusal agree: every move listed plays, and every other
    pile-to-pile move is refused with a specific code, leaving the game as it was."""
    chooser = random.Random(2)
    for deal in (1, 2, 3):
        game = engine.new_game("broken-deck", deal)
        for _ in range(60):
            if game.status != engine.PLAYING:
                break
            legal = set(game.legal_moves())
            for src in game.PILES:
                for dst in game.PILES:
                    for count in (1, 2, 3):
                        move = Move(src, dst, count)
                        if move in legal:
                            continue
                        before = game.position
                        with pytest.raises(IllegalMove) as raised:
                            game.play(move)
                        assert raised.value.code not in ("illegal_move", "engine_error")
                        assert game.position is before
            game.play(chooser.choice(sorted(legal)))
            assert game.census(game.position) == sorted(full_deck())
