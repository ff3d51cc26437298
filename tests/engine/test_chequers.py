"""Chequers, rule by rule: each test quotes the rule text's sentence(s) it checks."""

from __future__ import annotations

import random

import pytest

import engine
from engine.cards import CODE, RANK, SUIT, SUITS, full_deck, parse_card
from engine.game import Game, Move, Position
from engine.rng import deal_rng, shuffled
from engine.solver.assist import hint_for_view

UP = {"S": "us", "H": "uh", "D": "ud", "C": "uc"}
DOWN = {"S": "ds", "H": "dh", "D": "dd", "C": "dc"}
FOUNDATIONS = (*UP.values(), *DOWN.values())
TABLEAU = tuple(f"t{i}" for i in range(1, 26))


def board(piles: dict[str, str], up: dict[str, int] | None = None, down: dict[str, int] | None = None) -> Game:
    """A Chequers game at a crafted position.

    ``piles`` names cards bottom to top (``"v"`` is the reserve); the Ace
    foundations hold ``up[suit]`` cards and the King foundations
    ``down[suit]`` (0 when not given).  Each code takes a free copy of that
    card, so ``"7H"`` twice means both sevens of hearts.  Every card left
    over is dealt round robin to the tableau piles not named.
    """
    up, down = up or {}, down or {}
    free: dict[int, list[int]] = {}
    for card in full_deck(2):
        free.setdefault(card & 63, []).append(card)

    def take(key: int) -> str:
        if not free.get(key):
            raise ValueError(f"no copy of {CODE[key]} left")
        return CODE[free[key].pop(0)]

    codes: dict[str, list[str]] = {}
    for suit, letter in enumerate(SUITS):
        codes[UP[letter]] = [take(suit * 16 + rank) for rank in range(1, up.get(letter, 0) + 1)]
        codes[DOWN[letter]] = [take(suit * 16 + rank) for rank in range(13, 13 - down.get(letter, 0), -1)]
    for name, text in piles.items():
        codes[name] = [take(parse_card(code) & 63) for code in text.split()]
    leftover = [CODE[card] for cards in free.values() for card in cards]
    unnamed = [name for name in TABLEAU if name not in piles]
    if leftover and not unnamed:
        raise ValueError(f"{len(leftover)} cards have no place")
    for i, code in enumerate(leftover):
        codes.setdefault(unnamed[i % len(unnamed)], []).append(code)
    game = engine.new_game("chequers")
    built = game.position_from_piles(codes, {"v": max(len(codes.get("v", [])) - 1, 0)})
    game.load_position(built)
    return game


def faces(game: Game, name: str) -> list[str]:
    """A pile's cards bottom to top, the deck mark dropped (the two 7♥ look alike)."""
    return [CODE[card & 63] for card in game.cards_of(game.position, name)]


def refuse(game: Game, text: str, code: str) -> str:
    """Play ``text``, expect the refusal ``code`` and an unchanged game; return the sentence."""
    before = (game.position, game.counters)
    with pytest.raises(engine.IllegalMove) as refused:
        game.play(text)
    assert refused.value.code == code, refused.value.message
    assert (game.position, game.counters) == before
    assert refused.value.message
    return refused.value.message


def legal(game: Game) -> set[str]:
    return {str(move) for move in game.legal_moves()}


# The lost position: every foundation wants a buried card, and no two
# tableau tops are neighbours of the same suit (see test_the_game_is_lost…).
STUCK = {
    "t1": "AS 2S 3S", "t2": "2S 3S", "t3": "4S 5S", "t4": "4S 5S", "t5": "6S 7S",
    "t6": "6S 7S", "t7": "8S 9S", "t8": "8S 9S", "t9": "KS TS QS JS", "t10": "TS QS JS",
    "t11": "AH 2H 3H", "t12": "2H 3H", "t13": "4H 5H", "t14": "4H 5H", "t15": "6H 7H",
    "t16": "6H 7H", "t17": "8H 9H", "t18": "8H 9H", "t19": "KH TH QH JH", "t20": "TH QH JH",
    "t21": "AD 2D 3D 4D 5D", "t22": "JD QD KD 4D 5D", "t23": "6D 7D", "t24": "6D 7D",
    "t25": "TD TD 8D 8D 9D 9D",
}  # fmt: skip
STUCK_UP = {"S": 1, "H": 1, "D": 3, "C": 13}
STUCK_DOWN = {"S": 1, "H": 1, "D": 3, "C": 13}


