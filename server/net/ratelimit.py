"""Per-connection rate limiting: two token buckets, no clock of its own.

The first bucket admits messages (``rate`` per second, ``burst`` at once).
A message it refuses costs a token from the second bucket, the strikes,
which refills at one per second; when the strikes run out the client is
not merely eager but abusive and the connection is closed (1008).  A
client that bursts now and then is never closed; one that keeps sending
faster than allowed is, within about ``strikes`` refused messages.
"""

from __future__ import annotations

from enum import Enum


class Verdict(Enum):
    ACCEPT = "accept"
    REJECT = "reject"
    CLOSE = "close"


class TokenBucket:
    """``capacity`` tokens, refilled at ``rate`` per second of ``now``.
    Slotted: every connection holds two (``RateLimiter``)."""

    __slots__ = ("capacity", "rate", "tokens", "updated")

    def __init__(self, capacity: float, rate: float, now: float) -> None:
        self.capacity = capacity
        self.rate = rate
        self.tokens = capacity
        self.updated = now

    def level(self, now: float) -> float:
        """The tokens there are at ``now``."""
        return min(self.capacity, self.tokens + (now - self.updated) * self.rate)

    def take(self, now: float) -> bool:
        """Spend a token if there is one."""
        self.tokens = self.level(now)
        self.updated = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def full_at(self, now: float) -> bool:
        """Whether the bucket has refilled by ``now`` (a full bucket is as
        good as a new one, so its owner can forget it)."""
        return self.tokens + (now - self.updated) * self.rate >= self.capacity


SWEEP_SECONDS = 60.0
"""How often (at most) a ``BucketTable`` forgets the buckets that filled up again."""


class BucketTable:
    """A token bucket per key (a player, a client address), full when its
    key is first seen.  Buckets that have filled up again are forgotten at
    most every ``SWEEP_SECONDS`` (a full bucket is what a new key gets
    anyway), so the table holds only the keys active lately."""

    def __init__(self, capacity: float, rate: float, now: float) -> None:
        self.capacity = capacity
        self.rate = rate
        self._buckets: dict[str, TokenBucket] = {}
        self._swept = now

    def take(self, key: str, now: float) -> float | None:
        """Spend one of ``key``'s tokens (None), or say in how many seconds
        its next one comes."""
        self.sweep(now)
        bucket = self._buckets.setdefault(key, TokenBucket(self.capacity, self.rate, now))
        if bucket.take(now):
            return None
        return (1 - bucket.tokens) / self.rate

    def spend(self, key: str, cost: float, now: float) -> None:
        """Spend ``cost`` of ``key``'s tokens, into debt if it has fewer:
        for work whose cost is known only once it is done (``wait`` then
        says when ``key`` may start more)."""
        self.sweep(now)
        bucket = self._buckets.setdefault(key, TokenBucket(self.capacity, self.rate, now))
        bucket.tokens = bucket.level(now) - cost
        bucket.updated = now

    def wait(self, key: str, now: float) -> float | None:
        """In how many seconds ``key`` has a token (None: it has one now),
        spending nothing."""
        bucket = self._buckets.get(key)
        tokens = self.capacity if bucket is None else bucket.level(now)
        return None if tokens >= 1 else (1 - tokens) / self.rate

    def __contains__(self, key: str) -> bool:
        """Whether ``key``'s bucket is remembered (not yet swept as full)."""
        return key in self._buckets

    def sweep(self, now: float) -> None:
        """Forget the full buckets, unless the last sweep was less than
        ``SWEEP_SECONDS`` ago."""
        if now - self._swept < SWEEP_SECONDS:
            return
        self._swept = now
        self._buckets = {key: bucket for key, bucket in self._buckets.items() if not bucket.full_at(now)}


class RateLimiter:
    """The verdict on each incoming message of one connection."""

    __slots__ = ("_messages", "_strikes")

    def __init__(self, rate: float, burst: int, strikes: int, now: float) -> None:
        self._messages = TokenBucket(burst, rate, now)
        self._strikes = TokenBucket(strikes, 1.0, now)

    def admit(self, now: float) -> Verdict:
        if self._messages.take(now):
            return Verdict.ACCEPT
        return Verdict.REJECT if self._strikes.take(now) else Verdict.CLOSE
