"""The SQLite store's plain values, inside one transaction of its writer
thread: settings (first writer wins, claims, guarded replacement),
first-in first-out stocks, and JSON documents with their indexes.
``sqlite_tables.Tables`` adds the game's own tables on top.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

ALIVE = "(expires_at IS NULL OR expires_at > ?)"
"""The condition of a row not past its deadline, given ``now``."""


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class ValueTables:
    """The values as one transaction at the store's time ``now`` sees them;
    ``identity_seconds`` as ``Retention`` says (None: kept for ever)."""

    def __init__(self, db: sqlite3.Connection, now: float, identity_seconds: int | None) -> None:
        self.db = db
        self.now = now
        self.identity_seconds = identity_seconds

    def _one(self, sql: str, *args: Any) -> Any:
        return self.db.execute(sql, args).fetchone()

    def _expiry(self, keep_seconds: float | None) -> float | None:
        return None if keep_seconds is None else self.now + keep_seconds

    # ------------------------------------------------------------ settings

    def get_setting(self, name: str) -> str | None:
        row = self._one(f"SELECT value FROM settings WHERE name = ? AND {ALIVE}", name, self.now)
        return None if row is None else str(row[0])

    def get_settings(self, *names: str) -> dict[str, str]:
        return {name: value for name in names if (value := self.get_setting(name)) is not None}

    def _put_setting(self, name: str, value: str, keep_seconds: float | None) -> None:
        self.db.execute("INSERT OR REPLACE INTO settings VALUES (?, ?, ?)", (name, value, self._expiry(keep_seconds)))

    def setting(self, name: str, default: str, keep_seconds: int | None) -> str:
        stored = self.get_setting(name)
        if stored is not None:
            return stored
        self._put_setting(name, default, keep_seconds)
        return default

    def claim(self, name: str, value: str, keep_seconds: int, while_holding: tuple[str, str]) -> str | None:
        held = self.get_setting(while_holding[0])
        if held is None or while_holding[1] not in held:
            return None
        return self.setting(name, value, keep_seconds)

    def replace_setting(self, name: str, expected: str, value: str | None, keep_seconds: int) -> bool:
        if self.get_setting(name) != expected:
            return False
        if value is None:
            self.db.execute("DELETE FROM settings WHERE name = ?", (name,))
        else:
            self._put_setting(name, value, keep_seconds)
        return True

    # ------------------------------------------------------------ stocks

    def stock_push(self, stock: str, item: str) -> int:
        self.db.execute("INSERT INTO stocks (stock, item) VALUES (?, ?)", (stock, item))
        return self.stock_size(stock)

    def stock_pop(self, stock: str) -> str | None:
        row = self._one("SELECT position, item FROM stocks WHERE stock = ? ORDER BY position LIMIT 1", stock)
        if row is None:
            return None
        self.db.execute("DELETE FROM stocks WHERE position = ?", (row[0],))
        return str(row[1])

    def stock_size(self, stock: str) -> int:
        return int(self._one("SELECT count(*) FROM stocks WHERE stock = ?", stock)[0])

    def stock_items(self, stock: str) -> list[str]:
        return [str(item) for (item,) in self.db.execute(
            "SELECT item FROM stocks WHERE stock = ? ORDER BY position", (stock,))]

    # ------------------------------------------------------------ documents

    def put_document(self, kind: str, key: str, value: dict[str, Any], keep_seconds: int | None) -> None:
        self.db.execute("INSERT OR REPLACE INTO documents VALUES (?, ?, ?, ?)",
                        (kind, key, dumps(value), self._expiry(keep_seconds)))

    def get_document(self, kind: str, key: str) -> dict[str, Any] | None:
        row = self._one(f"SELECT value FROM documents WHERE kind = ? AND key = ? AND {ALIVE}", kind, key, self.now)
        return None if row is None else dict(json.loads(row[0]))

    def get_documents(self, kind: str, *keys: str) -> dict[str, dict[str, Any]]:
        return {key: document for key in keys if (document := self.get_document(kind, key)) is not None}

    def _index_alive(self, kind: str, index: str) -> bool:
        return self._one(f"SELECT 1 FROM document_indexes WHERE kind = ? AND name = ? AND {ALIVE}",
                         kind, index, self.now) is not None

    def index_document(self, kind: str, index: str, key: str, score: float) -> None:
        """The index lives as long as its longest-lived document: a new
        index takes the document's deadline, a document without one makes
        the index permanent."""
        existed = self._index_alive(kind, index)
        if not existed:
            self.db.execute("DELETE FROM indexed WHERE kind = ? AND name = ?", (kind, index))
            self.db.execute("INSERT OR REPLACE INTO document_indexes VALUES (?, ?, NULL)", (kind, index))
        self.db.execute("INSERT OR REPLACE INTO indexed VALUES (?, ?, ?, ?)", (kind, index, key, score))
        document = self._one(f"SELECT expires_at FROM documents WHERE kind = ? AND key = ? AND {ALIVE}",
                             kind, key, self.now)
        if document is None:
            return
        deadline = document[0]
        if deadline is None or not existed:
            self.db.execute("UPDATE document_indexes SET expires_at = ? WHERE kind = ? AND name = ?",
                            (deadline, kind, index))
        else:
            self.db.execute("UPDATE document_indexes SET expires_at = max(expires_at, ?) "
                            "WHERE kind = ? AND name = ? AND expires_at IS NOT NULL", (deadline, kind, index))

    def index_entries(self, kind: str, index: str) -> list[tuple[str, float]]:
        if not self._index_alive(kind, index):
            return []
        rows = self.db.execute("SELECT key, score FROM indexed WHERE kind = ? AND name = ? ORDER BY score DESC, key",
                               (kind, index))
        return [(str(key), float(score)) for key, score in rows]

    def list_documents(self, kind: str, index: str, limit: int) -> list[dict[str, Any]]:
        if not self._index_alive(kind, index):
            return []
        rows = self.db.execute(
            "SELECT d.value FROM indexed i JOIN documents d ON d.kind = i.kind AND d.key = i.key "
            "WHERE i.kind = ? AND i.name = ? AND (d.expires_at IS NULL OR d.expires_at > ?) "
            "ORDER BY i.score DESC LIMIT ?",
            (kind, index, self.now, max(limit, 0)),
        )
        return [dict(json.loads(value)) for (value,) in rows]