# ---------------------------------------------------------------- objective


def test_the_game_is_won_when_all_104_cards_are_on_the_eight_foundations() -> None:
    """The primary objective in Chequers Solitaire is to move all 104 cards (using two standard
    52-card decks) to the eight foundation piles—four built up from Ace to King by suit, and four
    built down from King to Ace by suit.
    The game is won when all cards are correctly placed in these foundations.
    Winning Condition: All 104 cards are successfully moved to the eight foundation piles (four
    built up from Ace to King by suit, four built down from King to Ace by suit)."""
    game = board({"t1": "KS"}, up={"S": 12, "H": 13, "D": 13, "C": 13}, down=dict.fromkeys(SUITS, 13))
    assert game.status == "playing"
    assert game.counters["foundation"] == 103
    game.play("t1-f")
    assert game.status == "won"
    assert game.counters["foundation"] == 104
    assert faces(game, "us") == [f"{rank}S" for rank in "A23456789TJQK"]
    assert faces(game, "ds") == [f"{rank}S" for rank in "KQJT98765432A"]
    assert game.legal_moves() == []


# ---------------------------------------------------------------- layout


def test_the_deal_uses_two_full_decks_of_distinct_cards() -> None:
    """Setup & Layout:
    Deck: Two standard 52-card decks (total 104 cards)."""
    game = engine.new_game("chequers", deal=7)
    cards = game.census(game.position)
    assert cards == sorted(full_deck(2))
    assert len({CODE[card] for card in cards}) == 104
    assert sum(CODE[card].endswith("b") for card in cards) == 52


def test_the_tableau_is_25_piles_of_four_face_up_cards_dealt_round_robin() -> None:
    """Tableau: 25 tableau piles, each initially containing four cards dealt face up.
    Play Area Summary:
    Tableau: 25 piles, each with four face-up cards.
    Tableau: The main play area with 25 piles, each holding four face-up cards at the start."""
    game = engine.new_game("chequers", deal=3)
    order = shuffled(full_deck(2), deal_rng("chequers", 3))
    view = game.view()["piles"]
    for i, name in enumerate(TABLEAU):
        assert view[name] == {"down": 0, "up": [CODE[order[i + 25 * row]] for row in range(4)]}


def test_the_reserve_holds_the_last_four_cards_with_only_its_top_visible() -> None:
    """Reserve: One reserve pile, containing the last four cards dealt face down.
    Reserve: One pile with four face-down cards, only the top card accessible.
    Reserve: A single pile of four face-down cards, only the top card accessible for play."""
    game = engine.new_game("chequers", deal=3)
    order = shuffled(full_deck(2), deal_rng("chequers", 3))
    assert game.cards_of(game.position, "v") == tuple(order[100:])
    assert game.view()["piles"]["v"] == {"down": 3, "up": [CODE[order[103]]]}
    assert game.counters["reserve"] == 4
    for move in game.legal_moves():
        if move.src == "v":
            after = game.successor(game.position, move)
            assert game.cards_of(after, move.dst)[-1] == order[103]


def test_the_first_cards_of_deals_1_2_and_3_never_change() -> None:
    """Deals are numbered; the same number is the same layout forever."""
    expected = {
        1: ("4Cb 8H KS TDb", "4C 4H TSb TH", "ACb 7S THb 8Sb"),
        2: ("KCb 4C QC JS", "5Db AC 5D 7Hb", "AH ADb 2D 2H"),
        3: ("JCb 8D AS 6Sb", "7D 5Hb 3Cb JD", "TSb 9H QCb 4Db"),
    }
    for deal, (t1, t2, reserve) in expected.items():
        game = engine.new_game("chequers", deal=deal)
        shown = {name: " ".join(CODE[c] for c in game.cards_of(game.position, name)) for name in ("t1", "t2", "v")}
        assert shown == {"t1": t1, "t2": t2, "v": reserve}


def test_the_eight_foundations_start_empty() -> None:
    """Foundations: Eight foundation piles, initially empty:
    Foundations: Eight piles (four for Aces, four for Kings), all empty at start."""
    game = engine.new_game("chequers", deal=11)
    assert set(FOUNDATIONS) <= set(game.PILES)
    assert all(game.cards_of(game.position, name) == () for name in FOUNDATIONS)
    assert game.counters["foundation"] == 0


