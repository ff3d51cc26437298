"""WordLink positions where the game can finish itself (issue 16, item 3),
shared by the engine's tests and the browser's."""

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
