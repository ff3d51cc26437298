"""WordLink (Klondike), rule by rule: each test quotes the rule text's sentence it checks."""

from __future__ import annotations

from typing import TypedDict

import pytest

import engine
from engine.cards import CODE, RANK, SUIT, SUITS, full_deck, parse_card
from engine.solver.assist import hint_for_view

FOUNDATION = {"S": "fs", "H": "fh", "D": "fd", "C": "fc"}


def position(
    tableau: dict[str, str] | None = None,
    stock: str = "",
    waste: str = "",
    header: str = "klondike deal=1 draw=1 scoring=standard auto_collect=false undo_limit=none hint_limit=none",
    state: str = "moves=0 score=0",
) -> engine.Game:
    """A WordLink game at a crafted position.

    Of the cards not named in ``tableau``, ``stock`` or ``waste``, each
    suit's Ace-up run goes to its foundation and any other card to the
    bottom of the stock (face down, under the named stock cards).
    """
    tableau = tableau or {}
    named = " ".join([stock, waste, *tableau.values()]).replace("[", " ").replace("]", " ").split()
    used = {parse_card(code) for code in named}
    rest = [c for c in full_deck() if c not in used]
    foundation_lines, filler = [], []
    for suit_index, letter in enumerate(SUITS):
        cards = sorted((c for c in rest if SUIT[c] == suit_index), key=lambda c: RANK[c])
        run = 0
        while run < len(cards) and RANK[cards[run]] == run + 1:
            run += 1
        foundation_lines.append(f"{FOUNDATION[letter]}: " + " ".join(CODE[c] for c in cards[:run]))
        filler += [CODE[c] for c in cards[run:]]
    stock_cards = " ".join(filler + stock.split())
    lines = [header, state, f"s: [{stock_cards}]" if stock_cards else "s:", f"w: {waste}", *foundation_lines]
    for i in range(1, 8):
        lines.append(f"t{i}: {tableau.get(f't{i}', '')}")
    return engine.from_text("klondike", "\n".join(lines))


class PileView(TypedDict):
    """A pile as the player's view shows it: face-down cards only counted."""

    down: int
    up: list[str]


def pile(game: engine.Game, name: str) -> PileView:
    shown: PileView = game.view()["piles"][name]
    return shown


# ---------------------------------------------------------------- the game


def test_wordlink_is_a_single_player_game_registered_as_klondike() -> None:
    """WordLink is a classic single-player card game."""
    game = engine.new_game("klondike")
    assert engine.GAMES["klondike"].title == "WordLink"
    assert len(game.census(game.position)) == 52


def test_moving_the_last_card_to_its_foundation_wins() -> None:
    """The goal is to move all 52 cards to the foundation piles, sorted by suit in ascending order.
    Build four piles in the foundation area (top-left), each containing only one suit, arranged in
    ascending order from Ace to King. Collect all 52 cards to win.
    Collect all 52 cards into the 4 foundation piles (one for each suit).
    All cards must be arranged in ascending order from Ace to King within their respective suits."""
    game = position({"t1": "KS"})
    assert game.status == "playing"
    game.play("t1-fs")
    assert game.status == "won"
    assert game.counters["foundation"] == 52
    assert [len(pile(game, f)["up"]) for f in FOUNDATION.values()] == [13, 13, 13, 13]


# ---------------------------------------------------------------- layout


def test_the_deal_has_seven_columns_of_one_to_seven_cards_and_a_stock_of_24() -> None:
    """7 Tableau Piles: 7 columns from left to right.
    Column 1 has 1 card, column 2 has 2 cards... column 7 has 7 cards — 28 cards total in the tableau.
    Only the top card of each column is face up; the rest are face down.
    Stock Pile: The remaining 24 cards are placed in the stock pile."""
    view = engine.new_game("klondike", deal=12).view()["piles"]
    for i in range(1, 8):
        assert view[f"t{i}"]["down"] == i - 1
        assert len(view[f"t{i}"]["up"]) == 1
    assert view["s"] == {"down": 24, "up": []}


def test_the_four_foundations_start_empty() -> None:
    """Foundation (Top-Left): 4 empty slots for collecting cards by suit, in ascending order from Ace (lowest) to King (highest)."""
    view = engine.new_game("klondike", deal=12).view()["piles"]
    assert [view[f] for f in ("fs", "fh", "fd", "fc")] == [{"down": 0, "up": []}] * 4


