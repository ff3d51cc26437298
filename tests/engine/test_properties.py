"""Invariants of every registered game, checked over random legal play.

Hypothesis chooses the game, the deal and, at every step, which legal
move (or undo / redo / hint) comes next, so a failure shrinks to a short
replayable script.  What must hold after every step:

- cards are conserved (``census`` never changes);
- ``undo`` after ``play`` restores the exact position and the counters
  that belong to it (moves, score), and only raises the undo count;
- the position notation and the move notation round-trip;
- no view and no diff ever contains a face-down card;
- ``apply_diff(old_view, diff(old_view, new_view)) == new_view``;
- ``finish_offered`` answers as ``check_finish`` does.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.cards import CODE
from engine.game import Game
from engine.options import SAFE_INTEGER

GAME_IDS = sorted(engine.GAMES)

PROFILE = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def face_down_codes(game: Game) -> set[str]:
    pos = game.position
    return {CODE[c] for cards, down in zip(pos.piles, pos.down) for c in cards[:down]}


def visible_codes(data: object) -> set[str]:
    """Every string anywhere in a JSON-like value (views hold card codes as strings)."""
    found: set[str] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return found


def check_finish_passes(game: Game) -> bool:
    try:
        game.check_finish()
    except engine.EngineError:
        return False
    return True


def assert_hides_face_down(game: Game, data: object) -> None:
    leaked = face_down_codes(game) & visible_codes(data)
    assert not leaked, f"face-down cards visible: {sorted(leaked)}"


@st.composite
def games(draw: st.DrawFn) -> Game:
    game_id = draw(st.sampled_from(GAME_IDS))
    cls = engine.GAMES[game_id]
    deal = draw(st.integers(min_value=cls.FIRST_DEAL, max_value=min(cls.LAST_DEAL, 10_000)))
    return engine.new_game(game_id, deal=deal)


@PROFILE
@given(game=games(), choices=st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=120))
def test_random_play_keeps_every_invariant(game: Game, choices: list[int]) -> None:
    census = game.census(game.position)
    view = game.view()
    assert_hides_face_down(game, view)
    for choice in choices:
        moves = game.legal_moves()
        kind = choice % 10
        if kind == 0 and game.can_undo():
            game.undo()
        elif kind == 1 and game._future:
            game.redo()
        elif moves:
            move = moves[choice % len(moves)]
            assert game.parse_move(str(move)) == move
            before = (game.position, game.moves, game.score, game.undos)
            game.play(move)
            if choice % 7 == 0 and game.can_undo():
                game.undo()
                assert (game.position, game.moves, game.score) == before[:3]
                assert game.undos == before[3] + 1
                game.redo()
        else:
            break
        assert game.census(game.position) == census
        assert game.finish_offered() == check_finish_passes(game)
        new_view = game.view()
        ops = engine.diff(view, new_view)
        assert_hides_face_down(game, new_view)
        assert_hides_face_down(game, ops)
        assert engine.apply_diff(view, ops) == new_view
        json.dumps(new_view)
        view = new_view
    text = game.to_text()
    again = engine.from_text(game.id, text)
    assert again.to_text() == text
    assert again.position == game.position


@PROFILE
@given(game=games(), steps=st.integers(min_value=1, max_value=60), seed=st.integers(min_value=0, max_value=2**32))
def test_undo_all_the_way_back_restores_the_deal(game: Game, steps: int, seed: int) -> None:
    start = game.position
    played = 0
    for step in range(steps):
        moves = game.legal_moves()
        if not moves:
            break
        game.play(moves[(seed + step * 7919) % len(moves)])
        played += 1
    limit = game.HISTORY_LIMIT or played
    for _ in range(min(played, limit)):
        game.undo()
    if played <= limit:
        assert game.position == start
        assert game.moves == 0


@PROFILE
@given(game=games(), seed=st.integers(min_value=0, max_value=2**32))
def test_illegal_moves_change_nothing(game: Game, seed: int) -> None:
    """Every pile pair that is not a legal move is refused with a code and leaves the game as it was."""
    legal = set(game.legal_moves())
    names = game.PILES
    before = game.to_text()
    tried = 0
    for i in range(40):
        src = names[(seed + i * 31) % len(names)]
        dst = names[(seed // 7 + i * 17) % len(names)]
        move = engine.Move(src, dst)
        if move in legal:
            continue
        with pytest.raises(engine.IllegalMove) as refused:
            game.play(move)
        assert refused.value.code and refused.value.code != "illegal_move"
        assert str(refused.value)
        tried += 1
    assert game.to_text() == before


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_deal_number_is_the_same_layout_every_time(game_id: str) -> None:
    first = engine.new_game(game_id, deal=7).to_text()
    assert engine.new_game(game_id, deal=7).to_text() == first
    assert engine.new_game(game_id, deal=8).to_text() != first


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_restart_repeats_the_same_layout(game_id: str) -> None:
    game = engine.new_game(game_id, deal=3)
    start = game.to_text()
    for _ in range(5):
        moves = game.legal_moves()
        if moves:
            game.play(moves[-1])
    game.restart()
    assert game.to_text() == start


def test_unknown_games_and_options_name_the_valid_choices() -> None:
    with pytest.raises(engine.UnknownGame, match="klondike"):
        engine.new_game("spider")
    with pytest.raises(engine.BadOption, match="draw"):
        engine.new_game("klondike", colour="blue")
    with pytest.raises(engine.BadOption, match="1, 3"):
        engine.new_game("klondike", draw=2)


def test_open_integer_options_stop_at_the_safe_integer_and_quote_refusals_short() -> None:
    assert engine.new_game("klondike", undo_limit=SAFE_INTEGER).options["undo_limit"] == SAFE_INTEGER
    with pytest.raises(engine.BadOption, match=f"from 0 to {SAFE_INTEGER} or none"):
        engine.new_game("klondike", undo_limit=SAFE_INTEGER + 1)
    with pytest.raises(engine.BadOption) as refused:
        engine.new_game("klondike", draw="x" * 1000)
    assert len(str(refused.value)) < 100


def test_new_game_options_never_clash_with_its_own_parameters() -> None:
    assert engine.new_game("klondike", deal=7).deal == 7
    with pytest.raises(engine.BadOption, match="no option 'deal'"):
        engine.new_game("klondike", 5, deal=3)
    with pytest.raises(engine.BadOption, match="no option 'game_id'"):
        engine.new_game("klondike", 5, game_id="chequers")


def test_a_seeded_game_restarts_to_the_layout_of_its_seed() -> None:
    seed = (1 << 64) - 1
    game = engine.seeded_game("klondike", seed, draw=3)
    start = game.position
    assert start == game.layout_of_seed(seed) != engine.new_game("klondike", 1, draw=3).position
    game.play(game.legal_moves()[0])
    game.restart()
    assert game.position == start


def test_the_engine_imports_no_io_library() -> None:
    code = (
        "import sys, engine, engine.notation, engine.views\n"
        "bad = {'asyncio', 'pydantic', 'redis', 'websockets', 'msgpack', 'socket'} & set(sys.modules)\n"
        "print(sorted(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
