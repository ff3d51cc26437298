"""A hint never runs dry while a useful move exists.

Trails of hints are followed to their end on several deals of each game
that hides cards.  Where one ends on "no useful move" (no hint), a
search written here, apart from the hint's (``engine.solver.progress``),
checks the claim from the board the player sees: no sequence of moves
turns up a card the player has never seen or puts more cards on the
foundations than they ever held (a card taken down and put back finds
nothing).  It plays the real game through its public interface only and
stops at any card that was never shown, so it reads nothing the player
could not.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any, NamedTuple

import pytest
from tests.solver.positions import klondike_near_win

import engine
from engine.game import Game
from engine.solver.assist import hint_from_view, hint_with_confidence
from engine.solver.determinize import public

TRAIL_BUDGET = 600
"""Nodes per hint: small, so that trails are quick and often end without
a win, which is what this test is about."""
EXPLORED = 60_000
"""Boards the check explores at most before it gives up (and fails)."""
HIDING: list[tuple[str, dict[str, Any]]] = [
    ("klondike", {"draw": 1}),
    ("klondike", {"draw": 3}),
    ("laras-game", {}),
]


def board(view: dict[str, Any]) -> tuple[Any, ...]:
    """What a view shows, with WordLink's columns as a set (no rule tells
    them apart, and without it King shuffles between empty columns make
    the boards too many to list)."""
    piles = [(name, pile["down"], tuple(pile["up"])) for name, pile in sorted(view["piles"].items())]
    if view["game"] == "klondike":
        columns = sorted((down, up) for name, down, up in piles if name.startswith("t"))
        piles = [pile for pile in piles if not pile[0].startswith("t")] + [("columns", 0, tuple(columns))]
    return tuple(piles), tuple(sorted((key, value) for key, value in view.items() if isinstance(value, int)))


def shown(view: dict[str, Any]) -> Counter[str]:
    return Counter(card for pile in view["piles"].values() for card in pile["up"])


def something_left(game: Game, seen: list[dict[str, Any]], base: int) -> bool:
    """Whether some sequence of moves from ``game``'s board shows a card
    more often than any board of ``seen`` did, or puts more than ``base``
    cards on the foundations."""
    most: Counter[str] = Counter()
    for view in seen:
        most |= shown(view)
    boards = {board(game.view())}
    queue = deque([game.position])
    explorer = engine.new_game(game.id, game.deal, **game.options)
    while queue:
        assert len(boards) < EXPLORED, "the check could not finish"
        explorer.load_position(queue.popleft())
        for move in explorer.legal_moves():
            explorer.play(move)
            view = explorer.view()
            if explorer.counters["foundation"] > base or explorer.status == engine.WON or shown(view) - most:
                return True
            after = explorer.position
            explorer.undo()
            key = board(view)
            if key not in boards:
                boards.add(key)
                queue.append(after)
    return False


class Trail(NamedTuple):
    views: list[dict[str, Any]]
    """Every board seen."""
    sure: list[float]
    """Each hint's confidence."""
    most: int
    """The most cards the foundations held."""


def trail(game: Game) -> Trail:
    """Follow hints to the end."""
    views = [game.view()]
    sure: list[float] = []
    most = game.counters["foundation"]
    while game.status == engine.PLAYING:
        found = hint_with_confidence(game, TRAIL_BUDGET)
        if found is None:
            break
        assert 0.0 <= found.confidence <= 1.0
        sure.append(found.confidence)
        game.play(found.move)
        views.append(game.view())
        most = max(most, game.counters["foundation"])
    return Trail(views, sure, most)


@pytest.mark.parametrize(("game_id", "options"), HIDING, ids=lambda value: str(value))
@pytest.mark.parametrize("deal", [1, 2, 3, 4])
def test_a_trail_of_hints_ends_without_a_hint_only_when_nothing_is_left_to_find(
    game_id: str, options: dict[str, Any], deal: int
) -> None:
    game = engine.new_game(game_id, deal, **options)
    followed = trail(game)
    if game.status == engine.PLAYING:
        moves = len(followed.views) - 1
        assert not something_left(game, followed.views, followed.most), f"no hint after {moves} moves, yet a card is left to find"


@pytest.mark.parametrize("draw", [1, 3])
def test_a_bots_trail_of_hints_from_views_ends_only_when_nothing_is_left_to_find(draw: int) -> None:
    """``hint_from_view`` is told the views alone, as a bot holds them
    (``examples/bot.py``); its trail ends too, and the same way."""
    game = engine.new_game("klondike", 1, draw=draw)
    seen: list[dict[str, Any]] = []
    most = 0
    while game.status == engine.PLAYING:
        view = public(game.view())
        move = hint_from_view(view, seen, TRAIL_BUDGET)
        if move is None:
            break
        seen.append(view)
        game.play(move)
        most = max(most, game.counters["foundation"])
    if game.status == engine.PLAYING:
        assert not something_left(game, [*seen, game.view()], most), f"no hint after {len(seen)} moves, yet a card is left to find"


@pytest.mark.parametrize("draw", [1, 3])
def test_a_hint_without_a_win_goes_to_a_board_not_seen_before(draw: int) -> None:
    """A move that only comes back to a board the trail has shown (columns
    as a set) is no way on: trails that took such moves went round for
    over a thousand moves."""
    followed = trail(engine.new_game("klondike", 2, draw=draw))
    boards = [board(view) for view in followed.views]
    leads = [index for index, sure in enumerate(followed.sure) if sure == 0.0]
    assert leads
    for index in leads:
        assert boards[index + 1] not in boards[: index + 1], f"hint {index + 1} goes back to a board seen before"


def test_klondike_trails_do_end_without_a_hint_so_the_check_above_runs() -> None:
    """Draw 3 at a small budget: most of the first deals end on "no
    useful move" (a test that never checks anything would pass anyway)."""
    dry = 0
    for deal in (1, 2, 3, 4):
        game = engine.new_game("klondike", deal, draw=3)
        trail(game)
        dry += game.status == engine.PLAYING
    assert dry >= 2


def test_the_check_finds_a_card_left_where_there_is_one() -> None:
    """The near-won WordLink board has foundation moves: the check says so."""
    game = klondike_near_win()
    assert something_left(game, [game.view()], game.counters["foundation"])


def test_a_hint_says_how_sure_it_is() -> None:
    """A win found with nothing hidden is certain; a lead without a win
    found in any deal of the unseen cards is not."""
    game = klondike_near_win()
    found = hint_with_confidence(game)
    assert found is not None and found.confidence == 1.0
    assert 0.0 in trail(engine.new_game("klondike", 1, draw=3)).sure