def test_first_cards_of_deals_are_pinned() -> None:
    """Deals are our documented SplitMix64 shuffle: these values must never change."""
    pinned = {
        1: ["2C", "7H", "QC", "4D", "KS", "9D", "TH"],
        2: ["KD", "2S", "8C", "6C", "JS", "6D", "4H"],
        3: ["3C", "2C", "KD", "6C", "AD", "2H", "2D"],
        1000: ["QC", "QD", "9H", "7H", "3S", "3H", "2C"],
    }
    for deal, tops in pinned.items():
        piles = engine.new_game("klondike", deal=deal).view()["piles"]
        assert [piles[f"t{i}"]["up"][0] for i in range(1, 8)] == tops


# ---------------------------------------------------------------- foundations


def test_foundations_take_an_ace_first_then_the_next_rank_of_the_same_suit() -> None:
    """Cards must be placed in the foundation by same suit, in ascending order from Ace to King.
    Ace is the lowest card, King is the highest.
    Each foundation pile starts with an Ace and ends with a King."""
    game = position({"t1": "AH", "t2": "2H", "t3": "3H", "t4": "2S"}, stock="4H 5H 6H 7H 8H 9H TH JH QH KH 3S 4S 5S 6S 7S 8S 9S TS JS QS KS")
    with pytest.raises(engine.IllegalMove) as refused:
        game.play("t2-fh")
    assert refused.value.code == "foundation_order"
    with pytest.raises(engine.IllegalMove) as refused:
        game.play("t4-fh")
    assert refused.value.code == "wrong_suit"
    game.play("t1-fh")
    game.play("t2-fh")
    assert pile(game, "fh")["up"] == ["AH", "2H"]


# ---------------------------------------------------------------- tableau


def test_tableau_builds_down_only() -> None:
    """Cards in the tableau must be arranged in descending order (from King down to Ace)."""
    game = position({"t1": "8S", "t2": "9H", "t3": "7H"})
    with pytest.raises(engine.IllegalMove) as refused:
        game.play("t2-t1")
    assert refused.value.code == "not_descending"
    game.play("t3-t1")
    assert pile(game, "t1")["up"] == ["8S", "7H"]


def test_tableau_colours_alternate() -> None:
    """Card colors must alternate between red and black (Hearts/Diamonds are red; Spades/Clubs are black)."""
    game = position({"t1": "8S", "t2": "7C", "t3": "7D"})
    before = game.to_text()
    with pytest.raises(engine.IllegalMove) as refused:
        game.play("t2-t1")
    assert refused.value.code == "not_alternating"
    assert game.to_text() == before
    game.play("t3-t1")


def test_black_king_red_queen_black_jack() -> None:
    """Example: A black King can have a red Queen placed on it, which can then have a black Jack placed on it, and so on."""
    game = position({"t1": "KS", "t2": "QD", "t3": "JC", "t4": "TH"})
    for move in ("t2-t1", "t3-t1", "t4-t1"):
        game.play(move)
    assert pile(game, "t1")["up"] == ["KS", "QD", "JC", "TH"]


def test_only_a_king_or_a_king_run_fills_an_empty_column() -> None:
    """Only a King (or a sequence beginning with a King) can be placed into an empty tableau column."""
    game = position({"t1": "[2C] KS QD", "t2": "QH", "t3": "5C"})
    with pytest.raises(engine.IllegalMove) as refused:
        game.play("t2-t4")
    assert refused.value.code == "empty_column_needs_king"
    game.play("t1-t4x2")
    assert pile(game, "t4")["up"] == ["KS", "QD"]


def test_removing_the_top_face_up_card_flips_the_card_below() -> None:
    """When the top face-up card of a tableau column is removed, the face-down card underneath is automatically flipped face-up."""
    game = position({"t1": "[9C 4D] 7H", "t2": "8S"})
    game.play("t1-t2")
    assert pile(game, "t1") == {"down": 1, "up": ["4D"]}


# ---------------------------------------------------------------- stock


def test_tapping_the_stock_draws_one_card() -> None:
    """Tap the stock to draw cards.
    Tap the stock pile to draw cards."""
    game = position({"t1": "KS"}, stock="4H 5H 6H")
    stock_before = pile(game, "s")["down"]
    game.play("draw")
    assert pile(game, "w")["up"] == ["6H"]
    assert pile(game, "s")["down"] == stock_before - 1


