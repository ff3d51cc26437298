"""The SQLite store's presence (``server.storage.presence``), each call one
transaction of the store's writer thread (``sqlite_writer``), so reaping
a lease and clearing its players is atomic by itself.

A player's last seen and appear-offline setting expire as an identity
does, from their last write, on the store's clock (``expires_at``); the
leases and live entries are the server's to end (``reap_presence_leases``).
One process holds a database, so a lease here outlives only a crash of
that process, and is reaped by the next one to start.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from .presence import DeadLease, LivePresence, PresenceStore, StoredPresence
from .sqlite_values import ALIVE, dumps
from .sqlite_writer import Writer

KEEP = ("INSERT INTO presence_kept (player_id, last_seen_ms, hidden_seen_ms, expires_at) VALUES (?, ?, NULL, ?) "
        "ON CONFLICT (player_id) DO UPDATE SET expires_at = excluded.expires_at, "
        "last_seen_ms = CASE WHEN excluded.last_seen_ms IS NULL THEN last_seen_ms "
        "ELSE max(coalesce(last_seen_ms, 0), excluded.last_seen_ms) END, "
        "hidden_seen_ms = CASE WHEN presence_kept.expires_at IS NULL OR presence_kept.expires_at > ? "
        "THEN hidden_seen_ms END")
"""Note a player seen (or only written: last seen NULL), renewing its lifetime;
a row past its lifetime starts afresh."""


class SqlitePresence(PresenceStore):
    """Needs the store's ``_writer`` and ``_identity_seconds``."""

    _writer: Writer
    _identity_seconds: int | None

    def _expires(self, now: float) -> float | None:
        return None if self._identity_seconds is None else now + self._identity_seconds

    async def _presence_due(self) -> int:
        def job(db: sqlite3.Connection, now: float) -> int:
            return db.execute("DELETE FROM presence_kept WHERE expires_at <= ?", (now,)).rowcount

        dropped: int = await self._writer.run(job)
        return dropped

    async def renew_presence_lease(self, origin: str, now_ms: int, lease_ms: int) -> None:
        def job(db: sqlite3.Connection, now: float) -> None:
            db.execute("INSERT OR REPLACE INTO presence_leases VALUES (?, ?, ?)", (origin, now_ms + lease_ms, now_ms))

        await self._writer.run(job)

    async def put_presence(self, origin: str, player_id: str, live: LivePresence | None, now_ms: int) -> None:
        entry = None if live is None else dumps(live.to_dict())

        def job(db: sqlite3.Connection, now: float) -> None:
            db.execute(KEEP, (player_id, now_ms, self._expires(now), now))
            if entry is None:
                db.execute("DELETE FROM presence_live WHERE player_id = ? AND origin = ?", (player_id, origin))
            else:
                db.execute("INSERT OR REPLACE INTO presence_live VALUES (?, ?, ?)", (player_id, origin, entry))

        await self._writer.run(job)

    async def presence(self, player_ids: list[str], now_ms: int) -> dict[str, StoredPresence]:
        def job(db: sqlite3.Connection, now: float) -> dict[str, StoredPresence]:
            found = {}
            for player_id in player_ids:
                kept = db.execute(
                    f"SELECT last_seen_ms, hidden_seen_ms FROM presence_kept WHERE player_id = ? AND {ALIVE}",
                    (player_id, now),
                ).fetchone()
                rows = db.execute(
                    "SELECT l.origin, l.entry FROM presence_live l JOIN presence_leases p ON p.origin = l.origin "
                    "WHERE l.player_id = ? AND p.deadline_ms > ?",
                    (player_id, now_ms),
                ).fetchall()
                live = {origin: LivePresence.from_dict(json.loads(entry)) for origin, entry in rows}
                found[player_id] = StoredPresence(live, *(kept or (None, None)))
            return found

        result: dict[str, StoredPresence] = await self._writer.run(job)
        return result

    async def hide_presence(self, player_id: str, hidden_seen_ms: int | None) -> None:
        def job(db: sqlite3.Connection, now: float) -> None:
            db.execute(KEEP, (player_id, None, self._expires(now), now))
            db.execute("UPDATE presence_kept SET hidden_seen_ms = ? WHERE player_id = ?", (hidden_seen_ms, player_id))

        await self._writer.run(job)

    async def reap_presence_leases(self, now_ms: int, limit: int = 100) -> list[DeadLease]:
        def job(db: sqlite3.Connection, now: float) -> list[DeadLease]:
            leases: list[Any] = db.execute(
                "SELECT origin, renewed_ms FROM presence_leases WHERE deadline_ms <= ? ORDER BY origin LIMIT ?",
                (now_ms, limit),
            ).fetchall()
            reaped = []
            for origin, renewed_ms in leases:
                players = [row[0] for row in db.execute(
                    "SELECT player_id FROM presence_live WHERE origin = ? ORDER BY player_id", (origin,)
                )]
                db.executemany(
                    "UPDATE presence_kept SET last_seen_ms = max(coalesce(last_seen_ms, 0), ?) WHERE player_id = ?",
                    [(renewed_ms, player_id) for player_id in players],
                )
                db.execute("DELETE FROM presence_live WHERE origin = ?", (origin,))
                db.execute("DELETE FROM presence_leases WHERE origin = ?", (origin,))
                reaped.append(DeadLease(origin, int(renewed_ms), players))
            return reaped

        result: list[DeadLease] = await self._writer.run(job)
        return result
