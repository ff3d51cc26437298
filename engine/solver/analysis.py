"""Post-game analysis: where was the game lost?

Along one line of play, winnability can only be lost, never regained:
every later position of the line is reachable from an earlier one, so if
a position cannot be won, no position after it can.  The positions still
winnable are therefore a prefix of the log, and a binary search finds its
end with about log2(moves) solves instead of one per move.  (This holds
for a log of moves; undo jumps back along the line, so pass the moves of
the line as finally played, without the undone ones.)

A solve that runs out of budget proves nothing either way; the search
treats it as "not shown winnable", so the answer is the last position
*proven* winnable, and ``certain`` says whether the very next position
was proven lost (rather than merely not won within the budget).  It is
true only for a proven loss: a ``lost_at`` or ``never_shown_winnable``
whose losing position the sound search exhausted (``UNWINNABLE``, which
the solver says only when proven: ``docs/solver.md``), never for a game
that was won or can still be won, where no loss is claimed.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..game import WON as GAME_WON
from ..game import Game, Position
from ..games import GAMES
from .driver import DEFAULT_BUDGET, solve
from .search import UNWINNABLE, WON, Solution

STILL_WINNABLE = "still_winnable"
WON_GAME = "won"
LOST_AT = "lost_at"
NEVER_SHOWN_WINNABLE = "never_shown_winnable"


class Analysis(NamedTuple):
    """``verdict`` is one of:

    - ``won``: the log wins the deal;
    - ``still_winnable``: the last position can still be won (``solution``
      shows how);
    - ``lost_at``: after ``last_winnable`` moves the deal could still be
      won (``solution`` wins from there) and ``losing_move``, the next
      move of the log, lost it;
    - ``never_shown_winnable``: not even the deal's first position was
      shown winnable (``certain`` when that is proven).

    ``certain`` is true only when the loss claimed is proven: the
    position after ``losing_move`` (or the first one) was searched to
    exhaustion.  With ``won`` and ``still_winnable`` nothing is lost, so
    it is false.
    """

    verdict: str
    last_winnable: int | None
    losing_move: str | None
    certain: bool
    solution: tuple[str, ...]
    nodes: int

    def to_dict(self) -> dict[str, Any]:
        result = self._asdict()
        result["solution"] = list(self.solution)
        return result


def replay(
    game_id: str, deal: int, options: dict[str, Any], moves: list[str], start: Position | None = None
) -> tuple[Game, list[Position]]:
    """The game after the log, and the position before each move and at the
    end.  A move the rules refuse raises the engine's typed error."""
    game = GAMES[game_id](deal, **options)
    if start is not None:
        game.load_position(start)
    positions = [game.position]
    for text in moves:
        game.play(text)
        positions.append(game.position)
    return game, positions


def analyse(
    game_id: str,
    deal: int,
    options: dict[str, Any],
    moves: list[str],
    budget: int = DEFAULT_BUDGET,
    start: Position | None = None,
) -> Analysis:
    """Where a played line of ``deal`` stopped being winnable; ``budget``
    nodes per solve (about log2(len(moves)) + 2 solves).  ``start`` is a
    position the log began from instead of the deal's (a practice position)."""
    game, positions = replay(game_id, deal, options, moves, start)
    if game.status == GAME_WON:
        return Analysis(WON_GAME, len(moves), None, False, (), 0)
    spent = 0

    def probe(index: int) -> Solution:
        nonlocal spent
        found = solve(game, positions[index], budget)
        spent += found.nodes
        return found

    end = probe(len(moves))
    if end.result == WON:
        return Analysis(STILL_WINNABLE, len(moves), None, False, _texts(end), spent)
    first = probe(0) if moves else end
    if first.result != WON:
        return Analysis(NEVER_SHOWN_WINNABLE, None, None, first.result == UNWINNABLE, (), spent)
    low, high, best, high_result = 0, len(moves), first, end.result
    while high - low > 1:
        middle = (low + high) // 2
        found = probe(middle)
        if found.result == WON:
            low, best = middle, found
        else:
            high, high_result = middle, found.result
    return Analysis(LOST_AT, low, moves[low], high_result == UNWINNABLE, _texts(best), spent)


def _texts(found: Solution) -> tuple[str, ...]:
    return tuple(str(move) for move in found.moves)
