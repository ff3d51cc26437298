"""WordLink's ``lost``, read from what the player has seen (docs/rules.md).

The rule: lost when, through a whole cycle of the stock, no move other
than drawing and turning the waste over is legal.  The game declares it
only once the cards the player has seen prove it, so a face-down card
never decides a status: two boards that look the same and were played
the same way get the same status and the same legal moves, whatever lies
face down.  The property test below checks the game's answer against a
brute force that knows nothing of how the game computes it: lost exactly
when the rule holds in every deal of the never-seen cards that agrees
with what the player saw.
"""

from __future__ import annotations

from itertools import combinations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.engine.klondike_positions import DEAD_STOCK, LIVE_STOCK, blocked_boards, home, lost_seeing_every_card

import engine
from engine.cards import make_card
from engine.game import Game, Move, Position

DRAW = Move("draw")
STOCK = 0


def faces(pos: Position) -> set[int]:
    return {card for cards, down in zip(pos.piles, pos.down) for card in cards[down:]}


def worlds(pos: Position, seen: set[int]) -> list[Position]:
    """``pos`` and every position that swaps two face-down cards the player
    never saw.  Any deal of the never-seen cards that makes a move come is
    one swap away from ``pos`` (put the card that plays where the cycle
    turns it up), so the rule holds in every deal agreeing with what the
    player saw exactly when it holds in all of these."""
    places = [
        (i, j) for i, (cards, down) in enumerate(zip(pos.piles, pos.down)) for j in range(down) if cards[j] not in seen
    ]
    found = [pos]
    for (a, i), (b, j) in combinations(places, 2):
        piles = [list(cards) for cards in pos.piles]
        piles[a][i], piles[b][j] = piles[b][j], piles[a][i]
        found.append(pos._replace(piles=tuple(tuple(cards) for cards in piles)))
    return found


def certainly_lost(game: Game, seen: set[int]) -> bool:
    return all(lost_seeing_every_card(game, world) for world in worlds(game.position, seen))


def test_the_same_board_with_its_stock_permuted_gets_the_same_status_and_moves() -> None:
    """The attack: the face-down stock decided ``lost`` (the T♣ buried:
    ``lost`` and no legal move; on top: ``playing`` and ``draw``).  Now both
    boards play on until the player has seen the stock."""
    dead, live = engine.from_text("klondike", DEAD_STOCK), engine.from_text("klondike", LIVE_STOCK)
    assert dead.view() == live.view()
    assert dead.position != live.position
    for game in (dead, live):
        assert (game.status, game.legal_moves(), game.counters) == ("playing", [DRAW], live.counters)
        game.play(DRAW)
    assert (dead.view()["piles"]["w"]["up"], live.view()["piles"]["w"]["up"]) == (["TC", "JC"], ["JC", "TC"])
    assert (dead.status, dead.legal_moves()) == ("lost", []), "the J♣ tops the waste every pass: the player knows it"
    assert live.status == "playing" and Move("w", "fc") in live.legal_moves()


def test_a_card_seen_and_put_back_stays_known() -> None:
    """Undo returns the drawn cards to the stock face down, but the player
    saw them: the board is lost where a twin that never drew plays on; a
    restart forgets nothing either; a loaded position knows only its faces."""
    game = engine.from_text("klondike", DEAD_STOCK)
    game.play(DRAW)
    game.undo()
    twin = engine.from_text("klondike", DEAD_STOCK)
    assert game.view() == twin.view() and twin.status == "playing"
    assert (game.status, game.legal_moves()) == ("lost", [])
    game.redo()
    game.restart()
    assert game.status == "lost"
    assert engine.from_text("klondike", game.to_text()).status == "playing"


@st.composite
def endgames(draw: st.DrawFn) -> Game:
    """A WordLink game loaded at a late position: each suit home to a
    random height, the cards left shuffled into the stock, the waste and
    the columns, some of them face down."""
    game = engine.new_game("klondike", 1, draw=draw(st.sampled_from((1, 3))))
    heights = draw(st.lists(st.integers(7, 13), min_size=4, max_size=4))
    left = draw(st.permutations([make_card(rank, suit) for suit, height in enumerate(heights) for rank in range(height + 1, 14)]))
    talon = draw(st.integers(0, len(left)))
    waste = draw(st.integers(0, talon))
    cuts = sorted(draw(st.lists(st.integers(talon, len(left)), min_size=6, max_size=6)))
    columns = [tuple(left[start:end]) for start, end in zip([talon, *cuts], [*cuts, len(left)])]
    piles = (tuple(left[waste:talon]), tuple(left[:waste]), *home(heights), *columns)
    down = (talon - waste, 0, 0, 0, 0, 0, *(draw(st.integers(0, max(len(column) - 1, 0))) for column in columns))
    game.load_position(Position(piles, down))
    return game


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.one_of(blocked_boards(), endgames()), choices=st.lists(st.integers(0, 99), max_size=30))
def test_lost_exactly_when_every_deal_of_the_unseen_cards_is_lost(game: Game, choices: list[int]) -> None:
    """Drawing, moving, undoing and restarting at random, the status is
    ``lost`` exactly when the rule holds in every deal of the never-seen
    cards; and with every card of the stock seen, it is the rule itself."""
    seen = faces(game.position)
    for choice in [0, *choices]:
        if game.status != "won":
            assert (game.status == "lost") == certainly_lost(game, seen)
            if not {*game.position.piles[STOCK]} - seen:
                assert (game.status == "lost") == lost_seeing_every_card(game, game.position)
        legal = game.legal_moves()
        if choice < 10 and game.can_undo():
            game.undo()
        elif choice < 13:
            game.restart()
        elif legal:
            game.play(DRAW if DRAW in legal and choice < 70 else legal[choice % len(legal)])
        seen |= faces(game.position)
