"""Lara's Game: one test per sentence of its rule text, plus refusals,
notation, views, AutoPlay and the deal's pinned vectors.

Positions are built with ``crafted``: the cards named for the packs, the
row and the stock, and every other card on the foundations, as high as the
test says.  The rule text's difficulty line (medium, half the deals won) is a
winnability figure for the solver bench (``bench/solver.py``); no test here
claims it.
"""

from __future__ import annotations

import pytest

import engine
from engine import BadNotation, IllegalMove
from engine.cards import CODE, SUITS, full_deck, make_card, parse_card
from engine.game import Game, Move, Position
from engine.games.laras_game import LarasGame, deal_in_order
from engine.rng import SplitMix64

GAME = "laras-game"
# Thirteen cards that trigger nothing when dealt to packs 1..13 in order:
# none is an Ace or a King, none has its pack's number.
QUIET_ROW = "2S 3S 2H 2D 3H 2C 3D 4S 4H 4D 4C 5S 5H"


def crafted(
    *,
    up: dict[str, int] | None = None,
    down: dict[str, int] | None = None,
    packs: dict[int, str] | None = None,
    row: str = "",
    stock: str = "",
    spread: int = 0,
    autoplay: bool = False,
) -> Game:
    """A game at a made-up position: the named cards where given (bottom
    first), ``up[suit]`` / ``down[suit]`` cards on the foundations (13 unless
    given), each foundation card being a copy that is not named elsewhere."""
    game = engine.new_game(GAME, deal=1, autoplay=autoplay)
    piles = {f"p{number}": codes.split() for number, codes in (packs or {}).items()}
    piles["r"] = row.split()
    piles["s"] = stock.split()
    used = {parse_card(code) for codes in piles.values() for code in codes}

    def free_copy(rank: int, suit: int) -> str:
        card = next(c for c in (make_card(rank, suit), make_card(rank, suit, 1)) if c not in used)
        used.add(card)
        return CODE[card]

    for suit, letter in enumerate(SUITS):
        piles["u" + letter.lower()] = [free_copy(rank, suit) for rank in range(1, (up or {}).get(letter, 13) + 1)]
        height = (down or {}).get(letter, 13)
        piles["d" + letter.lower()] = [free_copy(rank, suit) for rank in range(13, 13 - height, -1)]
    position = game.position_from_piles(piles, {"s": len(piles["s"])})
    game.load_position(Position(position.piles, position.down, (spread,)))
    return game


def pile(game: Game, name: str) -> list[str]:
    return [CODE[card] for card in game.cards_of(game.position, name)]


def legal(game: Game) -> set[str]:
    return {str(move) for move in game.legal_moves()}


def dealt(codes: str) -> dict[str, list[str]]:
    """The non-empty piles after dealing exactly these cards, in this order."""
    position = deal_in_order([parse_card(code) for code in codes.split()])
    return {name: [CODE[c] for c in cards] for name, cards in zip(LarasGame.PILES, position.piles) if cards}


def queens_and_kings_of_spades_spread() -> Game:
    """Spades up to the Ten; J♠ and Q♠ spread from pack 4, K♠ on pack 1,
    A♦–4♦ on pack 2 (diamonds down to the Five)."""
    return crafted(up={"S": 10}, down={"D": 9}, packs={1: "KS", 2: "AD 2D 3D 4D"}, row="QS JS", spread=4)


def order_decides() -> Game:
    """Nothing plays now; the stock's last card is the 6♠.  The 7♠ and the
    7♥ are spread from pack 7; the 6♥ lies under the spades 8–K."""
    return crafted(
        up={"S": 5, "H": 5},
        packs={8: "KH QH JH TH 9H 8H 6H KS QS JS TS 9S 8S"},
        row="7S 7H",
        stock="6S",
        spread=7,
    )


def suit_run(suit: str, ranks: str) -> str:
    """Codes of one suit's cards in the given rank order, bottom first."""
    return " ".join(rank + suit for rank in ranks)


def play_all(game: Game, moves: str) -> None:
    for move in moves.split():
        game.play(move)


