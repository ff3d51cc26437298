"""Each forced move and pruning rule of the sound domains fires where its
docstring says, and only there; the deals that the old
draw-3 waste forcing called unwinnable are won, and their lines replay;
analysis says ``certain`` only of a proven loss.

Why each rule loses no win is argued in its module's docstring; that the
rules together never change a verdict is checked in ``test_soundness``.
"""

from __future__ import annotations

import pytest

import engine
from engine.cards import RANKS, SUITS
from engine.game import Game, Move, Position
from engine.games.klondike import STOCK, TABLEAU, WASTE
from engine.solver import WON, analyse, solve
from engine.solver.analysis import LOST_AT, STILL_WINNABLE, WON_GAME
from engine.solver.broken_deck import BrokenDeckDomain
from engine.solver.compiled import PURE_ENV
from engine.solver.chequers import ChequersDomain
from engine.solver.klondike import KlondikeDomain
from engine.solver.laras_game import LarasGameDomain
from tests.solver.positions import crafted, klondike_hearts_locked, play_all, run


@pytest.mark.parametrize("deal", [1, 99, 429])
def test_draw_three_deals_once_called_unwinnable_are_won_and_replay(deal: int) -> None:
    """At the default budget, as ``arena solve`` asks (it answered
    "unwinnable" for these before waste cards stopped being forced)."""
    game = engine.new_game("klondike", deal, draw=3)
    found = solve(game)
    assert found.result == WON
    assert play_all(engine.new_game("klondike", deal, draw=3), found.moves) == "won"


def with_pointer(pos: Position, talon: tuple[int, ...], pointer: int) -> Position:
    """``pos`` with its talon split at ``pointer`` (the waste before it)."""
    piles = list(pos.piles)
    down = list(pos.down)
    piles[WASTE] = talon[:pointer]
    piles[STOCK] = talon[pointer:][::-1]
    down[STOCK] = len(piles[STOCK])
    return Position(tuple(piles), tuple(down), pos.aux)


def klondike_with(piles: dict[str, list[str]], down: dict[str, int] | None = None, draw: int = 1) -> Game:
    """A WordLink position: ``piles`` as given, every other card face down
    in the stock (so that only the given cards decide)."""
    used = {code for codes in piles.values() for code in codes}
    rest = [rank + suit for suit in SUITS for rank in RANKS if rank + suit not in used]
    given = {**piles, "s": rest + piles.get("s", [])}
    return crafted("klondike", given, {**(down or {}), "s": len(given["s"])}, draw=draw)


def test_wordlink_forces_a_waste_card_in_draw_one_only() -> None:
    for bold in (False, True):
        draw_one = klondike_with({"w": ["AH"], "t1": ["KS"]}, draw=1)
        draw_three = klondike_with({"w": ["AH"], "t1": ["KS"]}, draw=3)
        assert KlondikeDomain(draw_one, bold=bold).forced_move(draw_one.position) == Move("w", "fh")
        assert KlondikeDomain(draw_three, bold=bold).forced_move(draw_three.position) is None


def test_wordlink_forces_low_cards_from_a_column_whatever_else_is_home() -> None:
    game = klondike_with({"t1": ["AD"], "t2": ["2D"]}, draw=3)
    domain = KlondikeDomain(game)
    first = domain.forced_move(game.position)
    assert first == Move("t1", "fd")
    assert domain.forced_move(game.successor(game.position, first)) == Move("t2", "fd")


def red_five_up(hearts: int) -> Game:
    """The 5♦ alone on a column, diamonds and both black suits home to 4,
    hearts to ``hearts``: only the own colour's other foundation decides."""
    return klondike_with(
        {"fs": run("S", 1, 4), "fh": run("H", 1, hearts), "fd": run("D", 1, 4), "fc": run("C", 1, 4), "t1": ["5D"]}
    )


def test_wordlink_sound_domain_asks_rank_minus_two_of_the_own_colour() -> None:
    proven, unproven = red_five_up(3), red_five_up(2)
    assert KlondikeDomain(proven).forced_move(proven.position) == Move("t1", "fd")
    assert KlondikeDomain(unproven).forced_move(unproven.position) is None
    assert KlondikeDomain(unproven, bold=True).forced_move(unproven.position) == Move("t1", "fd")


def test_wordlink_never_moves_a_whole_king_column_to_an_empty_one() -> None:
    game = klondike_with({"t1": ["KD", "QS"], "t2": ["8H"], "t3": ["8C"], "t4": ["8D"], "t5": ["8S"], "t6": ["9H"]})
    domain = KlondikeDomain(game)
    whole_column = Move("t1", "t7", 2)
    assert whole_column in game.moves_from(game.position)
    assert all(step.moves[0] != whole_column for step in domain.steps(game.position))
    assert domain.key(game.successor(game.position, whole_column)) == domain.key(game.position)


