"""Is anything left to find?  The view-only search behind "no useful move".

A hint that finds no winning line still has somewhere to go as long as
some sequence of moves reaches *progress*: a card the player has never
seen (a face-down card turned up, a stock card never shown) or one more
card on the foundations than they ever held in the game (a card taken
down and put back finds nothing: hints that did that went on for ever).  ``Progress`` searches the positions
reachable from a move without progress, breadth first, until it meets
progress or has explored them all; a hint says "no useful move" only when
every move it may suggest was searched to the end that way.

The search runs in a determinization (``determinize``) and reads only
what the player knows: a move that would show a card the view does not
determine (anything but the stock cards the player saw before,
``stock_memory``) ends its line as progress, so no hidden card is ever
looked at, and the answer is the same for every deal of the unseen cards.
Positions are told apart by the game's ``search_key`` (WordLink's
columns as a set), since moving a King from one empty column to another
finds nothing the first column did not.  The search never returns to the
position it starts from: a way on through it starts with another move.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any, Iterable

from ..game import Game, Move, Position
from .determinize import faces

POSITIONS = 2_000
"""Positions one hint's searches explore at most, together (about 0.25 s
of CPU time).  WordLink's positions without progress are the known
talon's pointers times the ways to shift runs between columns: dozens to
hundreds on most deals measured (``bench/hints.py``), so a hint that runs
dry there is proven so.  Some trails end among many more (draw-1 deal
27: 9,920 positions, two Kings' runs shuttling between columns); there
the search cannot finish, and hints go on.  At 5,000 such a hint cost
0.6 s, hint after hint, and still did not finish on draw-3 deal 24.  Broken Deck hides nothing and its cells and columns shuffle without
end: there the search stops here, and a move it could not rule out counts
as leading somewhere."""


class Progress:
    """Which moves from ``start`` (a determinization, searched with
    ``model``'s rules) lead to progress; ``remembered`` are the hidden
    cards the player knows (WordLink's remembered stock), which are not
    new when they turn up, and ``most`` the most cards the foundations
    held earlier in the game.  Positions found to lead nowhere are kept
    for the next question about the same start."""

    def __init__(
        self, model: Game, start: Position, remembered: Iterable[int] = (), most: int = 0, limit: int = POSITIONS
    ) -> None:
        self.model = model
        self.start = start
        self.base = max(model.on_foundations(start), most)
        self.known = Counter(remembered) + Counter(card for pile in faces(start) for card in pile)
        """The cards the player knows: face up now, or remembered; a search
        that turns the waste over and draws again shows none of them anew."""
        self.left = limit
        self.dead: set[Any] = {model.search_key(start)}

    def found(self, before: Position, after: Position) -> bool:
        """Whether the move from ``before`` to ``after`` is progress."""
        model = self.model
        if model.is_won(after) or model.on_foundations(after) > self.base:
            return True
        if sum(after.down) >= sum(before.down):
            return False
        shown = Counter(card for pile in faces(after) for card in pile)
        shown.subtract(card for pile in faces(before) for card in pile)
        known = self.known
        return any(count > known[card] for card, count in shown.items() if count > 0)

    def leads_on(self, move: Move) -> bool:
        """Whether some sequence of moves starting with ``move`` reaches
        progress (or the search stopped before it could rule that out)."""
        return self.nearest([move]) is not None

    def nearest(self, moves: Iterable[Move]) -> Move | None:
        """Of ``moves``, the one that reaches progress in fewest moves (or,
        the search stopped short, the one it had not finished with); None
        when the search has shown that none does."""
        start = self.start
        queue: deque[tuple[Position, Move]] = deque()
        visited: set[Any] = set()
        for move in moves:
            after = self.model.after(start, move)
            if self.found(start, after):
                return move
            self._enter(after, move, queue, visited)
        while queue:
            if self.left <= 0:
                return queue[0][1]
            self.left -= 1
            pos, move = queue.popleft()
            for step in self.model.moves_from(pos):
                after = self.model.after(pos, step)
                if self.found(pos, after):
                    return move
                self._enter(after, move, queue, visited)
        self.dead |= visited
        return None

    def _enter(self, pos: Position, move: Move, queue: deque[tuple[Position, Move]], visited: set[Any]) -> None:
        key = self.model.search_key(pos)
        if key not in visited and key not in self.dead:
            visited.add(key)
            queue.append((pos, move))