# ------------------------------------------------------------ the rule text


def test_two_decks_give_104_distinct_cards() -> None:
    """2 Decks."""
    game = engine.new_game(GAME, deal=5)
    cards = [card for cards in game.position.piles for card in cards]
    assert len(cards) == 104
    assert sorted(cards) == sorted(full_deck(2))
    assert len({CODE[card] for card in cards}) == 104
    assert {"7H", "7Hb"} <= {CODE[card] for card in cards}


def test_the_same_dealt_cards_are_won_or_lost_by_the_order_the_player_sets() -> None:
    """Skill/luck balanced.

    Rearranging the cards in a pile when it is spread out along the bottom
    row is critical for success.

    The deal (luck) gives a position where nothing plays; the order the
    player gives the row before the next click (skill) decides it."""
    left_alone = order_decides()
    play_all(left_alone, "draw r1-us")
    assert pile(left_alone, "p7") == ["7S", "7H"]
    assert left_alone.status == "lost"

    rearranged = order_decides()
    play_all(rearranged, "r1-r2 draw r1-us p7-us")
    play_all(rearranged, "p8-us p8-us p8-us p8-us p8-us p8-us p8-uh p7-uh")
    play_all(rearranged, "p8-uh p8-uh p8-uh p8-uh p8-uh p8-uh")
    assert rearranged.status == "won"


def test_the_game_is_won_when_every_card_is_on_a_foundation() -> None:
    """To move all the cards to the ."""
    game = crafted(up={"S": 12}, packs={13: "KS"})
    assert game.status == "playing"
    assert game.counters["foundation"] == 103
    game.play("p13-us")
    assert game.status == "won"
    assert game.counters["foundation"] == 104
    assert game.legal_moves() == []


def test_up_foundations_build_from_ace_and_down_foundations_from_king() -> None:
    """8 piles (across top) - build left 4 piles from Ace to King, right 4 piles from Kings to
    Aces."""
    game = crafted(
        up={"S": 0},
        down={"H": 0},
        packs={1: "2S", 2: "QH", 3: "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S AS", 4: "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH KH"},
    )
    with pytest.raises(IllegalMove) as refused:
        game.play("p1-us")
    assert refused.value.code == "foundation_order"
    assert "needs an Ace" in refused.value.message
    with pytest.raises(IllegalMove) as refused:
        game.play("p2-dh")
    assert refused.value.code == "foundation_order"
    assert "needs a King" in refused.value.message
    play_all(game, "p3-us p1-us p4-dh p2-dh")
    assert pile(game, "us")[:2] == ["AS", "2S"]
    assert pile(game, "dh")[:2] == ["KH", "QH"]
    assert game.PILES[:8] == ("us", "uh", "ud", "uc", "ds", "dh", "dd", "dc")


def test_each_foundation_takes_only_its_own_suit() -> None:
    """Each group of 4 piles should have a pile of each suit."""
    aces_on_top = crafted(
        up=dict.fromkeys("SHDC", 0), packs={n + 1: suit_run(suit, "KQJT98765432A") for n, suit in enumerate("SHDC")}
    )
    assert legal(aces_on_top) == {"p1-us", "p2-uh", "p3-ud", "p4-uc"}
    with pytest.raises(IllegalMove) as refused:
        aces_on_top.play("p1-uh")
    assert refused.value.code == "wrong_suit"

    kings_on_top = crafted(
        down=dict.fromkeys("SHDC", 0), packs={n + 10: suit_run(suit, "A23456789TJQK") for n, suit in enumerate("SHDC")}
    )
    assert legal(kings_on_top) == {"p10-ds", "p11-dh", "p12-dd", "p13-dc"}


def test_thirteen_numbered_packs_are_dealt() -> None:
    """13 packs (below ) - piles are numbered from 1 to 13."""
    game = engine.new_game(GAME, deal=2)
    packs = [pile(game, f"p{number}") for number in range(1, 14)]
    assert all(6 <= len(cards) <= 8 for cards in packs)
    assert sum(map(len, packs)) + game.counters["stock"] == 104
    with pytest.raises(BadNotation):
        game.parse_move("p14-us")


