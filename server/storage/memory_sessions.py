"""How the memory store keeps sessions: each header and each log as plain
tuples of scalars, not as the dataclasses the store hands out.

A process that holds tens of thousands of games holds millions of log
entries.  Objects the garbage collector tracks (a dataclass instance, a
list) make every full collection walk them, so its pauses grow with the
games held; a tuple holding only scalars is untracked by the collector
after the first collection it survives, and costs it nothing from then
on (docs/architecture.md, "Garbage collection").  The store builds a
``SessionHeader`` and ``Action`` entries again on every read, which are
the fresh copies a reader is owed anyway.

A log is one tuple, replaced by a longer one on each append: copying its
entries (pointers) costs a few microseconds for a long game, and a list
would be one more tracked object per game.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from server.model.records import Action, SessionHeader

PackedHeader = tuple[Any, ...]
PackedEntry = tuple[str, str, int]
PackedLog = tuple[PackedEntry, ...]

FIELDS = tuple(field.name for field in fields(SessionHeader))
OWNER = FIELDS.index("owner")
STATUS = FIELDS.index("status")
CREATED_MS = FIELDS.index("created_ms")
_OPTIONS = FIELDS.index("options")
_UNLISTED = FIELDS.index("unlisted")


def pack_header(header: SessionHeader) -> PackedHeader:
    """``header`` as a tuple of its fields in order; its options as (name,
    value) pairs and its reasons as a tuple."""
    values = [getattr(header, name) for name in FIELDS]
    values[_OPTIONS] = tuple(header.options.items())
    values[_UNLISTED] = tuple(header.unlisted)
    return tuple(values)


def unpack_header(packed: PackedHeader) -> SessionHeader:
    """A new ``SessionHeader`` from what ``pack_header`` made."""
    values = dict(zip(FIELDS, packed))
    values["options"] = dict(values["options"])
    values["unlisted"] = list(values["unlisted"])
    return SessionHeader(**values)


def pack_entry(action: Action) -> PackedEntry:
    return (action.kind, action.text, action.at_ms)


def unpack_log(log: PackedLog) -> list[Action]:
    return [Action(*entry) for entry in log]
