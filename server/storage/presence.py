"""The store's part of presence: which server process holds which player,
under a lease each process renews, and what outlives a connection (when
a player was last seen, whether it appears offline).

A process writes one ``LivePresence`` per player it holds and renews one
lease for all of them (``renew_presence_lease``), so keeping ten thousand
players online costs one write every few seconds, not ten thousand.  A
player's live entries count only while their process's lease holds: a
reader never sees a dead process's players online, whether or not anyone
has reaped its lease yet.  ``reap_presence_leases`` is how some process
learns that one died: it takes each expired lease in one atomic step, so
of two processes reaping at once exactly one gets it (and tells friends).

Times are the callers' (milliseconds of the server's clock), never the
back end's: the lease rules are the server's (``server.social.presence``)
and a test moves them with a fake clock.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class LivePresence:
    """What the process holding a player says of it: ``away`` (the client
    said so, or it sent nothing for a while), what it is doing
    (``activity``, the wire's activity as a JSON object) and since when."""

    away: bool
    activity: dict[str, Any]
    changed_ms: int

    def to_dict(self) -> dict[str, Any]:
        return {"away": self.away, "activity": self.activity, "changed_ms": self.changed_ms}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LivePresence:
        return cls(bool(data["away"]), dict(data["activity"]), int(data["changed_ms"]))


@dataclass(frozen=True)
class StoredPresence:
    """One player as the store has it: its live entries by process (only
    processes whose lease holds), when it was last seen (None: never), and
    ``hidden_seen_ms``, set while it appears offline: the last seen its
    friends are shown instead."""

    live: dict[str, LivePresence] = field(default_factory=dict)
    last_seen_ms: int | None = None
    hidden_seen_ms: int | None = None


@dataclass(frozen=True)
class DeadLease:
    """A process whose lease ran out, taken by the one reaper that got it:
    the players it held, now offline there, last seen at ``renewed_ms``."""

    origin: str
    renewed_ms: int
    player_ids: list[str]


class PresenceStore(ABC):
    """The presence half of ``Store`` (every back end implements both)."""

    @abstractmethod
    async def renew_presence_lease(self, origin: str, now_ms: int, lease_ms: int) -> None:
        """Process ``origin`` is alive at ``now_ms``: its players' live
        entries hold until ``now_ms + lease_ms``."""

    @abstractmethod
    async def put_presence(self, origin: str, player_id: str, live: LivePresence | None, now_ms: int) -> None:
        """Set what ``origin`` says of a player (``None``: the player left
        that process), and note it seen at ``now_ms``.  The player's last
        seen and appear-offline setting are kept as long as an identity
        (``Retention``)."""

    @abstractmethod
    async def presence(self, player_ids: list[str], now_ms: int) -> dict[str, StoredPresence]:
        """Each named player as stored (an empty ``StoredPresence`` for one
        never seen), in one round trip, leaving out live entries of any
        process whose lease ended by ``now_ms``."""

    @abstractmethod
    async def hide_presence(self, player_id: str, hidden_seen_ms: int | None) -> None:
        """Appear offline, showing ``hidden_seen_ms`` as the last seen, or
        (``None``) stop."""

    @abstractmethod
    async def reap_presence_leases(self, now_ms: int, limit: int = 100) -> list[DeadLease]:
        """Take up to ``limit`` leases that ended by ``now_ms``: each is
        removed with its process's live entries, and its players' last seen
        moved up to the lease's last renewal, atomically per lease, so a
        lease is returned to one caller only, whoever else reaps at once."""