def test_no_card_goes_onto_a_pack_that_has_cards() -> None:
    """No building."""
    game = crafted(up={"S": 10}, packs={1: "JS", 2: "QS", 3: "KS"})
    for move in ("p2-p1", "p1-p2", "p2-p3"):
        with pytest.raises(IllegalMove) as refused:
            game.play(move)
        assert refused.value.code == "no_building"
    assert legal(game) == {"p1-us", "p1-p11", "p2-p12", "p3-p13"}


def test_only_the_top_card_of_a_pack_plays_to_a_foundation() -> None:
    """Top card is available for play on the ."""
    game = crafted(up={"S": 10}, packs={1: "JS QS", 2: "KS"})
    assert legal(game) == {"p1-p12", "p2-p13"}
    with pytest.raises(IllegalMove) as refused:
        game.play("p1-us")
    assert refused.value.code == "foundation_order"
    game.play("p1-p12")
    assert "p1-us" in legal(game)


def test_an_empty_pack_takes_only_a_card_of_its_number() -> None:
    """Empty piles can be filled only by a card of the same as the number of the pile."""
    game = queens_and_kings_of_spades_spread()
    assert legal(game) == {"p1-p13", "p2-dd", "r1-p12", "r2-us", "r2-p11", "r1-r2", "r2-r1"}
    refusals = {"r1-p11": "pack_number", "p1-p12": "pack_number", "r1-p4": "pack_spread", "p2-p4": "pack_spread"}
    for move, code in refusals.items():
        with pytest.raises(IllegalMove) as refused:
            game.play(move)
        assert refused.value.code == code
    game.play("r1-p12")
    assert pile(game, "p12") == ["QS"]
    game.play("r1-us")
    assert game.view()["spread"] == 0, "the row is empty, so pack 4 is no longer spread"
    game.play("p2-p4")
    assert pile(game, "p4") == ["4D"]


def test_clicking_the_face_down_stock_turns_its_top_card() -> None:
    """(bottom left, face down) - clicking turns over the top card."""
    game = engine.new_game(GAME, deal=1)
    assert game.view()["piles"]["s"] == {"down": 22, "up": []}
    top = pile(game, "s")[-1]
    game.play("draw")
    assert pile(game, "r")[-1] == top == "4Hb"
    assert game.view()["piles"]["s"] == {"down": 21, "up": []}


def test_the_pack_of_the_turned_cards_rank_is_spread() -> None:
    """The pile corresponding to the of this card is spread out at the bottom of the screen."""
    game = engine.new_game(GAME, deal=1)
    pack_four = pile(game, "p4")
    game.play("draw")
    assert game.view()["spread"] == 4
    assert pile(game, "p4") == []
    assert pile(game, "r") == pack_four + ["4Hb"]


def test_every_spread_card_and_the_turned_card_play_in_any_order() -> None:
    """All the cards in that pile become available for play on the , including the top card of
    the , which is placed in position to become the top card of the pile."""
    game = crafted(up={"S": 10}, down={"H": 10}, packs={12: "JS 3H"}, stock="AH 2H KS QS")
    game.play("draw")
    assert pile(game, "r") == ["JS", "3H", "QS"]
    assert {"r1-us", "r2-dh"} <= legal(game)
    play_all(game, "r2-dh r1-us r1-us")
    assert pile(game, "us")[-2:] == ["JS", "QS"]


def test_spread_cards_can_be_rearranged() -> None:
    """The order of the cards can be changed (the cards may be rearranged in the bottom row)."""
    game = crafted(up={"S": 10}, row="JS QS KS", spread=6)
    rearrangements = {m for m in legal(game) if m.startswith("r") and "-r" in m}
    assert rearrangements == {f"r{i}-r{j}" for i in range(1, 4) for j in range(1, 4) if i != j}
    game.play("r3-r1")
    assert pile(game, "r") == ["KS", "JS", "QS"]
    game.play("r1-r2")
    assert pile(game, "r") == ["JS", "KS", "QS"]
    game.play("r2-r3")
    assert pile(game, "r") == ["JS", "QS", "KS"]


