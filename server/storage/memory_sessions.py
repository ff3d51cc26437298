"""How the memory store keeps sessions: each header and each log as plain
tuples of scalars, not as the dataclasses the store hands out.

A process that holds tens of thousands of games holds millions of log
entries.  Objects the garbage collector tracks (a dataclass instance, a
list) make every full collection walk them, so its pauses grow with the
games held; a tuple holding only untracked values (scalars, such
tuples) is untracked by the first collection that finds it so, and costs
the collector nothing from then on (docs/architecture.md, "Garbage
collection").  The store builds a ``SessionHeader`` and ``Action``
entries again on every read, which are the fresh copies a reader is owed
anyway.

A log is a tuple of chunks of ``CHUNK`` entries (the last one may be
shorter), replaced by a longer one on each append, which copies the last
chunk and the pointers to the others.  A flat tuple of the entries copied
the whole log on each append, and each new copy is a young object that
the next young collection walks whole and untracks entry by entry: that
grew with the game, to about 10 µs an append at 500 entries and 28 µs at
2,000, where chunks take 2 µs at any length (appends to 200 logs, with
the collector at the server's thresholds).  A list would be one more
tracked object per game.

A chunk holds its entries' fields in a row (kind, text, time, kind, ...),
not a tuple per entry.  A young collection untracks the tuples that
survive it in the order it finds them reachable, and a new entry reachable
only through its new chunk comes after the chunk: a chunk of entry tuples
outlived its first collection tracked and reached the middle generation,
where thousands of them (every game appended to since the last middle
collection) took 10-20 ms to walk with 20,000 games held.  A chunk of
scalars is untracked by the first collection that meets it.
"""

from __future__ import annotations

import json

from server.model.records import Action, SessionHeader

PackedHeader = tuple[str, str, int, str]
"""A header's owner, status and creation time (what the store's scans
read) and the whole header as JSON (what a read returns), as the other
stores keep it: all scalars, with no tuple inside, since a tuple is
untracked only once what it holds already is."""
PackedLog = tuple[tuple[str | int, ...], ...]

CHUNK = 64
"""Entries per chunk of a log: an append copies at most this many
entries and one pointer per ``CHUNK`` entries before them."""
FIELDS = 3
"""Fields of an entry in a chunk: its kind, text and time."""

OWNER, STATUS, CREATED_MS = 0, 1, 2


def pack_header(header: SessionHeader) -> PackedHeader:
    document = json.dumps(header.to_dict(), separators=(",", ":"))
    return (str(header.owner), str(header.status), int(header.created_ms), document)


def unpack_header(packed: PackedHeader) -> SessionHeader:
    """A new ``SessionHeader`` from what ``pack_header`` made."""
    return SessionHeader.from_dict(json.loads(packed[3]))


def appended(log: PackedLog, action: Action) -> PackedLog:
    """``log`` with ``action`` after its entries."""
    entry = action.plain()
    if log and len(log[-1]) < CHUNK * FIELDS:
        return log[:-1] + (log[-1] + entry,)
    return log + (entry,)


def log_length(log: PackedLog) -> int:
    return ((len(log) - 1) * CHUNK * FIELDS + len(log[-1])) // FIELDS if log else 0


def unpack_log(log: PackedLog) -> list[Action]:
    return [
        Action(str(chunk[at]), str(chunk[at + 1]), int(chunk[at + 2]))
        for chunk in log
        for at in range(0, len(chunk), FIELDS)
    ]
