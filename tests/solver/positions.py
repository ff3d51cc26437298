"""Crafted positions the solver tests start from, built from card codes.

Each is small enough that the solver's answer is known by hand (and
checked by replaying it through the engine's checked ``play``)."""

from __future__ import annotations

from typing import Any, Iterable

import engine
from engine.cards import RANKS
from engine.game import Game


def play_all(game: Game, moves: Iterable[object]) -> str:
    """Play ``moves`` through the checked entry point; the game's status after."""
    for move in moves:
        game.play(str(move))
    return game.status


def run(suit: str, first: int, last: int, deck: str = "") -> list[str]:
    """Card codes of one suit from rank ``first`` to ``last`` (either way)."""
    step = 1 if last >= first else -1
    return [RANKS[rank - 1] + suit + deck for rank in range(first, last + step, step)]


def crafted(game_id: str, piles: dict[str, list[str]], down: dict[str, int] | None = None, aux: tuple[int, ...] = (), **options: Any) -> Game:
    """A game of ``game_id`` loaded at the position given by ``piles``."""
    game = engine.new_game(game_id, 1, **options)
    position = game.position_from_piles(piles, down or {})
    game.load_position(position._replace(aux=aux or position.aux))
    return game


def klondike_near_win(draw: int = 3) -> Game:
    """Two diamonds and two clubs left: one in the waste, two in the stock,
    a face-down King under a Queen."""
    return crafted(
        "klondike",
        {
            "s": ["KD", "QC"],
            "w": ["JD"],
            "fs": run("S", 1, 13),
            "fh": run("H", 1, 13),
            "fd": run("D", 1, 10),
            "fc": run("C", 1, 11),
            "t1": ["KC", "QD"],
        },
        {"s": 2, "t1": 1},
        draw=draw,
    )


def klondike_hearts_locked(empty_seventh: bool = False) -> Game:
    """The 2♥ lies face down under the 3♥ and every other heart fills the
    columns, so no black Four can ever come down for the 3♥: unwinnable.
    With ``empty_seventh`` the K♥ waits in the waste instead of filling
    t7, and the empty column lets the spades come down (the position is
    winnable until the K♥ fills it)."""
    piles = {
        "s": ["KS", "QS"],
        "fs": run("S", 1, 11),
        "fh": ["AH"],
        "fd": run("D", 1, 13),
        "fc": run("C", 1, 13),
        "t1": ["2H", "3H"],
        "t2": ["4H"],
        "t3": ["5H", "6H"],
        "t4": ["7H", "8H"],
        "t5": ["9H", "TH"],
        "t6": ["JH", "QH"],
    }
    piles["w" if empty_seventh else "t7"] = ["KH"]
    return crafted("klondike", piles, {"s": 2, "t1": 1}, draw=1)


def broken_deck_near_win(**options: Any) -> Game:
    """Queens and Kings left, the Q♠ torn, its halves on two columns."""
    return crafted(
        "broken-deck",
        {
            "t1": ["QS<"],
            "t2": ["KS", "QS>"],
            "t3": ["KH", "QH"],
            "t4": ["QD"],
            "t5": ["KD"],
            "t6": ["KC", "QC"],
            "fs": run("S", 1, 11),
            "fh": run("H", 1, 11),
            "fd": run("D", 1, 11),
            "fc": run("C", 1, 11),
        },
        **options,
    )


def broken_deck_repaired(**options: Any) -> Game:
    """No halves left; every column holds cards in an order that needs a
    free cell or two to finish."""
    return crafted(
        "broken-deck",
        {
            "t1": ["KS", "QH", "QS"],
            "t2": ["KH", "JS"],
            "t3": ["KD", "QC", "JD"],
            "t4": ["KC", "JC", "QD", "JH"],
            "fs": run("S", 1, 10),
            "fh": run("H", 1, 10),
            "fd": run("D", 1, 10),
            "fc": run("C", 1, 10),
        },
        **options,
    )


def chequers_near_win() -> Game:
    """Each suit's Three, Two and Ace left for its King foundation, the
    spades in the wrong order on one pile."""
    piles: dict[str, list[str]] = {}
    for suit in "SHDC":
        piles["u" + suit.lower()] = run(suit, 1, 13)
        piles["d" + suit.lower()] = run(suit, 13, 4, "b")
    piles["t1"] = ["ASb", "3Sb", "2Sb"]
    piles["t2"] = ["3Hb", "2Hb", "AHb"]
    piles["t3"] = ["3Db"]
    piles["t4"] = ["ADb", "2Db"]
    piles["t5"] = ["2Cb", "ACb", "3Cb"]
    return crafted("chequers", piles)


def laras_near_win() -> Game:
    """Twos and Aces left for the King foundations: spades on a pack,
    hearts in the stock, diamonds with the Ace on top of its Two."""
    piles: dict[str, list[str]] = {}
    for suit in "SHDC":
        piles["u" + suit.lower()] = run(suit, 1, 13)
        piles["d" + suit.lower()] = run(suit, 13, 3, "b")
    piles["p5"] = ["ASb", "2Sb"]
    piles["s"] = ["AHb", "2Hb"]
    piles["p7"] = ["2Db", "ADb"]
    piles["p9"] = ["2Cb"]
    piles["p11"] = ["ACb"]
    return crafted("laras-game", piles, {"s": 2}, aux=(0,))


def broken_deck_needs_search(**options: Any) -> Game:
    """Repaired, but the 9♥ lies under the J♠ and the J♣, which no foundation
    takes safely yet: a win needs a few chosen moves, not forced ones."""
    return crafted(
        "broken-deck",
        {
            "t1": ["KS", "QH", "9H", "JS", "JC"],
            "t2": ["KH", "QS", "JH"],
            "t3": ["KD", "QC", "JD", "TH"],
            "t4": ["KC", "QD", "9D"],
            "t5": ["TD"],
            "fs": run("S", 1, 10),
            "fh": run("H", 1, 8),
            "fd": run("D", 1, 8),
            "fc": run("C", 1, 10),
        },
        **options,
    )
