"""What the solver does for a player: hints and safe automatic finishing.

Both take the game's current position and search it with perfect
information (the server knows every card; nothing searched is shown,
only the one move or the finishing line the player asked for).
"""

from __future__ import annotations

from ..errors import ActionUnavailable
from ..game import PLAYING, Game, Move, Position
from .domains import domain_class
from .driver import DEFAULT_BUDGET, solve
from .search import WON


def hint(game: Game, budget: int | None = None) -> Move | None:
    """A useful move: the first move of a win found within ``budget`` nodes
    (default: the game's ``HINT_BUDGET``, about 200 ms), else the game's
    own heuristic (``Game.suggest``).

    Never an illegal move, and never the reverse of the previous move.  A
    game's domain may name a move it prefers (Broken Deck: a repair, as its
    seed asks); that move is hinted when the deal is still won after it.
    """
    if game.status != PLAYING:
        return None
    domains = domain_class(game)
    budget = domains.HINT_BUDGET if budget is None else budget
    legal = game.legal_moves()
    last = game.last_move
    preferred = domains(game).preferred(game.position, last)
    if preferred is not None and preferred in legal:
        after = game.successor(game.position, preferred)
        check = solve(game, after, budget // 2, prove=False, after=preferred)
        if check.result == WON:
            return preferred
        budget -= check.nodes
    found = solve(game, budget=max(budget, 1), prove=False, after=last)
    if found.result == WON and found.moves and found.moves[0] in legal:
        return found.moves[0]
    return game.suggest()


def auto_finish(game: Game, budget: int = DEFAULT_BUDGET, position: Position | None = None) -> list[Move] | None:
    """The moves that finish the game from ``position`` (default: now), or
    None when finishing is not on offer.

    Offered only where ``game.check_finish`` allows it (Broken Deck in
    Relaxed and Standard, once every half is repaired) and only when the
    solver has found a complete path to the foundations within ``budget``
    nodes: "safe automatic finishing".  Play the moves with ``game.play``
    one by one to finish.  The search reads ``position`` alone, so a
    server may run it in a worker thread while the game goes on.
    """
    start = game.position if position is None else position
    if game.is_won(start):
        return None
    try:
        game.check_finish(start)
    except ActionUnavailable:
        return None
    found = solve(game, start, budget, prove=False)
    return list(found.moves) if found.result == WON else None
