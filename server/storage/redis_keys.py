"""The Redis store's key names and the encodings of what it keeps in them.

Every key is named here, so the layout (listed in ``docs/storage.md``) is
one piece of code: the namespace that prefixes every key and channel, and
the Redis Cluster hash tag (the ``{...}`` part) that puts the keys one
script touches into one slot.  Keys of one session, one player or one
board share a tag, so each Lua script touches one slot; on a Redis
Cluster (``server/storage/redis_cluster.py``) the writes that span slots
are split into one transaction per slot.
"""

from __future__ import annotations

import json
from typing import Any

from server.model.records import PlayerRecord, Record

RECORD_SUMS = ("games", "wins", "moves", "time_ms", "hints", "undos")
EXTRA_PREFIX = "extra:"
COUNTER_PREFIX = "counter:"
"""What a game's own sum is kept under in a record hash (``counter:repairs``)."""
LEGACY_COUNTERS = ("repairs",)
"""Game sums a record hash kept under their bare names before a game named
its own (Broken Deck's repairs, until the ``counter:`` fields): read back
as the counter of that name, added to its ``counter:`` field's, since a
record stored before holds the one and the games after add to the other."""
IDENTITY_SUFFIXES: tuple[tuple[str, ...], ...] = ((), ("sessions",), ("records",), ("vegas",), ("settled",))
"""A player's keys that expire together (with each record hash, found from
``records``, and the ``DEVICE_SUFFIXES`` keys), in the order every player
script takes them as ``KEYS``."""
DEVICE_SUFFIXES = ("devices", "device_tokens", "device_seen")
"""A player's device keys, after the identity's in a device script's ``KEYS``."""


class RedisKeys:
    """The names of one namespace's keys and channels."""

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self.live = self._key("sessions", "live")
        self.outbox = self._key("outbox")
        self.health = self._key("health")

    def _key(self, *parts: str) -> str:
        return ":".join((self.namespace, *parts))

    def player(self, player_id: str, *suffix: str) -> str:
        return self._key("player", "{" + player_id + "}", *suffix)

    def identity(self, player_id: str) -> list[str]:
        return [self.player(player_id, *suffix) for suffix in IDENTITY_SUFFIXES]

    def record_prefix(self, player_id: str) -> str:
        """What a record key (``game/variant``) is appended to for its hash."""
        return self.player(player_id, "record", "")

    def token(self, token_hash: str) -> str:
        return self._key("token", token_hash)

    def devices(self, player_id: str) -> list[str]:
        """The identity's keys and then the player's device keys (``DEVICE_SUFFIXES``)."""
        return [*self.identity(player_id), *(self.player(player_id, suffix) for suffix in DEVICE_SUFFIXES)]

    def link_code(self, code_hash: str) -> str:
        return self._key("link", code_hash)

    def attempts(self, counter: str) -> str:
        return self._key("attempts", counter)

    def session(self, game_id: str, *suffix: str) -> str:
        return self._key("session", "{" + game_id + "}", *suffix)

    def board(self, board: str, *suffix: str) -> str:
        return self._key("board", "{" + board + "}", *suffix)

    def setting(self, name: str) -> str:
        return self._key("setting", name)

    def stock(self, stock: str) -> str:
        return self._key("stock", stock)

    def document(self, kind: str, key: str) -> str:
        return self._key("doc", kind, key)

    def index(self, kind: str, index: str) -> str:
        return self._key("index", kind, index)

    def presence(self, *parts: str) -> str:
        """Every presence key shares the one tag ``{presence}``: a lease, the
        set of players it holds and those players' hashes change together
        in one script (``server.storage.redis_presence``)."""
        return self._key("presence", "{presence}", *parts)

    def channel(self, channel: str) -> bytes:
        """A channel ``kind:id`` (``game:<game id>``, ``race:<race id>``)
        tagged by its id, so that on a cluster it shares the slot of the
        game's (or race's) keys, and a sharded publish goes to their shard."""
        kind, colon, name = channel.partition(":")
        return self._key("channel", kind + colon + "{" + name + "}" if colon else "{" + kind + "}").encode()


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def text(value: object) -> str:
    """A reply item as text; redis-py types replies loosely, so check here."""
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, str):
        return value
    raise TypeError(f"expected a bulk string from Redis, got {type(value).__name__}")


def player_of(player_id: str, fields: dict[bytes, bytes]) -> PlayerRecord | None:
    """The player of its hash, or None for an empty one (no such player, or expired)."""
    if not fields:
        return None
    return PlayerRecord(
        player_id=player_id,
        display_name=text(fields[b"display_name"]),
        token_hash=text(fields[b"token_hash"]),
        created_ms=int(fields[b"created_ms"]),
        bot=fields.get(b"bot") == b"1",
        address=text(fields[b"address"]) if b"address" in fields else None,
    )


def counter_field(name: str) -> str:
    return COUNTER_PREFIX + name


def _prefixed(values: dict[str, int], prefix: str) -> dict[str, int]:
    """The fields named ``prefix`` + something, by that something."""
    return {name.removeprefix(prefix): value for name, value in values.items() if name.startswith(prefix)}


def record_of(fields: dict[bytes, bytes]) -> Record:
    values = {text(name): int(value) for name, value in fields.items()}
    counters = _prefixed(values, COUNTER_PREFIX)
    for name in LEGACY_COUNTERS:
        if values.get(name):
            counters[name] = counters.get(name, 0) + values[name]
    return Record(
        **{name: values.get(name, 0) for name in RECORD_SUMS},
        counters=counters,
        best_moves=values.get("best_moves"),
        best_time_ms=values.get("best_time_ms"),
        extra=_prefixed(values, EXTRA_PREFIX),
    )