def test_the_rightmost_spread_card_returns_on_top() -> None:
    """The farther to the right a card is, the closer to the top of the pile it will become."""
    game = crafted(up={"S": 10}, row="KS JS", stock="QS", spread=6)
    game.play("r2-r1")
    game.play("draw")
    assert pile(game, "p6") == ["JS", "KS"]
    with pytest.raises(IllegalMove):
        game.play("p6-us")


def test_clicking_again_returns_the_row_in_order_and_spreads_the_next_pack() -> None:
    """When all possible plays have been made, clicking on the again picks up all of the
    remaining cards, returns them in the same order to the pile, and then the next card in the
    is turned over and the process repeats."""
    game = crafted(up={"S": 10, "H": 12}, packs={11: "KH"}, row="QS KS", stock="JS", spread=6)
    game.play("draw")
    assert pile(game, "p6") == ["QS", "KS"]
    assert pile(game, "r") == ["KH", "JS"]
    assert game.view()["spread"] == 11
    assert game.counters["stock"] == 0


def test_there_is_no_redeal_when_the_stock_is_empty() -> None:
    """When the is empty there is no ."""
    game = crafted(up={"S": 10}, row="QS JS KS", spread=6)
    before = game.to_text()
    with pytest.raises(IllegalMove) as refused:
        game.play("draw")
    assert refused.value.code == "stock_empty"
    assert game.to_text() == before
    play_all(game, "r2-us r1-us r1-us")
    assert game.status == "won"


def test_the_deal_gives_cards_in_sequence_to_the_13_packs() -> None:
    """The Initial Deal - The 2 decks are dealt as follows: the cards are dealt in sequence to
    the 13 packs."""
    piles = dealt(QUIET_ROW)
    assert [piles[f"p{n}"] for n in range(1, 14)] == [[code] for code in QUIET_ROW.split()]
    assert "s" not in piles


def test_a_card_on_the_pack_of_its_number_sends_the_next_to_the_stock() -> None:
    """If the card dealt to a pile is of the same as the number of the pile (for example, a
    Three on the 3rd pile), then the next card to deal is dealt face down to the , and the deal
    continues."""
    assert dealt("2S 4S 3H 9C 5S") == {"p1": ["2S"], "p2": ["4S"], "p3": ["3H"], "s": ["9C"], "p4": ["5S"]}


def test_an_ace_or_a_king_sends_the_next_card_to_the_stock() -> None:
    """If the card dealt is an Ace or a King, then the next card to deal is dealt face down to
    the , and the deal continues."""
    piles = dealt("2S AH 9C 5S KD 8C 6S")
    assert piles == {"p1": ["2S"], "p2": ["AH"], "p3": ["5S"], "p4": ["KD"], "p5": ["6S"], "s": ["9C", "8C"]}


def test_the_end_of_the_row_of_packs_sends_a_card_to_the_stock() -> None:
    """When the deal reaches the end of the 13 piles, then a card is dealt face down to the ,
    and the deal continues with the first pile again."""
    piles = dealt(QUIET_ROW + " 6S 7S 8S")
    assert piles["s"] == ["6S"]
    assert piles["p1"] == ["2S", "7S"]
    assert piles["p2"] == ["3S", "8S"]


def test_the_rules_add_up_for_an_ace_on_pack_1_and_a_king_on_pack_13() -> None:
    """Note that if an Ace is dealt to the first pile, two cards are dealt face down to the ,
    and if a King is dealt to the 13th pile, 3 cards are dealt face down to the ."""
    assert dealt("AS 9C 8C 5S") == {"p1": ["AS"], "s": ["9C", "8C"], "p2": ["5S"]}
    last_twelve = QUIET_ROW.rsplit(" ", 1)[0]
    piles = dealt(last_twelve + " KS 9C 8C 7C 6D")
    assert piles["p13"] == ["KS"]
    assert piles["s"] == ["9C", "8C", "7C"]
    assert piles["p1"] == ["2S", "6D"]
    assert dealt("AS 9C") == {"p1": ["AS"], "s": ["9C"]}, "the deal stops when the cards run out"


