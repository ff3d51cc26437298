"""The memory store's presence (``server.storage.presence``): leases,
live entries and what outlives them, in dicts of one process.

A player's last seen and appear-offline setting are kept as long as an
identity, from their last write, on the store's clock; ``expire_due``
drops what is past that.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .memory_deadlines import due_in_front, rewritten
from .presence import DeadLease, LivePresence, PresenceStore, StoredPresence


@dataclass
class _Kept:
    """What outlives a player's connections, and when it was last written."""

    written_s: float
    last_seen_ms: int | None = None
    hidden_seen_ms: int | None = None
    live: dict[str, LivePresence] = field(default_factory=dict)


class MemoryPresence(PresenceStore):
    """``seconds``: the store's clock, which identities' lifetimes are read on."""

    def __init__(self, seconds: Callable[[], float], identity_seconds: int | None) -> None:
        self._seconds = seconds
        self._kept_seconds = identity_seconds
        self._leases: dict[str, tuple[int, int]] = {}
        """origin -> (deadline, last renewal), in ms."""
        self._held_by: dict[str, set[str]] = {}
        self._kept: dict[str, _Kept] = {}

    def _kept_of(self, player_id: str) -> _Kept | None:
        kept = self._kept.get(player_id)
        if kept is not None and self._kept_seconds is not None and kept.written_s + self._kept_seconds <= self._seconds():
            del self._kept[player_id]
            return None
        return kept

    def _kept_written(self, player_id: str) -> _Kept:
        kept = self._kept_of(player_id) or _Kept(self._seconds())
        kept.written_s = self._seconds()
        rewritten(self._kept, player_id, kept)
        return kept

    def _presence_due(self) -> int:
        """Drop every player's kept presence past its lifetime; how many."""
        seconds, now = self._kept_seconds, self._seconds()
        if seconds is None:
            return 0
        due = due_in_front(self._kept, lambda kept: kept.written_s + seconds <= now)
        return sum(self._kept_of(player_id) is None for player_id in due)

    async def renew_presence_lease(self, origin: str, now_ms: int, lease_ms: int) -> None:
        self._leases[origin] = (now_ms + lease_ms, now_ms)

    async def put_presence(self, origin: str, player_id: str, live: LivePresence | None, now_ms: int) -> None:
        held_by = self._held_by
        kept = self._kept_written(player_id)
        kept.last_seen_ms = max(kept.last_seen_ms or 0, now_ms)
        if live is None:
            kept.live.pop(origin, None)
            held_by.get(origin, set()).discard(player_id)
        else:
            kept.live[origin] = live
            held_by.setdefault(origin, set()).add(player_id)

    async def presence(self, player_ids: list[str], now_ms: int) -> dict[str, StoredPresence]:
        leases = self._leases
        found = {}
        for player_id in player_ids:
            kept = self._kept_of(player_id)
            if kept is None:
                found[player_id] = StoredPresence()
                continue
            live = {origin: entry for origin, entry in kept.live.items() if leases.get(origin, (0, 0))[0] > now_ms}
            found[player_id] = StoredPresence(live, kept.last_seen_ms, kept.hidden_seen_ms)
        return found

    async def hide_presence(self, player_id: str, hidden_seen_ms: int | None) -> None:
        self._kept_written(player_id).hidden_seen_ms = hidden_seen_ms

    async def reap_presence_leases(self, now_ms: int, limit: int = 100) -> list[DeadLease]:
        leases, held_by, kept_by = self._leases, self._held_by, self._kept
        dead = [origin for origin, (deadline, _) in leases.items() if deadline <= now_ms][:limit]
        reaped = []
        for origin in dead:
            _, renewed_ms = leases.pop(origin)
            players = sorted(held_by.pop(origin, set()))
            for player_id in players:
                kept = kept_by.get(player_id)
                if kept is not None and kept.live.pop(origin, None) is not None:
                    kept.last_seen_ms = max(kept.last_seen_ms or 0, renewed_ms)
            reaped.append(DeadLease(origin, renewed_ms, players))
        return reaped