# ---------------------------------------------------------------- foundations


def test_ace_foundations_build_up_by_suit_from_ace_to_king() -> None:
    """Four Ace foundations (one per suit), to be built up by suit from Ace to King.
    Ace Foundations: Build up by suit from Ace to King (e.g., Ace♠, 2♠, …, King♠)."""
    game = board({"t1": "2S AS", "t2": "3S", "t3": "AH", "t4": "KS", "t5": "5D"})
    refuse(game, "t2-us", "foundation_order")
    refuse(game, "t4-us", "foundation_order")
    assert "A♥" in refuse(game, "t3-us", "wrong_suit")
    game.play("t1-us")
    message = refuse(game, "t1-uh", "wrong_suit")
    assert "♥" in message and "2♠" in message
    game.play("t1-us")
    game.play("t2-us")
    assert faces(game, "us") == ["AS", "2S", "3S"]


def test_king_foundations_build_down_by_suit_from_king_to_ace() -> None:
    """Four King foundations (one per suit), to be built down by suit from King to Ace.
    King Foundations: Build down by suit from King to Ace (e.g., King♥, Q♥, …, Ace♥)."""
    game = board({"t1": "QH KH", "t2": "JH", "t3": "KS", "t4": "AH", "t5": "5D"})
    refuse(game, "t2-dh", "foundation_order")
    refuse(game, "t4-dh", "foundation_order")
    refuse(game, "t3-dh", "wrong_suit")
    game.play("t1-dh")
    assert "the Q♥" in refuse(game, "t2-dh", "foundation_order")
    game.play("t1-dh")
    game.play("t2-dh")
    assert faces(game, "dh") == ["KH", "QH", "JH"]


def test_foundations_build_by_suit_in_their_own_direction_only() -> None:
    """Foundations: Eight piles where cards are built up or down by suit (four Ace-up, four King-down)."""
    game = board({"t1": "7H", "t2": "5H", "t3": "9H"}, up={"H": 6}, down={"H": 6})
    assert {"t1-uh", "t1-dh"} <= legal(game)
    refuse(game, "t2-uh", "foundation_order")
    refuse(game, "t3-dh", "foundation_order")
    game.play("t1-f")
    assert faces(game, "uh")[-1] == "7H" and faces(game, "dh")[-1] == "8H"


def test_one_foundation_per_suit_in_each_direction() -> None:
    """Each foundation must be started with a unique suit; only one foundation per suit in each direction.
    Foundation Suit Restriction:
    Only one foundation per suit in each direction (Ace-up and King-down)."""
    game = board({"t1": "AS", "t2": "AS", "t3": "KS", "t4": "KS", "t5": "5D"})
    game.play("t1-us")
    for other in ("uh", "ud", "uc"):
        refuse(game, f"t2-{other}", "wrong_suit")
    assert "2♠" in refuse(game, "t2-f", "foundation_order")
    game.play("t3-ds")
    for other in ("dh", "dd", "dc"):
        refuse(game, f"t4-{other}", "wrong_suit")
    refuse(game, "t4-ds", "foundation_order")


def test_cards_never_leave_a_foundation() -> None:
    """Decision: no moves out of foundations (the rule text lists none)."""
    game = board({"t1": "AS", "t2": "2S", "t3": "5D"})
    game.play("t1-us")
    refuse(game, "us-t2", "foundation_is_final")
    refuse(game, "us-t1", "foundation_is_final")


# ---------------------------------------------------------------- moving cards


def test_only_top_cards_of_the_tableau_and_reserve_are_available() -> None:
    """Chequers Solitaire Rules:
    Only the top card of each tableau pile or the reserve is available for play."""
    game = board({"t1": "8C 5H", "t2": "9C", "v": "AS 3S"})
    assert "t1-t2" not in legal(game)
    assert "5♥" in refuse(game, "t1-t2", "not_same_suit")
    assert not any(move.src == "v" and move.dst == "us" for move in game.legal_moves())
    assert "3♠" in refuse(game, "v-us", "foundation_order")
    tops = {name: cards[-1] for name, cards in zip(game.PILES, game.position.piles) if cards}
    for move in game.legal_moves():
        assert game.cards_of(game.successor(game.position, move), move.dst)[-1] == tops[move.src]


