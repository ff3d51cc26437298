"""WordLink positions shared by the engine's, the server's and the
browser's tests: where the game can finish itself, and twin boards whose
face-down stocks differ, and a generator of boards like them; and the
rule of a lost game read seeing every card, which the tests hold the
game's status against."""

from __future__ import annotations

from hypothesis import strategies as st

import engine
from engine.cards import make_card, parse_card
from engine.game import Game, Move, Position

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


def lost_seeing_every_card(game: Game, pos: Position) -> bool:
    """WordLink's rule read with every card in view, face-down ones
    included (the status a player must never be shown before the cards
    they saw prove it): draw through the rest of the stock and one whole
    pass more, and look for a move other than drawing on the way."""
    talon = len(pos.piles[game.pile("s")]) + len(pos.piles[game.pile("w")])
    probe = pos
    for _ in range(2 * talon + 2 if talon else 1):
        if any(move.dst for move in game.moves_from(probe)):
            return False
        probe = game.successor(probe, Move("draw"))
    return True


def home(heights: list[int]) -> tuple[tuple[int, ...], ...]:
    """The four foundations, each suit from its Ace up to ``heights[suit]``."""
    return tuple(tuple(make_card(rank, suit) for rank in range(1, height + 1)) for suit, height in enumerate(heights))


BLOCKERS = tuple(parse_card(code) for code in "KH KS KC KD JS JH JD".split())
"""The tops of ``DEAD_STOCK``'s columns: nothing the tableau shows fits
another, so whether the game goes on is the talon's question."""


@st.composite
def blocked_boards(draw: st.DrawFn, draws: tuple[int, ...] = (1, 3)) -> Game:
    """``DEAD_STOCK``'s family, drawing one of ``draws`` cards a tap: each
    suit home to a Five to a Nine, a King or a Jack on top of each column,
    and the other cards shuffled into the talon (split at random between
    the waste and the stock) or face down under the columns' tops.  The
    stock decides such a game, so its status is where a leak would show."""
    game = engine.new_game("klondike", 1, draw=draw(st.sampled_from(draws)))
    heights = draw(st.lists(st.integers(5, 9), min_size=4, max_size=4))
    left = [make_card(rank, suit) for suit, height in enumerate(heights) for rank in range(height + 1, 14)]
    pool = draw(st.permutations([card for card in left if card not in BLOCKERS]))
    places = draw(st.lists(st.integers(0, len(BLOCKERS)), min_size=len(pool), max_size=len(pool)))
    talon = [card for card, place in zip(pool, places) if place == 0]
    waste = draw(st.integers(0, len(talon)))
    columns = [
        (*(card for card, place in zip(pool, places) if place == number), top) for number, top in enumerate(BLOCKERS, 1)
    ]
    piles = (tuple(reversed(talon[waste:])), tuple(talon[:waste]), *home(heights), *columns)
    game.load_position(Position(piles, (len(talon) - waste, 0, 0, 0, 0, 0, *(len(column) - 1 for column in columns))))
    return game
