"""Practice positions for server tests (engine notation, see docs/notation.md)."""

from __future__ import annotations

from engine.cards import RANKS


def _run(suit: str, top: str) -> str:
    return " ".join(rank + suit for rank in RANKS[: RANKS.index(top) + 1])


NEARLY_WON_KLONDIKE = f"""klondike deal=1 draw=1 scoring=standard auto_collect=false undo_limit=none hint_limit=none
moves=0 score=0
s: [KD]
w:
fs: {_run("S", "K")}
fh: {_run("H", "K")}
fd: {_run("D", "Q")}
fc: {_run("C", "J")}
t1: [KC] QC
"""
WINNING_MOVES = ("t1-fc", "t1-fc", "draw", "w-fd")

ONE_MOVE_FROM_BLOCKED_KLONDIKE = f"""klondike deal=1 draw=1 scoring=standard auto_collect=false undo_limit=0 hint_limit=none
moves=0 score=0
s:
w:
fs: AS
fh: {_run("H", "J")}
fd: {_run("D", "K")}
fc: {_run("C", "K")}
t1: [KH] 2S
t2: [3S] 4S
t3: [TS] 5S
t4: [JS] 6S
t5: [QS] 7S
t6: [KS] 8S
t7: [QH] 9S
"""
LAST_MOVE_BEFORE_BLOCKED = "t1-fs"

DEAL_1_DRAW_1_WIN = tuple(
    """draw w-fh draw draw draw draw draw draw w-t7 draw w-fc t1-fc t5-t1 t4-t5 draw draw draw w-fd draw w-t1 draw
    draw w-t5 draw draw draw draw draw w-t4 t2-t4 draw draw w-fc t2-fc draw w-t1 t7-t1x2 t7-fh draw w-t2 t3-t2 t3-t2
    t3-fd draw w-t3 draw draw draw draw w-t1 w-t1 draw draw w-t2 t6-t2 draw draw draw draw w-fd draw w-t1 t5-t1x3 t5-t4
    t5-fs t5-fh draw w-fh draw draw draw draw w-fh t6-fh draw w-t5 t6-t5 t6-t7 t6-fc t4-fc t4-fh t7-t4x2 t7-t3 t7-fs
    t1-fs t1-fd t7-t5 t7-fh draw w-fd draw draw w-t6 w-t6 draw w-t5 t4-t5x4 draw w-fs t1-fs t1-fd t1-fc t5-fs t4-fs
    t4-fc t5-fd t1-fd t1-fc t2-fd t2-fc t5-fs t5-fh t1-fh t2-fh t6-fs t5-fs t1-fs t1-fh t6-fd t5-fd t3-fd t5-fs t1-fs
    t5-fh t6-fc t2-fc t2-fd t3-fc""".split()
)
"""A winning line for WordLink deal 1 (draw 1), found by a throwaway depth-first
search and checked by the test that plays it; a certificate, not a claim."""


def _broken_deck(tableau: dict[str, str], foundation_top: str, difficulty: str = "relaxed") -> str:
    columns = "\n".join(f"t{n}: {tableau.get(f't{n}', '')}".rstrip() for n in range(1, 9))
    cells = "\n".join(f"c{n}:" for n in range(1, 5))
    foundations = "\n".join(f"f{suit.lower()}: {_run(suit, foundation_top)}" for suit in "SHDC")
    return f"""broken-deck deal=1 difficulty={difficulty} practice=false
moves=0
{columns}
{cells}
r:
{foundations}
"""


def broken_deck_two_halves_left(difficulty: str = "relaxed") -> str:
    """Queens and Kings left, the Q♠ torn: its halves lie on t1 and t2."""
    tableau = {"t1": "QS<", "t2": "KS QS>", "t3": "KH QH", "t4": "QD", "t5": "KD", "t6": "KC QC"}
    return _broken_deck(tableau, "J", difficulty)


REPAIRS = ("t1-r", "t2-r")