def test_a_card_under_the_top_of_a_tableau_pile_cannot_move() -> None:
    """Only the top card of a tableau pile is available to move."""
    game = board({"t1": "2S 9D", "t2": "3S", "t3": "5C"}, up={"S": 1})
    assert not any(move.src == "t1" for move in game.legal_moves() if move.dst in ("us", "t2"))
    refuse(game, "t1-us", "wrong_suit")
    refuse(game, "t1-t2", "not_same_suit")
    refuse(game, "t1-t2x2", "single_card_only")


def test_only_the_reserve_top_is_available() -> None:
    """Only the top card is available for play."""
    game = board({"v": "AS 2S 7D", "t1": "8D", "t2": "3S"})
    assert "v-t1" in legal(game) and not {"v-us", "v-t2"} & legal(game)
    refuse(game, "v-us", "wrong_suit")
    refuse(game, "v-t2", "not_same_suit")
    game.play("v-t1")
    assert game.view()["piles"]["v"] == {"down": 1, "up": [CODE[game.cards_of(game.position, "v")[-1]]]}
    assert faces(game, "v") == ["AS", "2S"]
    refuse(game, "v-us", "foundation_order")


def test_only_one_card_moves_at_a_time() -> None:
    """Only one card may be moved at a time.
    Single Card Movement:
    Only one card may be moved at a time; sequences cannot be moved together."""
    game = board({"t1": "6H 7H", "t2": "8H", "t3": "5D"})
    game.play("t1-t2")
    assert faces(game, "t2") == ["8H", "7H"]
    refuse(game, "t2-t3x2", "single_card_only")
    refuse(game, "t2-t4x2", "single_card_only")
    assert all(move.count == 1 for move in game.legal_moves())
    game.play("t2-t1")
    assert faces(game, "t1") == ["6H", "7H"] and faces(game, "t2") == ["8H"]


def test_the_tableau_builds_up_or_down_by_suit() -> None:
    """Tableau Building:
    Build up or down by suit (e.g., 9♣ onto 8♣ or 10♣)."""
    game = board({"t1": "9C", "t2": "8C", "t3": "TC", "t4": "9H", "t5": "JC", "t6": "8H", "t7": "9C"})
    assert {"t1-t2", "t1-t3", "t7-t2", "t7-t3", "t2-t1", "t3-t1"} <= legal(game)
    refuse(game, "t1-t4", "not_same_suit")
    refuse(game, "t1-t6", "not_same_suit")
    refuse(game, "t1-t5", "not_adjacent_rank")
    refuse(game, "t1-t7", "not_adjacent_rank")
    game.play("t1-t2")
    game.play("t3-t2")
    assert faces(game, "t2") == ["8C", "9C", "TC"]


def test_wrap_around_puts_an_ace_on_a_king_and_a_king_on_an_ace_of_the_same_suit() -> None:
    """Wrap-around is allowed: Ace may be placed on King, and King on Ace, when building in the tableau.
    Wrap-around Building in Tableau:
    Building can "wrap around" in the tableau: Ace may be placed on King, and King on Ace, as long as the suit matches."""
    game = board({"t1": "AD", "t2": "KD", "t3": "KH", "t4": "AH", "t5": "2D", "t6": "QD", "t7": "5C"})
    assert {"t1-t2", "t2-t1", "t3-t4", "t4-t3"} <= legal(game)
    refuse(game, "t1-t3", "not_same_suit")
    refuse(game, "t2-t4", "not_same_suit")
    refuse(game, "t5-t2", "not_adjacent_rank")
    refuse(game, "t6-t1", "not_adjacent_rank")
    game.play("t1-t2")
    assert faces(game, "t2") == ["KD", "AD"]
    refuse(game, "t6-t2", "not_adjacent_rank")
    game.play("t4-t3")
    refuse(game, "t2-t3", "not_same_suit")


def test_the_foundations_do_not_wrap_around() -> None:
    """Decision: wrap-around is for the tableau only; a full Ace foundation takes nothing more."""
    game = board({"t1": "2S AS", "t2": "5D"}, up={"S": 13}, down={"S": 11})
    assert "complete" in refuse(game, "t1-us", "foundation_order")
    refuse(game, "t1-ds", "foundation_order")


# ---------------------------------------------------------------- turns


