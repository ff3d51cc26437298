"""The deal generator: SplitMix64 and an unbiased Fisher–Yates shuffle.

Python's ``random`` is not used because its algorithms are not promised to
stay the same across versions, and a deal number must mean the same layout
forever: leaderboards, certificates and replays all refer to deals by
number.  Everything here is specified in ``docs/notation.md`` ("Deals") so
that any other implementation can reproduce a deal bit for bit.
"""

from __future__ import annotations

from typing import Final, TypeVar

MASK64: Final = (1 << 64) - 1
_T = TypeVar("_T")


def fnv1a64(text: str) -> int:
    """FNV-1a over UTF-8 bytes; names a game inside the seed so that deal 7
    of two different games are unrelated shuffles."""
    value = 0xCBF29CE484222325
    for byte in text.encode():
        value = ((value ^ byte) * 0x100000001B3) & MASK64
    return value


class SplitMix64:
    """A 64-bit generator whose whole state is one integer.

    SplitMix64 (Steele, Lea and Flood, 2014) passes BigCrush, is a dozen
    lines in any language and has no platform-dependent behaviour, which is
    all a card shuffle needs.
    """

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, bound: int) -> int:
        """A uniform integer in ``[0, bound)``, by rejection so no value is favoured."""
        if bound <= 0:
            raise ValueError("bound must be positive")
        limit = (1 << 64) - ((1 << 64) % bound)
        while True:
            value = self.next_u64()
            if value < limit:
                return value % bound


def deal_rng(game_id: str, seed: int) -> SplitMix64:
    """The generator for one deal of one game."""
    return SplitMix64(fnv1a64(game_id) ^ (seed & MASK64))


def shuffled(items: list[_T], rng: SplitMix64) -> list[_T]:
    """A shuffled copy: Fisher–Yates from the last index down."""
    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        j = rng.below(i + 1)
        result[i], result[j] = result[j], result[i]
    return result