@pytest.mark.parametrize(("draw", "waste"), [(1, ["QS"]), (3, ["QS", "JS", "TS"])])
def test_draw_one_or_three_is_an_option(draw: int, waste: list[str]) -> None:
    """You can choose to draw 1 card or 3 cards at a time in the settings.
    Draw 1 card or 3 cards at a time"""
    header = f"klondike deal=1 draw={draw} scoring=standard auto_collect=false undo_limit=none hint_limit=none"
    game = position({"t1": "KS"}, stock="8S 9S TS JS QS", header=header)
    game.play("draw")
    assert pile(game, "w")["up"] == waste
    with pytest.raises(engine.BadOption):
        engine.new_game("klondike", draw=2)


def test_an_empty_stock_turns_the_waste_over_without_limit() -> None:
    """When all cards in the stock have been drawn, tap the stock again to restart the cycle.
    The number of cycles is unlimited."""
    game = position({"t1": "KS"}, stock="JH QH KH")
    start = pile(game, "s")
    for _ in range(50):
        for _ in range(3):
            game.play("draw")
        assert pile(game, "s") == {"down": 0, "up": []}
        game.play("draw")
        assert pile(game, "s") == start
        assert pile(game, "w")["up"] == []


# ---------------------------------------------------------------- tap helper


def test_tap_moves_a_card_to_the_best_place() -> None:
    """Tap a card in the stock or tableau to automatically move it to the best possible location."""
    game = position({"t1": "8S", "t2": "AS", "t3": "7D", "t4": "8C", "t5": "6H", "t6": "6D"}, waste="7H")
    assert str(game.auto_move("w")) == "w-t1", "a column with cards beats an empty column"
    assert game.auto_move("t3") == engine.Move("t3", "t1")
    assert game.auto_move("t2") == engine.Move("t2", "fs"), "the foundation comes first"


def test_tap_with_no_legal_move_does_nothing() -> None:
    """If no legal move exists, nothing happens."""
    game = position({"t1": "8S", "t2": "6H", "t3": "5H"})
    before = game.to_text()
    assert game.auto_move("t2") is None
    assert game.to_text() == before


def test_tapping_the_top_of_a_run_moves_the_whole_run() -> None:
    """Tap the topmost card of a sequence to move the entire sequence between tableau columns (must follow alternating colors and descending order rules)."""
    game = position({"t1": "[2C] 9S 8H 7C", "t2": "TD", "t3": "9C 8D 7S"})
    move = game.auto_move("t1", 3)
    assert move == engine.Move("t1", "t2", 3)
    game.play(move)
    assert pile(game, "t2")["up"] == ["TD", "9S", "8H", "7C"]
    assert pile(game, "t1") == {"down": 0, "up": ["2C"]}
    game2 = position({"t1": "9S 8H 8C", "t2": "TD"})
    with pytest.raises(engine.IllegalMove) as refused:
        game2.play("t1-t2x3")
    assert refused.value.code == "not_a_sequence"


# ---------------------------------------------------------------- modes


def test_random_deals_differ_and_each_replays_without_limit() -> None:
    """Randomly shuffled deck each game; unlimited replays"""
    layouts = {engine.new_game("klondike", deal=n).to_text() for n in range(1, 30)}
    assert len(layouts) == 29
    game = engine.new_game("klondike", deal=5)
    first = game.to_text()
    for _ in range(20):
        game.play(game.legal_moves()[0])
        game.restart()
        assert game.to_text() == first


# ---------------------------------------------------------------- scoring


def test_standard_scoring_foundation_plus_ten_and_minus_twenty_back() -> None:
    """Move card to foundation: +10 points
    Remove card from foundation: -20 points"""
    game = position({"t1": "AS", "t2": "2H"})
    game.play("t1-fs")
    assert game.score == 10
    game2 = position({"t1": "3S", "t2": "3H"})
    game2.play("fh-t1")
    assert game2.score == -20


def test_standard_scoring_flip_or_waste_to_tableau_plus_five() -> None:
    """Flip / Move a card: +5 points"""
    game = position({"t1": "[9C 4D] 7H", "t2": "8S", "t3": "KC"}, waste="QH")
    game.play("t1-t2")
    assert game.score == 5
    game.play("w-t3")
    assert game.score == 10
    game.play("t3-t4x2")
    assert game.score == 10


def test_standard_scoring_loses_five_points_a_minute() -> None:
    """Time penalty: -5 points per minute elapsed"""
    game = position({"t1": "AS", "t2": "2H"})
    game.play("t1-fs")
    assert game.score_at(59) == 10
    assert game.score_at(60) == 5
    assert game.score_at(185) == -5


def test_each_hint_costs_five_points() -> None:
    """Using auto-hint: -5 points"""
    game = position({"t1": "AS", "t2": "2H"})
    hint = game.hint(hint_for_view)
    assert hint == engine.Move("t1", "fs")
    assert game.counters["hints"] == 1
    assert game.score_at(0) == -5


