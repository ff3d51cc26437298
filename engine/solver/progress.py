"""Is anything left to find?  The view-only search behind "no useful move".

A hint that finds no winning line still has somewhere to go as long as
some sequence of moves reaches *progress*: a card the player has never
seen (a face-down card turned up, a stock card never shown) or one more
card on the foundations than now.  This module searches every position
reachable without progress, breadth first, and says which first moves
lead to progress and in how few moves.  A hint says "no useful move"
only when that search was complete and found none.

The search runs in a determinization (``determinize``) and reads only
what the player knows: a move that would show a card the view does not
determine (anything but the stock cards the player saw before,
``stock_memory``) ends its line as progress, so no hidden card is ever
looked at, and the answer is the same for every deal of the unseen cards.
Positions are told apart by the game's ``search_key`` (WordLink's
columns as a set), since a hint that moves a King from one empty column
to another finds nothing the first column did not.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any, Iterable, NamedTuple

from ..game import Game, Move, Position
from .determinize import faces

POSITIONS = 2_000
"""Positions the search explores at most.  WordLink's positions without
progress are the known talon's pointers times the ways to shift runs
between columns: dozens to a few hundred on the deals measured
(``bench/hints.py``), so a hint that runs dry there is proven so.  Broken
Deck hides nothing and its cells and columns shuffle without end; there
the search stops here and says which moves it could not rule out
(``Reach.open``)."""


class Reach(NamedTuple):
    """What the search found from a position.

    ``steps``: each first move that reaches progress, with the fewest moves
    that takes (1: the move itself shows a new card or adds a foundation
    card).  ``open``: the first moves whose positions the search did not
    finish exploring, which may still lead somewhere.  ``complete``: every
    position reachable without progress was explored, so a first move in
    neither is a dead end, and no ``steps`` at all means nothing useful is
    left."""

    steps: dict[Move, int]
    open: frozenset[Move]
    complete: bool

    def useful(self, move: Move) -> bool:
        """Whether ``move`` reaches progress or may (the search stopped short)."""
        return move in self.steps or move in self.open


def reach(model: Game, start: Position, remembered: Iterable[int] = (), limit: int = POSITIONS) -> Reach:
    """Which first moves from ``start`` (a determinization, searched with
    ``model``'s rules) reach progress; ``remembered`` are the hidden cards
    the player knows (WordLink's remembered stock), which are not new when
    they turn up.  At most ``limit`` positions are explored."""
    base = model.on_foundations(start)
    known = Counter(remembered)

    def progress(before: Position, after: Position) -> bool:
        if model.is_won(after) or model.on_foundations(after) > base:
            return True
        if sum(after.down) >= sum(before.down):
            return False
        shown = Counter(card for pile in faces(after) for card in pile)
        shown.subtract(card for pile in faces(before) for card in pile)
        return any(count > known[card] for card, count in shown.items() if count > 0)

    index: dict[Any, int] = {model.search_key(start): -1}
    nodes: list[Position] = []
    parents: list[list[int]] = []
    useful: deque[int] = deque()
    first: dict[Move, int] = {}
    steps: dict[Move, int] = {}

    def enter(pos: Position) -> int:
        key = model.search_key(pos)
        found = index.get(key)
        if found is None:
            found = index[key] = len(nodes)
            nodes.append(pos)
            parents.append([])
        return found

    for move in model.moves_from(start):
        after = model.after(start, move)
        if progress(start, after):
            steps[move] = 1
        elif (node := enter(after)) >= 0:
            first[move] = node
    explored = 0
    while explored < len(nodes) and explored < limit:
        node, pos = explored, nodes[explored]
        explored += 1
        for move in model.moves_from(pos):
            after = model.after(pos, move)
            if progress(pos, after):
                useful.append(node)
                break
            child = enter(after)
            if child >= 0:
                parents[child].append(node)
    distance = _backwards(parents, useful, 1)
    unexplored = _backwards(parents, deque(range(explored, len(nodes))), 0)
    for move, node in first.items():
        if node in distance:
            steps[move] = distance[node] + 1
    still_open = frozenset(move for move, node in first.items() if move not in steps and node in unexplored)
    return Reach(steps, still_open, explored == len(nodes))


def _backwards(parents: list[list[int]], sources: deque[int], at: int) -> dict[int, int]:
    """Breadth first along ``parents`` from ``sources`` (each ``at`` moves
    from its goal): every node that leads to one, with the fewest moves."""
    distance = dict.fromkeys(sources, at)
    while sources:
        node = sources.popleft()
        for parent in parents[node]:
            if parent not in distance:
                distance[parent] = distance[node] + 1
                sources.append(parent)
    return distance
