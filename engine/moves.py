"""The values the rules are written in: a ``Move`` (one player intention,
in pile terms), a ``Position`` (everything the rules need, immutable), a
``Snapshot`` (what undo restores) and a game's status words.

They are plain tuples, so a position is a transposition-table key for the
solver as it is, and undo is a restore that cannot be subtly wrong.
"""

from __future__ import annotations

from typing import NamedTuple

from .errors import BadNotation

PLAYING = "playing"
WON = "won"
LOST = "lost"


class Move(NamedTuple):
    """One player intention, in pile terms.

    ``src-dst`` moves the top card of ``src`` to ``dst``; ``src-dstxN``
    moves the top ``N`` cards as a group; a lone word (``draw``) is an
    action on the game as a whole.  ``str(move)`` is the notation used on
    the wire and in logs; ``Game.parse_move`` reads it back.
    """

    src: str
    dst: str = ""
    count: int = 1  # type: ignore[assignment]  # the field shadows tuple.count, which moves never use

    def __str__(self) -> str:
        if not self.dst:
            return self.src
        return f"{self.src}-{self.dst}" + (f"x{self.count}" if self.count != 1 else "")

    def __repr__(self) -> str:
        return f"Move.from_text({str(self)!r})"

    def undoes(self, last: Move | None) -> bool:
        """Whether this move takes ``last`` straight back (the same piles,
        swapped): neither a hint nor a solver's line starts with one."""
        return last is not None and bool(last.dst) and self.src == last.dst and self.dst == last.src

    @classmethod
    def from_text(cls, text: str) -> Move:
        """Parse the notation's syntax only; a game checks the pile names."""
        cleaned = text.strip().lower()
        if not cleaned or any(ch.isspace() for ch in cleaned):
            raise BadNotation(f"{text!r} is not a move (expected e.g. t3-t5, w-f, draw)")
        if "-" not in cleaned:
            return cls(cleaned)
        src, _, rest = cleaned.partition("-")
        dst, sep, count_text = rest.partition("x")
        count = 1
        if sep:
            if not count_text.isdigit() or int(count_text) < 1:
                raise BadNotation(f"{text!r}: the count after 'x' must be a positive whole number")
            count = int(count_text)
        if not src or not dst:
            raise BadNotation(f"{text!r} is not a move (expected e.g. t3-t5, w-f, draw)")
        return cls(src, dst, count)


class Position(NamedTuple):
    """Everything the rules need, and nothing else.

    ``piles[i]`` lists the cards of pile ``i`` bottom to top; the bottom
    ``down[i]`` of them are face down.  ``aux`` holds the few integers a
    game needs beyond piles (named by ``Game.AUX_FIELDS``).
    """

    piles: tuple[tuple[int, ...], ...]
    down: tuple[int, ...]
    aux: tuple[int, ...] = ()


Snapshot = tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...], int, int]
"""What undo restores: a position's ``piles``, ``down`` and ``aux``, then the
``moves`` and ``score`` that belong to it.  A plain tuple, not a named
one: a game keeps one per action, and the garbage collector stops
tracking an exact tuple of untracked parts (the card tuples) but never a
tuple subclass, so named ones would stay on every collection's walk as
long as the game does."""
