"""WordLink positions shared by the engine's, the server's and the
browser's tests: where the game can finish itself, and twin boards whose
face-down stocks differ."""

from __future__ import annotations

HEADER = "klondike deal=1 draw=1 scoring=standard auto_collect={collect} undo_limit=none hint_limit=none"

# Every card face up, the stock and the waste empty: every suit from the
# Nine up waits in four built columns.
ALL_OPEN = """{header}
moves=0 score=0
s:
w:
fs: AS 2S 3S 4S 5S 6S 7S 8S
fh: AH 2H 3H 4H 5H 6H 7H 8H
fd: AD 2D 3D 4D 5D 6D 7D 8D
fc: AC 2C 3C 4C 5C 6C 7C 8C
t1: KC QD JC TD 9C
t2: KD QC JD TC 9D
t3: KS QH JS TH 9S
t4: KH QS JH TS 9H
"""

# The Eight of clubs still face down under the Nine of hearts, which
# auto-collect's safety rule holds back (the clubs are only at the Seven).
ONE_HIDDEN = ALL_OPEN.replace("AC 2C 3C 4C 5C 6C 7C 8C", "AC 2C 3C 4C 5C 6C 7C").replace(
    "t4: KH QS JH TS 9H", "t4: KH QS JH TS\nt5: [8C] 9H"
)

# The Nine of clubs still in the stock.
STOCK_LEFT = ALL_OPEN.replace("s:\n", "s: [9C]\n").replace("t1: KC QD JC TD 9C", "t1: KC QD JC TD")


def position(template: str, auto_collect: bool = False) -> str:
    """``template`` in engine notation, with auto-collect on or off."""
    return template.format(header=HEADER.format(collect=str(auto_collect).lower()))

# Draw 3, every suit home to the Nine, the Tens and Queens face down under
# the Kings and Jacks, two cards in the stock: only drawing is legal.  The
# stock holds the J♣ and the T♣ in either order (bottom card first), so the
# two boards look the same; one draw shows both cards, and the bottom one
# tops the waste, so only with the T♣ at the bottom does it ever play.
STOCK_TWIN = """klondike deal=1 draw=3 scoring=standard auto_collect=false undo_limit=none hint_limit=none
moves=0 score=0
s: [{stock}]
w:
fs: AS 2S 3S 4S 5S 6S 7S 8S 9S
fh: AH 2H 3H 4H 5H 6H 7H 8H 9H
fd: AD 2D 3D 4D 5D 6D 7D 8D 9D
fc: AC 2C 3C 4C 5C 6C 7C 8C 9C
t1: [TS] KH
t2: [TH] KS
t3: [TD] KC
t4: KD
t5: [QS QH] JS
t6: [QD] JH
t7: [QC] JD
"""
DEAD_STOCK = STOCK_TWIN.format(stock="JC TC")
"""The T♣ never tops the waste: a whole cycle offers nothing but drawing."""
LIVE_STOCK = STOCK_TWIN.format(stock="TC JC")
"""The T♣ tops the waste after one draw and plays."""
