"""WordLink's solver builds the steps from its columns and foundations
itself, the search's hot path, instead of asking ``moves_from`` and
``successor``: those steps must be exactly the legal moves the module
docstring of ``engine/solver/klondike.py`` keeps, each leading where the
engine's ``successor`` leads, then settled by the forced moves.

The positions are those of random games (seeded, so the same every run)
of several deals, draw 1 and 3, each tried as it is and settled first:
from a settled position ``steps`` looks for forced cards only on the two
piles a move changed, elsewhere on every pile.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

import engine
from engine.cards import RANK, SUIT
from engine.game import Game, Move, Position
from engine.games.klondike import DRAW, FOUNDATIONS, TABLEAU
from engine.solver.klondike import KlondikeDomain

Outcome = tuple[tuple[Move, ...], tuple[tuple[int, ...], ...], tuple[int, ...]]


def random_positions(game: Game, seed: int, count: int) -> Iterator[Position]:
    """``count`` positions along a random game (draws included)."""
    rng = random.Random(seed)
    pos = game.position
    for _ in range(count):
        yield pos
        moves = game.moves_from(pos)
        if not moves:
            return
        pos = game.successor(pos, rng.choice(moves))


def kept(domain: KlondikeDomain, pos: Position, move: Move) -> bool:
    """Whether the module docstring keeps this move from a column or a
    foundation: never a King run from the bottom of its column to an
    empty one; in the bold domain, no card down from a foundation and no
    split of a face-up run unless the card it uncovers goes home."""
    names = domain.game.PILES
    src, dst = names.index(move.src), names.index(move.dst)
    cards = pos.piles[src]
    left = len(cards) - move.count
    if src in TABLEAU and left == 0 and dst in TABLEAU and not pos.piles[dst]:
        return False
    if not domain.bold:
        return True
    if src in FOUNDATIONS:
        return False
    if src in TABLEAU and dst in TABLEAU and left > pos.down[src]:
        uncovered = cards[left - 1]
        return RANK[uncovered] == len(pos.piles[FOUNDATIONS[SUIT[uncovered]]]) + 1
    return True


def outcomes_by_engine(domain: KlondikeDomain, pos: Position) -> list[Outcome]:
    game = domain.game
    found = []
    for move in game.moves_from(pos):
        if move is DRAW or move.src == "w" or not kept(domain, pos, move):
            continue
        extra, settled = domain.forced(game.successor(pos, move))
        found.append(((move, *extra), settled.piles, settled.down))
    return sorted(found, key=str)


def outcomes_by_domain(domain: KlondikeDomain, pos: Position) -> list[Outcome]:
    steps = [step for step in domain.steps(pos) if step.moves[0] is not DRAW and step.moves[0].src != "w"]
    return sorted(((step.moves, step.position.piles, step.position.down) for step in steps), key=str)


@pytest.mark.parametrize("draw", [1, 3])
@pytest.mark.parametrize("bold", [False, True])
def test_wordlink_steps_are_the_engine_moves_the_rules_keep(draw: int, bold: bool) -> None:
    tried = settled_with_forced = 0
    for deal in (1, 2, 17, 45):
        game = engine.new_game("klondike", deal, draw=draw)
        domain = KlondikeDomain(game, bold=bold)
        for pos in random_positions(game, seed=deal * 10 + draw, count=150):
            for start in (pos, domain.forced(pos)[1]):
                assert outcomes_by_domain(domain, start) == outcomes_by_engine(domain, start)
                tried += 1
                settled_with_forced += any(len(step.moves) > 1 for step in domain.steps(start))
    assert tried >= 400
    assert settled_with_forced, "no step was followed by a forced card: the sample tests too little"