def test_wordlink_key_merges_only_pointers_that_reach_the_same_cards() -> None:
    game = engine.new_game("klondike", 5, draw=3)
    domain = KlondikeDomain(game)
    start = game.position
    talon = start.piles[WASTE] + start.piles[STOCK][::-1]
    assert domain.key(with_pointer(start, talon, 3)) == domain.key(start)
    assert domain.key(with_pointer(start, talon, len(talon))) == domain.key(start)
    assert domain.key(with_pointer(start, talon, 2)) != domain.key(start)


def test_wordlink_key_takes_the_columns_as_a_set_with_their_face_down_counts() -> None:
    """Columns are interchangeable, so their order is no part of the key;
    a face-down count is (the same cards, fewer of them hidden, is another
    position), and so are the cards on a column."""
    game = klondike_with({"t1": ["KD", "QS"], "t2": ["8H"], "t3": ["9C"]})
    domain = KlondikeDomain(game)
    start = game.position
    piles, down = list(start.piles), list(start.down)
    first, second = TABLEAU[0], TABLEAU[1]
    piles[first], piles[second] = piles[second], piles[first]
    down[first], down[second] = down[second], down[first]
    assert domain.key(Position(tuple(piles), tuple(down))) == domain.key(start)
    hidden = list(start.down)
    hidden[first] = 1
    assert domain.key(Position(start.piles, tuple(hidden))) != domain.key(start)
    moved = game.successor(start, Move("t2", "t3"))
    assert domain.key(moved) != domain.key(start)


def test_wordlink_sound_key_is_blind_to_which_face_up_twin_holds_a_run() -> None:
    """The J♠ on the Q♥ or on the Q♦ (both face up): one key in the sound
    domain (the module docstring says why they are equally far from a
    win), two in the bold one; the cards under each twin still count."""
    on_hearts = klondike_with({"t1": ["4C", "KS", "QH", "JS"], "t2": ["KC", "QD"]}, {"t1": 1})
    on_diamonds = klondike_with({"t1": ["4C", "KS", "QH"], "t2": ["KC", "QD", "JS"]}, {"t1": 1})
    other_base = klondike_with({"t1": ["KS", "QH", "JS"], "t2": ["4C", "KC", "QD"]}, {"t2": 1})
    sound, bold = KlondikeDomain(on_hearts), KlondikeDomain(on_hearts, bold=True)
    assert sound.key(on_diamonds.position) == sound.key(on_hearts.position)
    assert bold.key(on_diamonds.position) != bold.key(on_hearts.position)
    assert sound.key(other_base.position) != sound.key(on_hearts.position)


def test_wordlink_twin_step_sends_a_covered_twin_home() -> None:
    """The Q♥ is due home under the J♠ while the Q♦ is a column's top:
    the J♠ onto the Q♦, then the Q♥ home, is one sound step (the position
    with the runs swapped has one key with this one and the Q♥ on top)."""
    game = klondike_with({"fh": run("H", 1, 11), "t1": ["KS", "QH", "JS"], "t2": ["KC", "QD"]})
    twin_step = (Move("t1", "t2"), Move("t1", "fh"))
    assert any(step.moves[:2] == twin_step for step in KlondikeDomain(game).steps(game.position))
    assert not any(step.moves[:2] == twin_step for step in KlondikeDomain(game, bold=True).steps(game.position))


def broken_deck_torn(torn: tuple[str, ...]) -> Game:
    """The kings left, each King in ``torn`` torn with its left half in the
    slot (the first) or on a column, its right half exposed."""
    piles: dict[str, list[str]] = {f"f{s.lower()}": run(s, 1, 12) for s in "SHDC"}
    column = 1
    for index, suit in enumerate("SHDC"):
        code = "K" + suit
        if code in torn:
            left = "r" if index == 0 else f"t{column + 4}"
            piles.setdefault(left, []).append(code + "<")
            piles[f"t{column}"] = [code + ">"]
        else:
            piles[f"t{column}"] = [code]
        column += 1
    return crafted("broken-deck", piles)


def test_broken_deck_sound_domain_completes_only_the_last_repair() -> None:
    last = broken_deck_torn(("KS",))
    two = broken_deck_torn(("KS", "KH"))
    assert BrokenDeckDomain(last).forced_move(last.position) == Move("t1", "r")
    assert BrokenDeckDomain(two).forced_move(two.position) != Move("t1", "r")
    assert BrokenDeckDomain(two, bold=True).forced_move(two.position) == Move("t1", "r")