def test_a_turn_moves_a_top_card_to_a_foundation_or_to_a_tableau_pile() -> None:
    """On each turn, the player may:
    Gameplay: the three kinds of move are the only ones, over whole random games."""
    rng = random.Random(4)
    for deal in (1, 2):
        game = engine.new_game("chequers", deal=deal)
        for _ in range(120):
            moves = game.legal_moves()
            if not moves:
                break
            for move in moves:
                to_foundation = move.dst in FOUNDATIONS
                assert move.src in TABLEAU or (move.src == "v" and (to_foundation or move.dst in TABLEAU))
                assert to_foundation or move.dst in TABLEAU
            game.play(rng.choice(moves))


def test_a_tableau_or_reserve_top_may_go_to_a_foundation() -> None:
    """Move the top card of any tableau pile or the reserve to a foundation, if legal."""
    game = board({"v": "9D AS", "t1": "KH"})
    assert {"v-us", "t1-dh"} <= legal(game)
    game.play("v-f")
    game.play("t1-f")
    assert faces(game, "us") == ["AS"] and faces(game, "dh") == ["KH"]


def test_a_tableau_top_may_go_to_another_tableau_pile() -> None:
    """Move the top card of a tableau pile to another tableau pile, if legal."""
    game = board({"t1": "4S", "t2": "5S", "t3": "5C"})
    game.play("t1-t2")
    assert faces(game, "t2") == ["5S", "4S"]
    refuse(game, "t2-t2", "same_pile")


def test_the_reserve_top_may_go_to_a_tableau_pile() -> None:
    """Move the top card of the reserve to a tableau pile, if legal."""
    game = board({"v": "3C JD", "t1": "QD", "t2": "TD", "t3": "JH"})
    assert {"v-t1", "v-t2"} <= legal(game)
    refuse(game, "v-t3", "not_same_suit")
    game.play("v-t2")
    assert faces(game, "t2") == ["TD", "JD"]
    assert game.counters["reserve"] == 1
    refuse(game, "t1-v", "bad_destination")


# ---------------------------------------------------------------- empty piles


def test_an_emptied_pile_is_refilled_from_the_reserve_within_the_same_move() -> None:
    """Filling Empty Tableau Piles:
    When a tableau pile becomes empty, immediately fill it with the top card from the reserve.
    Special Rules & Edge Cases:
    Always refill an empty tableau pile immediately with the top card of the reserve, if available."""
    game = board({"t1": "2S", "t2": "7H", "t3": "8H", "v": "9D 3H 5C"}, up={"S": 1})
    before = game.position
    game.play("t1-us")
    assert faces(game, "t1") == ["5C"]
    assert faces(game, "v") == ["9D", "3H"]
    assert game.view()["piles"]["v"]["down"] == 1
    assert game.counters["moves"] == 1 and game.counters["reserve"] == 2
    game.play("t2-t3")
    assert faces(game, "t2") == ["3H"] and faces(game, "v") == ["9D"]
    game.undo()
    game.undo()
    assert game.position == before


def test_any_single_card_may_fill_an_empty_pile_once_the_reserve_is_empty() -> None:
    """If the reserve is empty, any single card may be moved to fill an empty tableau pile.
    After the reserve is depleted, any single card (from tableau or reserve) may fill an empty tableau pile."""
    game = board({"t1": "2S", "t2": "5H", "t3": "9C 4D", "t4": "6H", "v": "QC"}, up={"S": 1})
    game.play("t1-us")
    assert faces(game, "t1") == ["QC"] and faces(game, "v") == []
    game.play("t2-t4")
    assert game.cards_of(game.position, "t2") == ()
    tops = [name for name in TABLEAU if game.cards_of(game.position, name)]
    assert len(tops) == 24
    assert {f"{name}-t2" for name in tops} <= legal(game)
    refuse(game, "t3-t2x2", "single_card_only")
    game.play("t1-t2")
    assert faces(game, "t2") == ["QC"] and game.cards_of(game.position, "t1") == ()
    game.play("t3-t1")
    assert faces(game, "t1") == ["4D"] and faces(game, "t3") == ["9C"]


