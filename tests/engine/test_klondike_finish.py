"""WordLink finishes itself (issue 16, item 3): "Once stock and waste are
empty and every card is face up, a Finish button appears; auto-collect
does it on its own.  The server plays it, as Broken Deck's finish does."
"""

from __future__ import annotations

import pytest

import engine
from engine import ActionUnavailable
from engine.game import WON
from engine.solver import auto_finish

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
ONE_HIDDEN = (
    ALL_OPEN.replace("AC 2C 3C 4C 5C 6C 7C 8C", "AC 2C 3C 4C 5C 6C 7C")
    .replace("t4: KH QS JH TS 9H", "t4: KH QS JH TS\nt5: [8C] 9H")
)

# The same cards, but the Nine of clubs still in the stock.
STOCK_LEFT = ALL_OPEN.replace("s:\n", "s: [9C]\n").replace("t1: KC QD JC TD 9C", "t1: KC QD JC TD")


def game(text: str, collect: bool = False) -> engine.Game:
    return engine.from_text("klondike", text.format(header=HEADER.format(collect=str(collect).lower())))


@pytest.mark.parametrize("text", [ONE_HIDDEN, STOCK_LEFT])
def test_finish_waits_until_the_stock_and_waste_are_empty_and_every_card_is_face_up(text: str) -> None:
    waiting = game(text)
    with pytest.raises(ActionUnavailable) as refused:
        waiting.check_finish()
    assert refused.value.code == "finish_not_offered"
    assert auto_finish(waiting) is None


def test_once_every_card_is_open_finish_is_offered_with_a_path_that_wins() -> None:
    open_game = game(ALL_OPEN)
    open_game.check_finish()
    path = auto_finish(open_game)
    assert path is not None
    for move in path:
        open_game.play(str(move))
    assert open_game.status == WON


def test_auto_collect_finishes_the_game_on_its_own_once_every_card_is_open() -> None:
    """Moving the Nine of hearts off the last face-down card opens
    everything: auto-collect's safety rule then lets every card up in turn
    (the lowest card left tops its column, so it is always safe)."""
    collecting = game(ONE_HIDDEN, collect=True)
    collecting.play("t5-t4")
    assert collecting.status == WON
    assert collecting.moves > 20, "the cards went up one auto-collect move each"
