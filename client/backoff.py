"""How long to wait between reconnection attempts.

Exponential, capped, with jitter: after a server restart every client
reconnects at once, and without jitter they would all knock again at the
same instants.  Each delay is drawn uniformly from the upper half of its
exponential step (``[step / 2, step]``), which spreads the herd while
keeping a floor, so a client never hammers a server that is down.

Example::

    policy = Backoff(first=0.5, cap=30.0, attempts=20)
    for delay in policy.delays():
        ...  # sleep(delay), then try to connect
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Iterator


@dataclass(frozen=True)
class Backoff:
    """Reconnection policy: ``first`` seconds before the first attempt,
    doubling (``factor``) up to ``cap``; ``attempts`` tries in all before
    giving up (None: never give up)."""

    first: float = 0.25
    factor: float = 2.0
    cap: float = 15.0
    attempts: int | None = None
    rng: random.Random = field(default_factory=random.Random, compare=False, repr=False)

    def delays(self) -> Iterator[float]:
        """The wait before each attempt, jittered."""
        step = self.first
        made = 0
        while self.attempts is None or made < self.attempts:
            yield self.rng.uniform(step / 2, step)
            made += 1
            step = min(self.cap, step * self.factor)


NO_RECONNECT = Backoff(attempts=0)
