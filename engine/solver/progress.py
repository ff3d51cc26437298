"""Is anything left to find?  The view-only search behind "no useful move".

A hint that finds no winning line still has somewhere to go as long as
some sequence of moves reaches *progress*: a card the player has never
seen (a face-down card turned up, a stock card never shown) or one more
card on the foundations than they ever held in the game (a card taken
down and put back finds nothing: hints that did that went on for ever).
``Progress`` searches the boards reachable from the current one without
progress, breadth first, until it meets progress or has explored them
all; a hint says "no useful move" only when that search has ended.

Trails of such hints end, which is why the search never enters a board
the game has already shown (told apart by the game's ``search_key`` of
what a player sees, WordLink's columns as a set): a way to progress
that only goes back where the player has been is no way on, and when
hints counted it, a trail shuffled runs between columns and drew
through the stock for over a thousand moves.  The hint's move starts a
way to progress the search has found (``Progress.lead``), and the next
hints walk that way to its end (``assist``'s plans), so each of them
brings progress a move nearer; since progress is finite (52 cards to
see, 52 to put on the foundations), so is a trail of hints.

The search runs in a determinization (``determinize``) and reads only
what the player knows: a move that would show a card the view does not
determine (anything but the stock cards the player saw before,
``stock_memory``) ends its line as progress, so no hidden card is ever
looked at, and the answer is the same for every deal of the unseen cards.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any, Iterable, NamedTuple, Sequence

from ..game import Game, Move, Position
from .determinize import Visible, faces, masked_key

POSITIONS = 2_000
"""Boards the search explores at most on the first hint after progress
(about 0.25 s of CPU time on this machine under load).  WordLink's boards
without progress are the known talon's pointers times the ways to shift
runs between columns and to take cards back off the foundations: dozens
to hundreds on most deals measured (``bench/hints.py``), but a stuck
board may have tens of thousands (a draw-1 trail of ``hint_from_view``
on deal 1 met 74,773, two Kings' runs to split and six foundation cards
to take down).  So the limit doubles with every move made since the last
progress (``idle_moves``) for ``DOUBLINGS`` moves: a search that could
not finish is soon repeated with room to, while the hints that find
progress near at hand stay cheap.  Past that, each hint searches this
many again: a board that even the last doubling could not settle is not
searched at that price hint after hint."""
DOUBLINGS = 6
"""The most times the limit doubles: 128,000 boards, about 15 s of CPU
time on this machine under load, once at the end of a trail."""


def limit(idle: int) -> int:
    """The boards a search may explore ``idle`` moves after progress."""
    return POSITIONS << idle if idle <= DOUBLINGS else POSITIONS


class Lead(NamedTuple):
    """Where a hint without a win goes: ``moves``, a way to progress from
    the board searched (the shortest through its first move), when
    ``proven``; otherwise the first move of a way the search had not
    finished with when it stopped."""

    moves: tuple[Move, ...]
    proven: bool


def seen_key(model: Game, board: Visible) -> Any:
    """A board as ``model.search_key`` keys it, from what a player sees of
    it alone (the face-up cards stand for whole piles: the key only tells
    boards apart).  Two positions of one game with equal keys show the same
    board up to what no rule tells apart, whatever their face-down cards."""
    return model.search_key(Position(*board))


def held(model: Game, board: Visible) -> int:
    """The cards on the foundations of ``board`` (they lie face up)."""
    return model.on_foundations(Position(board.up, (0,) * len(board.up), board.aux))


def idle_moves(model: Game, boards: Sequence[Visible]) -> int:
    """How many moves ago, along the game's ``boards`` (oldest first, the
    current one last), a board last showed progress."""
    shown: Counter[int] = Counter()
    most = -1
    last = 0
    for index, board in enumerate(boards):
        cards = Counter(card for pile in board.up for card in pile)
        held_here = held(model, board)
        if held_here > most or cards - shown:
            last = index
        shown |= cards
        most = max(most, held_here)
    return len(boards) - 1 - last


class Progress:
    """The search for progress from ``start`` (a determinization, searched
    with ``model``'s rules).  ``remembered`` are the hidden cards the
    player knows (WordLink's remembered stock), which are not new when
    they turn up; ``most`` the most cards the foundations held earlier in
    the game; ``seen`` the boards the game has shown, which the search
    never enters; ``limit`` the boards it explores at most, all questions
    together."""

    def __init__(
        self,
        model: Game,
        start: Position,
        remembered: Iterable[int] = (),
        most: int = 0,
        seen: Iterable[Visible] = (),
        limit: int = POSITIONS,
    ) -> None:
        self.model = model
        self.start = start
        self.base = max(model.on_foundations(start), most)
        self.known = Counter(remembered) + Counter(card for pile in faces(start) for card in pile)
        """The cards the player knows: face up now, or remembered; a search
        that turns the waste over and draws again shows none of them anew."""
        self.seen = {seen_key(model, board) for board in seen}
        """Boards not to enter: the game's, and those an earlier question
        explored to the end without progress (nothing lies beyond them)."""
        self.seen.add(seen_key(model, masked_key(start)))
        self.left = limit

    def found(self, before: Position, after: Position) -> bool:
        """Whether the move from ``before`` to ``after`` is progress."""
        model = self.model
        if model.on_foundations(after) > self.base or model.is_won(after):
            return True
        if sum(after.down) >= sum(before.down):
            return False
        shown = Counter(card for pile in faces(after) for card in pile)
        shown.subtract(card for pile in faces(before) for card in pile)
        known = self.known
        return any(count > known[card] for card, count in shown.items() if count > 0)

    def lead(self, ranked: Iterable[Move], rest: Iterable[Move] = ()) -> Lead | None:
        """The first of the ``ranked`` moves that starts a way to progress,
        with the shortest such way; else the shortest way starting with any
        of ``rest``; or, when the limit was met first, the move the search
        was busy with; None when the search has shown that none leads to
        progress."""
        for move in ranked:
            found = self.nearest([move])
            if found is not None:
                return found
        rest = list(rest)
        return self.nearest(rest) if rest else None

    def nearest(self, moves: Iterable[Move]) -> Lead | None:
        """A shortest way to progress starting with one of ``moves`` (of
        equally short ones, the one whose first move comes first), as
        ``lead`` says."""
        start = self.start
        queue: deque[tuple[Position, tuple[Move, ...]]] = deque()
        for move in moves:
            after = self.model.after(start, move)
            if self.found(start, after):
                return Lead((move,), True)
            self._enter(after, (move,), queue)
        while queue:
            if self.left <= 0:
                return Lead(queue[0][1][:1], False)
            self.left -= 1
            pos, way = queue.popleft()
            for step in self.model.moves_from(pos):
                after = self.model.after(pos, step)
                if self.found(pos, after):
                    return Lead((*way, step), True)
                self._enter(after, (*way, step), queue)
        return None

    def _enter(self, pos: Position, way: tuple[Move, ...], queue: deque[tuple[Position, tuple[Move, ...]]]) -> None:
        key = seen_key(self.model, masked_key(pos))
        if key not in self.seen:
            self.seen.add(key)
            queue.append((pos, way))