def test_the_reserve_stays_empty_once_emptied() -> None:
    """Reserve:
    Once emptied, the reserve remains empty."""
    game = board({"t1": "2S", "t2": "3S", "v": "QC"}, up={"S": 1})
    game.play("t1-us")
    game.play("t2-us")
    assert faces(game, "v") == [] and game.cards_of(game.position, "t2") == ()
    assert game.counters["reserve"] == 0
    refuse(game, "t1-v", "bad_destination")
    assert not any(move.dst == "v" for move in game.legal_moves())


# ---------------------------------------------------------------- end of play


def test_the_game_is_lost_when_no_legal_move_remains() -> None:
    """No Further Moves:
    If no legal moves remain and not all cards are in the foundations, the game is lost.
    Winning & Losing Conditions:
    Losing/Unwinnable Condition: No legal moves remain and not all cards are in the foundations."""
    game = board({**STUCK, "t25": "8D 8D 9D 9D TD TD"}, up=STUCK_UP, down=STUCK_DOWN)
    assert game.status == "playing"
    assert legal(game) == {"t25-dd"}
    game.play("t25-dd")
    assert game.status == "lost"
    assert game.legal_moves() == []
    assert refuse(game, "t24-t21", "game_over")
    game.undo()
    assert game.status == "playing"


def test_there_is_no_redeal_and_play_ends_when_no_move_remains() -> None:
    """No Redeal:
    There is no redeal or recycling of cards; play continues until no moves remain or all cards are in the foundations."""
    game = engine.new_game("chequers", deal=5)
    assert game.ACTIONS == frozenset()
    for word in ("redeal", "draw", "recycle"):
        with pytest.raises(engine.BadNotation):
            game.parse_move(word)
    stuck = board(STUCK, up=STUCK_UP, down=STUCK_DOWN)
    assert stuck.status == "lost" and stuck.moves_from(stuck.position) == []
    rng = random.Random(9)
    for _ in range(10_000):
        if game.status != "playing":
            break
        game.play(rng.choice(game.legal_moves()))
    assert game.status == "won" and game.counters["foundation"] == 104
    assert game.legal_moves() == []


# ---------------------------------------------------------------- the whole rule set


def allowed(pos: Position, src: str, dst: str) -> bool:
    """The rules read literally, pair by pair, without the engine's index."""
    piles = dict(zip(engine.GAMES["chequers"].PILES, pos.piles))
    if src not in TABLEAU + ("v",) or not piles[src] or src == dst or dst == "v":
        return False
    card = piles[src][-1]
    suit, rank = SUIT[card], RANK[card]
    if dst in FOUNDATIONS:
        letter = SUITS[suit]
        height = len(piles[dst])
        if dst == UP[letter]:
            return rank == height + 1
        return dst == DOWN[letter] and rank == 13 - height
    if not piles[dst]:
        return not piles["v"]
    top = piles[dst][-1]
    return SUIT[top] == suit and {rank, RANK[top]} in ({1, 13},) + tuple({r, r + 1} for r in range(1, 13))


def test_move_generation_matches_the_rules_read_literally() -> None:
    """This ruleset provides a comprehensive and semantically precise guide for playing Chequers
    Solitaire according to the most authoritative available sources.
    Definitions of Key Terms: every pair of piles is checked against the rules above, in play."""
    rng = random.Random(12)
    names = engine.GAMES["chequers"].PILES
    checked = 0
    for deal in (1, 2, 3):
        game = engine.new_game("chequers", deal=deal)
        for step in range(150):
            moves = game.legal_moves()
            if not moves:
                break
            pos = game.position
            expected = {f"{a}-{b}" for a in names for b in names if allowed(pos, a, b)}
            assert legal(game) == expected
            assert len(moves) == len(expected)
            if step % 25 == 0:
                for a in names:
                    for b in names:
                        if f"{a}-{b}" not in expected:
                            with pytest.raises(engine.IllegalMove):
                                game.play(Move(a, b))
                            assert game.position is pos
                            checked += 1
            game.play(rng.choice(moves))
            assert game.census(game.position) == sorted(full_deck(2))
            if game.cards_of(game.position, "v"):
                assert all(game.cards_of(game.position, name) for name in TABLEAU)
    assert checked > 1000


# ---------------------------------------------------------------- helpers and notation


def test_f_names_whichever_foundation_takes_the_card() -> None:
    """Decision: ``f`` resolves to the foundation where the move is legal (the Ace side first)."""
    game = board({"t1": "KD", "t2": "7H", "t3": "5C"}, up={"H": 6}, down={"H": 5})
    assert game.parse_move("t1-f") == Move("t1", "dd")
    assert game.parse_move("t2-f") == Move("t2", "uh")
    assert game.parse_move("t3-f") == Move("t3", "uc")
    assert "A♣" in refuse(game, "t3-f", "foundation_order")


