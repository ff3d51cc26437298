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

A log is a flat tuple: its number of entries, then chunks of ``CHUNK``
entries each (the last one may be shorter), replaced by a longer tuple on
each append, which copies the last chunk and the pointers to the others.
A flat tuple of the entries copied the whole log on each append, and each
new copy is a young object that the next young collection walks whole and
untracks entry by entry: that grew with the game, to about 10 µs an
append at 500 entries and 28 µs at 2,000, where chunks take well under
1 µs at any length.  A list would be one more tracked object per game.

A chunk is bytes, the entries' MessagePack arrays one after the other,
and bytes are never tracked, so a log's tuple holds only untracked values
from the moment it is made and the first collection that meets it
untracks it.  Chunks that were tuples (of entry tuples, then of the
entries' fields in a row) each made a young collection keep something
tracked, since it untracks the tuples that survive it in the order it
finds them reachable and a new chunk, reachable only through the new
tuple, comes after it: with 20,000 games held a middle collection walked
thousands of these tuples and took 8.6 to 16.1 ms.  Chunks of JSON lines
were untracked too, but ``json``'s encoder builds itself anew on each
call, which made the append a tenth of an action's time on the server;
one MessagePack ``Packer`` is reused.  The count in front makes the
length one read instead of a scan of the last chunk.  A read unpacks the
chunks with one ``Unpacker``; reads come at a ``hello``, a resync or a
replay, not at each action.
"""

from __future__ import annotations

import heapq
import json
from typing import Final, cast

import msgpack

from server.model.records import Action, SessionHeader

PackedHeader = tuple[str, str, int, str]
"""A header's owner, status and creation time (what the store's scans
read) and the whole header as JSON (what a read returns), as the other
stores keep it: all scalars, with no tuple inside, since a tuple is
untracked only once what it holds already is."""
PackedLog = tuple[int | bytes, ...]
"""The number of entries, then the chunks."""

EMPTY_LOG: PackedLog = (0,)

CHUNK = 64
"""Entries per chunk of a log: an append copies at most this many
entries' bytes and one pointer per ``CHUNK`` entries before them."""

OWNER: Final = 0
STATUS: Final = 1
CREATED_MS: Final = 2

_pack_entry = msgpack.Packer(autoreset=True).pack


def pack_header(header: SessionHeader) -> PackedHeader:
    document = json.dumps(header.to_dict(), separators=(",", ":"))
    return (str(header.owner), str(header.status), int(header.created_ms), document)


def unpack_header(packed: PackedHeader) -> SessionHeader:
    """A new ``SessionHeader`` from what ``pack_header`` made."""
    return SessionHeader.from_dict(json.loads(packed[3]))


def appended(log: PackedLog, action: Action) -> PackedLog:
    """``log`` with ``action`` after its entries.  ``Packer`` packs a
    ``str`` subclass (``ActionKind``) as a plain string, and a read makes
    exact ``str`` and ``int`` again."""
    entry = _pack_entry((action.kind, action.text, action.at_ms))
    length = log_length(log)
    if length % CHUNK:
        return (length + 1, *log[1:-1], cast(bytes, log[-1]) + entry)
    return (length + 1, *log[1:], entry)


def log_length(log: PackedLog) -> int:
    return cast(int, log[0])


def unpack_log(log: PackedLog) -> list[Action]:
    unpacker = msgpack.Unpacker(raw=False, use_list=False)
    for chunk in log[1:]:
        unpacker.feed(cast(bytes, chunk))
    return [Action(str(kind), str(text), int(at_ms)) for kind, text, at_ms in unpacker]


class SessionIndex:
    """Each owner's games and the games in play, by id, kept beside the
    memory store's headers: a player's games (which ``hello`` and each
    new game ask for) and the live games (``list_games``) are then found
    without a pass over every game stored, finished ones included.  Ids
    keep the order they came in, as the headers do, so games made in the
    same millisecond list as a pass over the headers listed them."""

    def __init__(self) -> None:
        self.owned: dict[str, dict[str, None]] = {}
        self.live: dict[str, None] = {}

    def put(self, game_id: str, header: PackedHeader) -> None:
        """``game_id``'s header is now ``header`` (its owner never changes)."""
        self.owned.setdefault(header[OWNER], {})[game_id] = None
        if header[STATUS] == "playing":
            self.live[game_id] = None
        else:
            self.live.pop(game_id, None)

    def drop(self, game_id: str, header: PackedHeader | None) -> None:
        """``game_id`` and its ``header`` (None: there was none) are gone."""
        self.live.pop(game_id, None)
        owned = self.owned.get(header[OWNER]) if header is not None else None
        if header is not None and owned is not None:
            owned.pop(game_id, None)
            if not owned:
                del self.owned[header[OWNER]]


def newest(headers: list[PackedHeader], limit: int) -> list[SessionHeader]:
    """The ``limit`` newest of ``headers``, newest first (of two made in the
    same millisecond, the one listed first)."""
    return [unpack_header(h) for h in heapq.nlargest(limit, headers, key=lambda h: h[CREATED_MS])]