def test_the_stock_size_varies_from_deal_to_deal() -> None:
    """The therefore will contain a variable number of cards from game to game."""
    sizes = {engine.new_game(GAME, deal=deal).counters["stock"] for deal in range(1, 21)}
    assert len(sizes) > 1
    assert all(6 <= size <= 40 for size in sizes)


def test_rearranging_unplayable_cards_puts_the_needed_one_on_top() -> None:
    """Even if you can't immediately play a card, it pays to rearrange the cards so that the
    cards that will be needed first will be at the top of the pile."""
    game = order_decides()
    assert legal(game) == {"draw", "r1-r2", "r2-r1"}
    play_all(game, "r1-r2 draw r1-us")
    assert pile(game, "p7") == ["7H", "7S"]
    assert "p7-us" in legal(game)


def test_play_alternates_plays_and_clicks_until_the_game_is_won() -> None:
    """Play consists of playing all cards that are available to the , then clicking on the to
    make more cards available based on the of the cards in the ."""
    game = crafted(up={"S": 10}, down={"H": 10}, packs={12: "JS 3H"}, stock="AH 2H KS QS")
    assert legal(game) == {"p12-dh", "p12-p3", "draw"}, "the stock may be clicked while plays remain"
    play_all(game, "draw r2-dh r1-us r1-us draw")
    assert game.view()["spread"] == 13
    play_all(game, "r1-us draw r1-dh draw r1-dh")
    assert game.status == "won"


# ----------------------------------------------------------------- refusals


REFUSALS = [
    ("draw", "stock_empty"),
    ("p1-usx2", "single_card_only"),
    ("r3-us", "no_such_spread_card"),
    ("r1-r3", "no_such_spread_card"),
    ("r1-r1", "same_place"),
    ("s-us", "stock_not_playable"),
    ("us-p5", "foundation_final"),
    ("p4-us", "pack_spread"),
    ("p5-us", "empty_source"),
    ("p1-r1", "not_into_spread"),
    ("p1-uh", "wrong_suit"),
    ("p2-ud", "foundation_full"),
    ("p1-us", "foundation_order"),
    ("r1-s", "bad_destination"),
    ("r1-r", "bad_destination"),
    ("p1-p1", "same_pile"),
    ("p1-p2", "no_building"),
    ("r2-p4", "pack_spread"),
    ("r2-p5", "pack_number"),
]


@pytest.mark.parametrize(("text", "code"), REFUSALS, ids=[case[1] + ":" + case[0] for case in REFUSALS])
def test_an_illegal_move_is_refused_with_its_reason_and_changes_nothing(text: str, code: str) -> None:
    game = queens_and_kings_of_spades_spread()
    move = Move.from_text(text) if text == "r1-r" else game.parse_move(text)
    before, counters = game.to_text(), game.counters
    with pytest.raises(IllegalMove) as refused:
        game.play(move)
    assert refused.value.code == code
    assert refused.value.message[0].islower() and "None" not in refused.value.message
    assert game.to_text() == before
    assert game.counters == counters


def test_moves_that_no_parser_makes_are_refused_too() -> None:
    game = queens_and_kings_of_spades_spread()
    refusals = {Move("shuffle"): "unknown_action", Move("p1", "zz"): "unknown_pile", Move("r", "us"): "spread_card_unnamed"}
    for move, code in refusals.items():
        with pytest.raises(IllegalMove) as refused:
            game.play(move)
        assert refused.value.code == code


def test_no_spread_card_can_move_while_no_pack_is_spread() -> None:
    game = engine.new_game(GAME, deal=1)
    with pytest.raises(IllegalMove) as refused:
        game.play("r1-us")
    assert refused.value.code == "no_spread"


def test_a_finished_game_refuses_every_move() -> None:
    game = crafted(up={"S": 12}, packs={13: "KS"})
    game.play("p13-us")
    with pytest.raises(IllegalMove) as refused:
        game.play("draw")
    assert refused.value.code == "game_over"


