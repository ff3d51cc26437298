"""What a game keeps between actions equals a fresh computation.

Two things are kept so that the server does not redo them after every
action: WordLink's moves from its columns and foundations (a draw leaves
those piles alone), and every game's view of the piles the last view
showed (a move changes two piles).  Both must be invisible: over random
play with undo, redo, restart and the solver's questions about other
positions in between, the legal moves, the status and the view are
those a game that never kept anything computes for the same position.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.game import Game
from engine.games.klondike import Klondike

PROFILE = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def fresh_copy(game: Game) -> Game:
    """A game of the same deal and options, in ``game``'s position and
    with its memory of face-down cards, that has computed nothing yet."""
    fresh = engine.new_game(game.id, deal=game.deal, **game.options)
    fresh.position = game.position
    if isinstance(game, Klondike) and isinstance(fresh, Klondike):
        fresh._seen_down = game._seen_down
    return fresh


def assert_same_as_fresh(game: Game) -> None:
    fresh = fresh_copy(game)
    assert game.status == fresh.status
    assert game.legal_moves() == fresh.legal_moves()
    assert game.moves_from(game.position) == fresh.moves_from(game.position)
    assert game.view() == fresh.view()


def act(game: Game, choice: int) -> None:
    """One step of random play, chosen by ``choice``: mostly a legal move,
    drawing often, sometimes undo, redo or restart."""
    kind = choice % 12
    moves = game.legal_moves()
    if kind == 0 and game.can_undo():
        game.undo()
    elif kind == 1 and game._future and game.assists:
        game.redo()
    elif kind == 2 or not moves:
        game.restart()
    elif kind < 7 and "draw" in game.ACTIONS and any(not m.dst for m in moves):
        game.play("draw")
    else:
        game.play(moves[choice % len(moves)])


@st.composite
def wordlink_games(draw: st.DrawFn) -> Game:
    return engine.new_game(
        "klondike",
        deal=draw(st.integers(min_value=1, max_value=10_000)),
        draw=draw(st.sampled_from((1, 3))),
        auto_collect=draw(st.booleans()),
    )


@st.composite
def any_games(draw: st.DrawFn) -> Game:
    game_id = draw(st.sampled_from(sorted(engine.GAMES)))
    cls = engine.GAMES[game_id]
    return engine.new_game(game_id, deal=draw(st.integers(min_value=cls.FIRST_DEAL, max_value=min(cls.LAST_DEAL, 10_000))))


CHOICES = st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=150)


@PROFILE
@given(game=wordlink_games(), choices=CHOICES)
def test_wordlink_moves_and_status_equal_a_fresh_computation(game: Game, choices: list[int]) -> None:
    for choice in choices:
        act(game, choice)
        assert_same_as_fresh(game)
        if choice % 3 == 0:
            elsewhere = game.moves_from(game.position)
            if elsewhere:
                after = game.successor(game.position, elsewhere[choice % len(elsewhere)])
                assert game.moves_from(after) == fresh_copy(game).moves_from(after)


@PROFILE
@given(game=any_games(), choices=CHOICES)
def test_every_games_view_equals_a_fresh_one(game: Game, choices: list[int]) -> None:
    for choice in choices:
        act(game, choice)
        assert game.view() == fresh_copy(game).view()
