"""What the memory store holds, listed whole for a copy to another store
(``Store.held``): kept apart from ``server.storage.memory`` because only
tools ask, never a request."""

from __future__ import annotations

from typing import Any, Mapping

from .base import HELD_SPACES, Held

DOCUMENT_EXPIRY = "document:"
INDEX_EXPIRY = "index:"
SETTING_EXPIRY = "setting"
EXPIRIES = {"session": "session", "board": "board", "setting": SETTING_EXPIRY, "document": DOCUMENT_EXPIRY,
            "index": INDEX_EXPIRY}
"""The first half of an expiry key (``MemoryStore._expires``) of each
space that expires; a document's and an index's add their kind."""
EMPTY_IS_GONE = ("board", "stock", "index")
"""Spaces whose empty entries Redis would not keep (a key without members)."""


def held_in(space: str, table: Mapping[Any, Any], expires: Mapping[tuple[str, str], float], now: float) -> list[Held]:
    """The names of ``table``, the memory store's table of ``space`` (keyed
    by name, or by (kind, name)), with their remaining lifetimes; the
    caller has dropped what was due (``expire_due``)."""
    if space not in HELD_SPACES:
        raise ValueError(f"no such space: {space}")
    held = []
    for key, value in table.items():
        if space in EMPTY_IS_GONE and not value:
            continue
        kind, name = key if isinstance(key, tuple) else ("", key)
        deadline = expires.get((EXPIRIES[space] + kind, name)) if space in EXPIRIES else None
        held.append(Held(space, name, kind, None if deadline is None else deadline - now))
    return sorted(held, key=lambda item: (item.kind, item.name))


def ranked_entries(entries: dict[str, float]) -> list[tuple[str, float]]:
    """An index's (key, score) pairs, highest score first, then by key."""
    return sorted(entries.items(), key=lambda item: (-item[1], item[0]))