# ----------------------------------------------------------------- notation


@pytest.mark.parametrize("text", ["r-us", "us-r", "r0-us", "r28-us", "p14-us", "f-p1", "shuffle", "", "p1 - us"])
def test_text_that_is_not_a_move_is_bad_notation(text: str) -> None:
    with pytest.raises(BadNotation):
        queens_and_kings_of_spades_spread().parse_move(text)


def test_move_notation_round_trips_and_f_finds_the_foundation() -> None:
    game = queens_and_kings_of_spades_spread()
    for move in game.legal_moves():
        assert game.parse_move(str(move)) == move
    assert game.parse_move("R27-P1") == Move("r27", "p1")
    assert str(game.parse_move("r2-f")) == "r2-us"
    assert str(game.parse_move("p2-f")) == "p2-dd"


def test_position_notation_round_trips_with_a_spread_open() -> None:
    game = engine.new_game(GAME, deal=3)
    play_all(game, "draw r1-r2")
    copy = engine.from_text(GAME, game.to_text())
    assert copy.position == game.position
    assert "spread=" in game.to_text().splitlines()[1]


IMPOSSIBLE = {
    "a row with no spread": [("spread=4", "spread=0")],
    "no pack 14": [("spread=4", "spread=14")],
    "a foundation out of order": [("us: AS 2S", "us: 2S AS")],
    "a face-down pack card": [("p1: KS", "p1: [KS]")],
    "a spread pack that holds cards": [("p4:\n", "p4: QS\n"), ("r: QS JS", "r: JS")],
}


@pytest.mark.parametrize("edits", IMPOSSIBLE.values(), ids=IMPOSSIBLE.keys())
def test_impossible_positions_are_refused(edits: list[tuple[str, str]]) -> None:
    text = queens_and_kings_of_spades_spread().to_text()
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    with pytest.raises(BadNotation):
        engine.from_text(GAME, text)


def test_deals_are_pinned() -> None:
    expected = {
        1: ("5H 2Db 4Db 3Hb QS 2C 9H", 22, "4Hb"),
        2: ("QHb 3C 2C JCb 6D 8C KHb", 21, "JSb"),
        3: ("AHb 3H TCb 8Cb 3Hb 7Hb JSb", 22, "4Db"),
    }
    for deal, (first_pack, stock_size, stock_top) in expected.items():
        game = engine.new_game(GAME, deal=deal)
        assert " ".join(pile(game, "p1")) == first_pack
        assert game.counters["stock"] == stock_size
        assert pile(game, "s")[-1] == stock_top
    assert pile(engine.new_game(GAME, deal=3), "s")[:2] == ["TS", "3D"], "the Ace on pack 1 sent these two"


# ----------------------------------------------------------------- view, status, assists


def test_the_view_hides_the_stock_and_shows_the_spread() -> None:
    game = engine.new_game(GAME, deal=1)
    old = game.view()
    game.play("draw")
    new = game.view()
    hidden = set(pile(game, "s"))
    shown = {code for view in (old, new) for p in view["piles"].values() for code in p["up"]}
    ops = engine.diff(old, new)
    assert not hidden & shown
    assert not hidden & {code for op in ops for code in op.get("add", [])}
    assert engine.apply_diff(old, ops) == new
    assert new["spread"] == 4 and new["piles"]["r"]["up"][-1] == "4Hb"


def test_the_game_is_lost_when_only_rearranging_remains() -> None:
    game = order_decides()
    play_all(game, "draw r1-us")
    assert game.status == "lost"
    assert game.legal_moves() == []
    six_of_spades_buried = "KH QH JH TH 9H 8H 6H 6S KS QS JS TS 9S 8S"
    blocked = crafted(up={"S": 5, "H": 5}, packs={8: six_of_spades_buried}, row="7S 7H", spread=7)
    assert blocked.status == "lost"
    assert {str(m) for m in blocked.moves_from(blocked.position)} == {"r1-r2", "r2-r1"}