def broken_deck_five(opposite: int) -> Game:
    """The 5♦ exposed, diamonds at 4, both black foundations at
    ``opposite`` (hearts full)."""
    piles = {
        "fs": run("S", 1, opposite),
        "fh": run("H", 1, 13),
        "fd": run("D", 1, 4),
        "fc": run("C", 1, opposite),
        "t1": run("D", 13, 6) + ["5D"],
        "t2": run("S", 13, opposite + 1),
        "t3": run("C", 13, opposite + 1),
    }
    return crafted("broken-deck", piles)


def test_broken_deck_sends_a_card_home_once_the_other_colour_is_at_rank_minus_one() -> None:
    safe, unsafe = broken_deck_five(4), broken_deck_five(3)
    assert BrokenDeckDomain(safe).forced_move(safe.position) == Move("t1", "fd")
    assert BrokenDeckDomain(unsafe).forced_move(unsafe.position) != Move("t1", "fd")


def test_broken_deck_never_moves_a_whole_card_between_cells() -> None:
    piles = {f"f{s.lower()}": run(s, 1, 11) for s in "SHDC"}
    piles.update({"c1": ["QS"], "t1": ["KS", "QH"], "t2": ["KH"], "t3": ["KD", "QC"], "t4": ["KC", "QD"]})
    game = crafted("broken-deck", piles)
    assert Move("c1", "c2") in game.moves_from(game.position)
    firsts = [step.moves[0] for step in BrokenDeckDomain(game).steps(game.position)]
    assert firsts and not [move for move in firsts if move.src[0] == move.dst[0] == "c"]


def chequers_spades_left(left: list[str]) -> Game:
    """Every suit home but the spades in ``left`` (second deck), which lie
    on piles of their own; the spade foundations hold the rest."""
    piles: dict[str, list[str]] = {}
    for suit in "HDC":
        piles["u" + suit.lower()] = run(suit, 1, 13)
        piles["d" + suit.lower()] = run(suit, 13, 1, "b")
    piles["us"] = run("S", 1, 13)
    piles["ds"] = run("S", 13, len(left) + 1, "b")
    for number, code in enumerate(left, start=1):
        piles[f"t{number}"] = [code]
    return crafted("chequers", piles)


def test_chequers_sound_domain_forces_the_last_card_of_a_suit_only() -> None:
    last = chequers_spades_left(["ASb"])
    two = chequers_spades_left(["ASb", "2Sb"])
    assert ChequersDomain(last).forced_move(last.position) == Move("t1", "ds")
    assert ChequersDomain(two).forced_move(two.position) is None
    assert ChequersDomain(two, bold=True).forced_move(two.position) == Move("t2", "ds")


def test_laras_game_forces_a_card_whose_twin_is_on_the_other_foundation() -> None:
    piles: dict[str, list[str]] = {}
    for suit in "SHDC":
        piles["u" + suit.lower()] = run(suit, 1, 13)
        piles["d" + suit.lower()] = run(suit, 13, 3, "b")
    piles["p1"] = ["ASb", "2Sb"]
    piles["p2"] = ["AHb", "2Hb", "2Db", "ADb", "2Cb", "ACb"]
    game = crafted("laras-game", piles, aux=(0,))
    domain = LarasGameDomain(game)
    assert domain.forced_move(game.position) == Move("p1", "ds")
    both_want_it = crafted("laras-game", {**piles, "us": ["AS"], "p3": run("S", 13, 2)}, aux=(0,))
    assert LarasGameDomain(both_want_it).forced_move(both_want_it.position) is None


def test_analysis_claims_no_certainty_where_nothing_was_lost() -> None:
    """Deal 1 in draw 3 with no move played: the old solver called the
    deal lost from the start, ``certain``; it can be won."""
    untouched = analyse("klondike", 1, {"draw": 3}, [])
    assert (untouched.verdict, untouched.certain) == (STILL_WINNABLE, False)
    line = [str(move) for move in solve(engine.new_game("klondike", 1, draw=3)).moves]
    won = analyse("klondike", 1, {"draw": 3}, line)
    assert (won.verdict, won.certain) == (WON_GAME, False)


def test_analysis_is_certain_only_with_a_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    """The K♥ into the only empty column loses: proven with a budget that
    exhausts the position after it, not with one that cannot (in pure
    Python: compiled, a 3-node budget grants the proof search
    ``COMPILED_SOUND_FACTOR`` times as many, which prove this loss)."""
    game = klondike_hearts_locked(empty_seventh=True)
    line = ["draw", "draw", "draw", "draw", "w-t7", "draw"]
    proven = analyse("klondike", 1, game.options, line, 20_000, start=game.position)
    monkeypatch.setenv(PURE_ENV, "1")
    starved = analyse("klondike", 1, game.options, line, 3, start=game.position)
    assert (proven.verdict, proven.losing_move, proven.certain) == (LOST_AT, "w-t7", True)
    assert not starved.certain