def test_vegas_pays_five_per_foundation_card() -> None:
    """+5 points for each card moved to foundation, accumulated as total earnings"""
    header = "klondike deal=1 draw=1 scoring=vegas auto_collect=false undo_limit=none hint_limit=none"
    game = position({"t1": "AS", "t2": "2S", "t3": "3H"}, header=header)
    game.play("t1-fs")
    game.play("t2-fs")
    assert game.score == 10
    game.play("fs-t3")
    assert game.score == 5, "a card taken back gives its 5 back: earnings are 5 per card on the foundations"
    assert game.score_at(600) == 5, "Vegas has no time penalty"
    game.hint(hint_for_view)
    assert game.score_at(0) == 5, "Vegas charges nothing for hints"


def test_auto_collect_moves_only_safe_cards() -> None:
    """Automatically collect eligible cards to the foundation"""
    header = "klondike deal=1 draw=1 scoring=standard auto_collect=true undo_limit=none hint_limit=none"
    game = position({"t1": "[4H] 3S", "t2": "4C", "t3": "2S", "t5": "3H", "t6": "[3D] 9S", "t7": "3C"}, header=header)
    assert [pile(game, f)["up"][-1] for f in ("fs", "fh", "fd", "fc")] == ["AS", "2H", "2D", "2C"]
    game.play("t3-fs")
    tops = [pile(game, f)["up"][-1] for f in ("fs", "fh", "fd", "fc")]
    assert tops == ["3S", "4H", "2D", "3C"], "3S, 3H, 3C, then 4H (both black 3s up) collect by themselves"
    assert "t2-fc" in game.destinations(), "4C could go up..."
    assert pile(game, "t2")["up"] == ["4C"], "...but the red 3D, still face down, may need it: not safe"
    assert game.moves == 5
    game.undo()
    assert pile(game, "t3")["up"] == ["2S"], "one undo takes back the move and everything it collected"


# ---------------------------------------------------------------- undo, hint, replay


def test_undo_goes_back_one_move_within_its_budget() -> None:
    """Undo: Go back to the previous move.
    Starts with 2 free uses; more can be earned by watching ads."""
    game = engine.new_game("klondike", deal=4, undo_limit=2)
    for _ in range(3):
        game.play("draw")
    game.undo()
    game.undo()
    assert game.counters["undos"] == 2
    with pytest.raises(engine.ActionUnavailable) as refused:
        game.undo()
    assert refused.value.code == "undo_limit"
    unlimited = engine.new_game("klondike", deal=4)
    unlimited.play("draw")
    unlimited.undo()
    assert unlimited.position == engine.new_game("klondike", deal=4).position


def test_hint_points_at_a_movable_card_within_its_budget() -> None:
    """Hint: Tap the hint button to highlight a movable card.
    Hints can be earned by watching ads."""
    game = position({"t1": "AS", "t2": "2H"}, header="klondike deal=1 draw=1 scoring=standard auto_collect=false undo_limit=none hint_limit=1")
    assert game.hint(hint_for_view) in game.legal_moves()
    with pytest.raises(engine.ActionUnavailable) as refused:
        game.hint(hint_for_view)
    assert refused.value.code == "hint_limit"


def test_replay_restarts_the_same_deal() -> None:
    """Replay: Restart the current deal from the beginning."""
    game = engine.new_game("klondike", deal=9, draw=3)
    start = game.to_text()
    game.play("draw")
    game.restart()
    assert game.to_text() == start


# ---------------------------------------------------------------- losing


def test_blocked_when_a_whole_stock_cycle_offers_nothing_but_drawing() -> None:
    """The rule: lost when, through a whole cycle of the stock, no move other than drawing and
    recycling is legal; declared once the cards the player has seen prove it (docs/rules.md)."""
    columns = {"t1": "[TS] KH", "t2": "[TH] KS", "t3": "[TD] KC", "t5": "[QS QH] JS", "t6": "[QD] JH", "t7": "[QC] JD"}
    blocked = position({**columns, "t4": "[TC] KD"}, stock="JC")
    assert blocked.status == "playing", "the stock's card is still face down: for all the player knows, it is the TC"
    blocked.play("draw")
    assert blocked.status == "lost"
    assert blocked.legal_moves() == []
    alive = position({**columns, "t4": "[JC] KD"}, stock="TC")
    alive.play("draw")
    assert alive.status == "playing", "TC turns up in the cycle and fits its foundation"
