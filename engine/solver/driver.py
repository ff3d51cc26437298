"""``solve``: how one node budget is spent across bold and sound searches.

A game with a bold domain (rarely needed moves pruned) looks for a win
there first, with all of the budget when no proof is wanted and with all
but ``PROOF_SHARE`` of it otherwise.  Depth-first, that share goes to one
plain search on a quarter of it (at most ``FIRST_SEARCH_NODES``), then to
restarts with a jittered move order on small budgets: searches of this
kind have heavy tails, a bad early choice can hide a win behind hundreds
of thousands of positions while a restart that chose differently finds it
in a few hundred (on WordLink draw 3, restarts won 12 of the 37 deals a
single 20,000-node search gave up on).  Best-first, it is one search.
What is left goes to the sound domain, whose exhausted search is the only
proof of "unwinnable"; a game without a bold domain gets one sound search.
"""

from __future__ import annotations

from ..game import Game, Move, Position
from ..rng import SplitMix64
from .domains import domain_class
from .search import UNKNOWN, WON, Domain, Progress, Solution, best_first, search

DEFAULT_BUDGET = 100_000
"""Nodes for a full solve (about 6 s of WordLink, 3 s of Broken Deck on the reference machine)."""
RESTART_NODES = (200, 1_000)
"""Bounds of one jittered restart's budget (otherwise a hundredth of the bold share)."""


def solve(
    game: Game,
    position: Position | None = None,
    budget: int = DEFAULT_BUDGET,
    *,
    prove: bool = True,
    after: Move | None = None,
    progress: Progress | None = None,
) -> Solution:
    """A win from ``position`` (default: the game's current one), a proof
    that there is none, or ``unknown`` once ``budget`` nodes are spent.

    ``prove=False`` spends everything on finding a win (pool building and
    hints, where "unwinnable" is worth no more than "unknown").  ``after``
    is the move that led to the position: the solution never starts by
    taking it back.  ``progress`` is called now and then with the nodes
    spent so far by all the searches together (at most ``budget``).
    """
    start = game.position if position is None else position
    domains = domain_class(game)
    spent = 0
    if domains.HAS_BOLD:
        share = budget if not prove else budget - int(budget * domains.PROOF_SHARE)
        found = _find(domains(game, bold=True), start, share, after, progress)
        if found.result == WON or not prove:
            return found if found.result == WON else Solution(UNKNOWN, (), found.nodes)
        spent = found.nodes
    sound = domains(game)
    strategy = best_first if sound.BEST_FIRST else search
    proof = strategy(sound, start, max(budget - spent, 1), after=after, progress=_after_spent(progress, spent))
    return Solution(proof.result, proof.moves, spent + proof.nodes)


def _after_spent(progress: Progress | None, spent: int) -> Progress | None:
    """``progress`` for a search that begins once ``spent`` nodes are gone."""
    if progress is None:
        return None
    return lambda nodes: progress(spent + nodes)


def _find(bold: Domain, start: Position, share: int, after: Move | None, progress: Progress | None) -> Solution:
    """The bold searches; ``nodes`` counts all of them."""
    if bold.BEST_FIRST:
        return best_first(bold, start, share, after=after, progress=progress)
    first = search(bold, start, min(share // 4, bold.FIRST_SEARCH_NODES), after=after, progress=progress)
    spent = first.nodes
    if first.result != UNKNOWN:
        return first
    per_restart = min(max(share // 100, RESTART_NODES[0]), RESTART_NODES[1])
    attempt = 0
    while spent + per_restart <= share:
        attempt += 1
        found = search(bold, start, per_restart, jitter=SplitMix64(attempt), after=after)
        spent += found.nodes
        if progress is not None:
            progress(spent)
        if found.result == WON:
            return Solution(WON, found.moves, spent)
    return Solution(UNKNOWN, (), spent)