def tap_position() -> Game:
    """The King foundations want 5♥ (on t1) and 3♠ (on t5); the lone A♠ has
    no target but an empty pile; the A♦ covers the 2♦ the King side wants."""
    return board(
        {"t1": "5H", "t2": "AH 3H", "t3": "2H 4H", "t4": "AS", "t5": "2S 3S", "t6": "2D AD"},
        up=dict.fromkeys(SUITS, 13),
        down={"S": 10, "H": 8, "D": 11, "C": 13},
    )


def test_tap_prefers_a_foundation_then_a_pile_then_an_empty_pile() -> None:
    """Decision: the tap helper's order, and it never moves a lone card to an empty pile."""
    game = tap_position()
    assert game.auto_move("t1") == Move("t1", "dh")
    assert game.auto_move("t3") == Move("t3", "t1")
    assert game.auto_move("t4") is None
    assert "t4-t7" in legal(game)
    tapped = game.auto_move("t6")
    assert tapped is not None and game.cards_of(game.position, tapped.dst) == ()
    game.play("t1-dh")
    assert game.auto_move("t3") == Move("t3", "dh")


def test_hints_put_foundation_moves_first_and_never_shuffle_a_lone_card() -> None:
    """Decision: hints rank foundation moves first, then a move that uncovers a card a
    foundation wants; a lone card is never sent to an empty pile."""
    game = tap_position()
    hinted = []
    while (move := game.hint(hint_for_view)) is not None:
        hinted.append(move)
        game.play(move)
    assert game.status == "won"
    assert game.counters["hints"] == len(hinted) == 11
    assert all(move.dst in FOUNDATIONS for move in hinted[:8] + hinted[9:])
    assert hinted[8].src == "t6" and hinted[8].dst in TABLEAU


def test_the_view_shows_only_the_reserve_top() -> None:
    """Decision: the reserve's top card is face up so the player sees what they may play."""
    game = engine.new_game("chequers", deal=4)
    hidden = {CODE[card] for card in game.cards_of(game.position, "v")[:-1]}
    shown = [code for pile in game.view()["piles"].values() for code in pile["up"]]
    assert len(shown) == 101 and not hidden & set(shown)


def test_the_position_notation_round_trips() -> None:
    """Decision: the reserve is written with its hidden cards in brackets."""
    game = engine.new_game("chequers", deal=6)
    game.play(game.legal_moves()[0])
    again = engine.from_text("chequers", game.to_text())
    assert again.position == game.position and again.to_text() == game.to_text()
    assert "v: [" in game.to_text()


def test_impossible_positions_are_refused_when_loaded() -> None:
    """Decision: no tableau pile is ever empty while the reserve could fill it."""
    text = engine.new_game("chequers", deal=1).to_text()
    broken = text.replace("t1: 4Cb 8H KS TDb", "t1:").replace("t2: 4C 4H TSb TH", "t2: 4C 4H TSb TH 4Cb 8H KS TDb")
    with pytest.raises(engine.BadNotation):
        engine.from_text("chequers", broken)
    with pytest.raises(engine.BadNotation):
        engine.from_text("chequers", text.replace("us:", "us: 2S").replace(" 2S ", " ", 1))


def test_the_search_key_ignores_pile_order_and_deck_marks() -> None:
    """Decision: tableau piles, and the two copies of a card, are interchangeable for search."""
    one = board({"t1": "4S", "t2": "9H", "t3": "5C"}, up={"S": 3})
    two = board({"t1": "9H", "t2": "5C", "t3": "4S"}, up={"S": 3})
    assert one.search_key(one.position) == two.search_key(two.position)
    moved = one.successor(one.position, Move("t1", "us"))
    assert one.search_key(moved) != one.search_key(one.position)
    twin = {parse_card("9H"): parse_card("9Hb"), parse_card("9Hb"): parse_card("9H")}
    swapped = Position(tuple(tuple(twin.get(c, c) for c in pile) for pile in one.position.piles), one.position.down)
    assert swapped != one.position
    assert one.search_key(swapped) == one.search_key(one.position)