def test_counters_count_foundation_and_stock_cards() -> None:
    game = crafted(up={"S": 10}, down={"H": 10}, packs={12: "JS 3H"}, stock="AH 2H KS QS")
    assert game.counters == {"moves": 0, "undos": 0, "redos": 0, "hints": 0, "foundation": 98, "stock": 4}
    play_all(game, "p12-dh draw")
    assert game.counters["foundation"] == 99 and game.counters["stock"] == 3 and game.counters["moves"] == 2


def test_autoplay_plays_a_card_whose_twin_is_on_the_other_foundation() -> None:
    game = crafted(
        up={"S": 11, "H": 6},
        down={"H": 6},
        packs={2: "QS", 3: "7Hb 7H", 5: "AH 2H 3H 4H 5H 6H", 6: "KH QH JH TH 9H 8H", 13: "KS"},
        autoplay=True,
    )
    game.play("p2-us")
    assert pile(game, "us")[-1] == "KS", "the K♠'s twin is on the down foundation"
    assert pile(game, "p3") == ["7Hb", "7H"], "both heart foundations want a 7: the player chooses"
    game.undo()
    assert pile(game, "p13") == ["KS"] and pile(game, "p2") == ["QS"], "one undo takes the autoplay back too"
    game.redo()
    game.play("p3-uh")
    assert pile(game, "dh")[6] == "7Hb", "the 7♥ went up, so its twin can only go down"
    assert game.moves == 2 + 1 + 13
    assert game.status == "won"


def test_autoplay_plays_a_spread_card_whose_twin_is_on_the_other_foundation() -> None:
    game = crafted(
        up={"S": 10}, down={"S": 2}, packs={2: "JS"}, row="QS 5S", stock="AS 2S 3S 4S 6S 7S 8S 9S TS JSb KS", spread=4,
        autoplay=True,
    )
    game.play("p2-us")
    assert pile(game, "us")[-2:] == ["JS", "QS"], "the Q♠'s twin is on the down foundation"
    assert pile(game, "r") == ["5S"]


def test_autoplay_is_off_unless_chosen() -> None:
    game = crafted(up={"S": 11}, packs={2: "QS", 13: "KS"})
    game.play("p2-us")
    assert pile(game, "p13") == ["KS"]
    with pytest.raises(engine.BadOption):
        engine.new_game(GAME, autoplay="yes")


def test_the_tap_helper_prefers_a_foundation_then_an_empty_pack() -> None:
    game = queens_and_kings_of_spades_spread()
    assert str(game.auto_move("r2")) == "r2-us"
    assert str(game.auto_move("r1")) == "r1-p12"
    assert str(game.auto_move("p1")) == "p1-p13"
    assert game.auto_move("r3") is None
    with pytest.raises(BadNotation):
        game.auto_move("zz")
    meeting = crafted(up={"H": 6}, down={"H": 6}, packs={3: "7Hb 7H", 5: "AH 2H 3H 4H 5H 6H", 6: "KH QH JH TH 9H 8H"})
    assert str(meeting.auto_move("p3")) == "p3-uh"


def test_the_heuristic_hint_suggests_a_foundation_play_before_the_stock() -> None:
    """The fallback when the solver finds no win within the hint budget."""
    game = crafted(up={"S": 10}, down={"H": 10}, packs={12: "JS 3H"}, stock="AH 2H KS QS")
    assert str(game.suggest()) == "p12-dh"
    only_rearranging_or_draw = order_decides()
    assert str(only_rearranging_or_draw.suggest()) == "draw"


def test_random_play_keeps_the_cards_and_undo_restores_the_position() -> None:
    rng = SplitMix64(2)
    for deal in (1, 2, 3):
        game = engine.new_game(GAME, deal=deal, autoplay=deal == 2)
        census = game.census(game.position)
        for _ in range(150):
            moves = game.legal_moves()
            if not moves:
                break
            before = game.position
            game.play(moves[rng.below(len(moves))])
            assert game.census(game.position) == census
            assert engine.from_text(GAME, game.to_text()).position == game.position
            game.undo()
            assert game.position == before
            game.redo()
