"""The SQLite store's devices, link codes and attempt counters: each
function is one call of the store, run as ``Tables`` operations are, in
one transaction of the writer thread, so each is atomic by itself (a link
code is read and deleted in one step; a rotation swaps the token rows and
the device's hash together).

A player's devices are written (a ``device_sets`` row, and a ``devices``
row each) at their first change or the first use of a token; until then
the player's own token is its one device (``first_device``).
"""

from __future__ import annotations

from .devices_base import Device, first_device
from .sqlite_tables import Tables
from server.model.records import PlayerRecord

DEVICE_COLUMNS = "device_id, name, created_ms, last_seen_ms, token_hash"


def _kept(tables: Tables, player_id: str) -> list[Device] | None:
    """The player's written devices, None while they are not written."""
    if tables._one("SELECT 1 FROM device_sets WHERE player_id = ?", player_id) is None:
        return None
    rows = tables.db.execute(f"SELECT {DEVICE_COLUMNS} FROM devices WHERE player_id = ?", (player_id,)).fetchall()
    return [Device(*row) for row in rows]


def _insert(tables: Tables, player_id: str, device: Device) -> None:
    tables.db.execute(f"INSERT INTO devices (player_id, {DEVICE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                      (player_id, device.device_id, device.name, device.created_ms, device.last_seen_ms,
                       device.token_hash))


def _written(tables: Tables, player_id: str) -> list[Device] | None:
    """The player's devices, written now if they were not (None: no such player)."""
    player = tables.get_player(player_id)
    if player is None:
        return None
    kept = _kept(tables, player_id)
    if kept is not None:
        return kept
    first = first_device(player)
    tables.db.execute("INSERT INTO device_sets VALUES (?)", (player_id,))
    _insert(tables, player_id, first)
    return [first]


def device_by_token_hash(tables: Tables, token_hash: str, seen_ms: int | None) -> tuple[PlayerRecord, Device] | None:
    player_id = tables.token_owner(token_hash)
    devices = None if player_id is None else _written(tables, player_id)
    device = next((device for device in devices or () if device.token_hash == token_hash), None)
    player = None if player_id is None else tables.get_player(player_id)
    if device is None or player is None:
        return None
    if seen_ms is not None:
        device.last_seen_ms = seen_ms
        tables.db.execute("UPDATE devices SET last_seen_ms = ? WHERE player_id = ? AND device_id = ?",
                          (seen_ms, player.player_id, device.device_id))
    return player, device


def devices(tables: Tables, player_id: str) -> list[Device]:
    player = tables.get_player(player_id)
    if player is None:
        return []
    kept = _kept(tables, player_id)
    return sorted([first_device(player)] if kept is None else kept,
                  key=lambda device: (device.created_ms, device.device_id))


def add_device(tables: Tables, player_id: str, device: Device, limit: int) -> bool:
    kept = _written(tables, player_id)
    if kept is None or len(kept) >= limit:
        return False
    _insert(tables, player_id, device)
    tables.db.execute("INSERT OR REPLACE INTO tokens VALUES (?, ?)", (device.token_hash, player_id))
    tables._renew(player_id)
    return True


def _device(tables: Tables, player_id: str, device_id: str) -> Device | None:
    return next((device for device in _written(tables, player_id) or () if device.device_id == device_id), None)


def rename_device(tables: Tables, player_id: str, device_id: str, name: str) -> None:
    if _device(tables, player_id, device_id) is not None:
        tables.db.execute("UPDATE devices SET name = ? WHERE player_id = ? AND device_id = ?",
                          (name, player_id, device_id))


def revoke_device(tables: Tables, player_id: str, device_id: str) -> bool:
    device = _device(tables, player_id, device_id)
    if device is None:
        return False
    tables.db.execute("DELETE FROM devices WHERE player_id = ? AND device_id = ?", (player_id, device_id))
    tables.db.execute("DELETE FROM tokens WHERE token_hash = ?", (device.token_hash,))
    return True


def rotate_device_token(tables: Tables, player_id: str, device_id: str, token_hash: str) -> bool:
    device = _device(tables, player_id, device_id)
    if device is None:
        return False
    tables.db.execute("DELETE FROM tokens WHERE token_hash = ?", (device.token_hash,))
    tables.db.execute("INSERT OR REPLACE INTO tokens VALUES (?, ?)", (token_hash, player_id))
    tables.db.execute("UPDATE devices SET token_hash = ? WHERE player_id = ? AND device_id = ?",
                      (token_hash, player_id, device_id))
    return True


def put_link_code(tables: Tables, code_hash: str, player_id: str, keep_seconds: int) -> None:
    tables.db.execute("INSERT OR REPLACE INTO link_codes VALUES (?, ?, ?)",
                      (code_hash, player_id, tables.now + keep_seconds))


def take_link_code(tables: Tables, code_hash: str) -> str | None:
    row = tables._one("SELECT player_id, expires_at FROM link_codes WHERE code_hash = ?", code_hash)
    if row is None:
        return None
    tables.db.execute("DELETE FROM link_codes WHERE code_hash = ?", (code_hash,))
    return str(row[0]) if row[1] > tables.now else None


def count_attempt(tables: Tables, counter: str, window_seconds: int) -> int:
    tables.db.execute("DELETE FROM attempts WHERE counter = ? AND expires_at <= ?", (counter, tables.now))
    tables.db.execute("INSERT INTO attempts VALUES (?, 1, ?) ON CONFLICT (counter) DO UPDATE SET count = count + 1",
                      (counter, tables.now + window_seconds))
    return int(tables._one("SELECT count FROM attempts WHERE counter = ?", counter)[0])
