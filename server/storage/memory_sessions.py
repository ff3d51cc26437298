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

A chunk is text, one JSON line per entry, and text is never tracked, so
a log's tuple of chunks holds only untracked values from the moment it
is made and the first collection that meets it untracks it.  Chunks that
were tuples (of entry tuples, then of the entries' fields in a row)
each made a young collection keep something tracked, since it untracks
the tuples that survive it in the order it finds them reachable and a
new chunk, reachable only through the new tuple of chunks, comes after
it: the tuple of chunks of every game appended to outlived its first
collection and reached the middle generation, where with 20,000 games
held a middle collection walked 17,600 to 24,100 objects, thousands of
them these tuples, and took 8.6 to 16.1 ms.  A read decodes each chunk
with one ``json.loads``; reads come at a ``hello``, a resync or a
replay, not at each action.
"""

from __future__ import annotations

import json

from server.model.records import Action, SessionHeader

PackedHeader = tuple[str, str, int, str]
"""A header's owner, status and creation time (what the store's scans
read) and the whole header as JSON (what a read returns), as the other
stores keep it: all scalars, with no tuple inside, since a tuple is
untracked only once what it holds already is."""
PackedLog = tuple[str, ...]

CHUNK = 64
"""Entries per chunk of a log: an append copies at most this many
entries' text and one pointer per ``CHUNK`` entries before them."""

OWNER, STATUS, CREATED_MS = 0, 1, 2

_encode_entry = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def pack_header(header: SessionHeader) -> PackedHeader:
    document = json.dumps(header.to_dict(), separators=(",", ":"))
    return (str(header.owner), str(header.status), int(header.created_ms), document)


def unpack_header(packed: PackedHeader) -> SessionHeader:
    """A new ``SessionHeader`` from what ``pack_header`` made."""
    return SessionHeader.from_dict(json.loads(packed[3]))


def appended(log: PackedLog, action: Action) -> PackedLog:
    """``log`` with ``action`` after its entries.  JSON escapes a line
    break inside a string, so one separates the entries of a chunk."""
    line = _encode_entry(action.plain())
    if log and log[-1].count("\n") < CHUNK - 1:
        return log[:-1] + (log[-1] + "\n" + line,)
    return log + (line,)


def log_length(log: PackedLog) -> int:
    return (len(log) - 1) * CHUNK + log[-1].count("\n") + 1 if log else 0


def unpack_log(log: PackedLog) -> list[Action]:
    return [
        Action(str(kind), str(text), int(at_ms))
        for chunk in log
        for kind, text, at_ms in json.loads("[" + chunk.replace("\n", ",") + "]")
    ]
