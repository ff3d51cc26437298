"""The Redis store's presence (``server.storage.presence``).

Keys (``docs/storage.md``), all under the one Cluster tag ``{presence}``
so that reaping a lease and clearing its players is one script:

- ``presence:{presence}:leases``: sorted set, each process's lease by its
  deadline (ms of the servers' clock);
- ``presence:{presence}:renewed``: hash, each process's last renewal;
- ``presence:{presence}:origin:<origin>``: set, the players it holds;
- ``presence:{presence}:player:<id>``: hash, ``seen`` (last seen, ms),
  ``hidden`` (the last seen shown while appearing offline) and one
  ``@<origin>`` field per process holding the player (its live entry as
  JSON), kept as long as an identity from its last write.

One slot puts all presence on one Cluster master: a few small writes per
player per change and one per process every few seconds, which one
master carries for far more players than one slot's keys would hold.
"""

from __future__ import annotations

import json
from typing import Any

from .presence import DeadLease, LivePresence, PresenceStore, StoredPresence
from .redis_base import Command, RedisBase
from .redis_errors import guarded
from .redis_keys import dumps, text

LIVE = "@"
"""The prefix of a live entry's field in a player's hash: ``@<origin>``."""

# KEYS: leases, renewed, the origin's set of players, then each of those
# players' hashes (read from the set just before); ARGV: origin, now (ms),
# the players' lifetime in seconds ('' for none), then the players' ids.
# Takes the lease only if it ended by now and nobody changed its set since
# the caller read it; replies {renewed ms, players} or 'held' / 'changed'.
REAP_SCRIPT = """
local deadline = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not deadline or tonumber(deadline) > tonumber(ARGV[2]) then return 'held' end
if redis.call('SCARD', KEYS[3]) ~= #KEYS - 3 then return 'changed' end
for i = 4, #KEYS do
  if redis.call('SISMEMBER', KEYS[3], ARGV[i]) == 0 then return 'changed' end
end
local renewed = redis.call('HGET', KEYS[2], ARGV[1]) or '0'
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[3])
for i = 4, #KEYS do
  if redis.call('HDEL', KEYS[i], '@' .. ARGV[1]) == 1 then
    local seen = tonumber(redis.call('HGET', KEYS[i], 'seen') or '0')
    if tonumber(renewed) > seen then redis.call('HSET', KEYS[i], 'seen', renewed) end
    if ARGV[3] ~= '' then redis.call('EXPIRE', KEYS[i], ARGV[3]) end
  end
end
return {renewed}
"""
REAP_ATTEMPTS = 3
"""How often a reaper reads a dead lease's players again when a write of
its (not quite dead) process got in between."""


class RedisPresence(RedisBase, PresenceStore):
    """Presence on Redis; ``RedisStore`` inherits it."""

    def _player_key(self, player_id: str) -> str:
        return self._keys.presence("player", player_id)

    @guarded
    async def renew_presence_lease(self, origin: str, now_ms: int, lease_ms: int) -> None:
        keys = self._keys
        await self._write([
            ("ZADD", keys.presence("leases"), now_ms + lease_ms, origin),
            ("HSET", keys.presence("renewed"), origin, now_ms),
        ])

    @guarded
    async def put_presence(self, origin: str, player_id: str, live: LivePresence | None, now_ms: int) -> None:
        key = self._player_key(player_id)
        held = self._keys.presence("origin", origin)
        change: list[Command] = (
            [("HDEL", key, LIVE + origin), ("SREM", held, player_id)] if live is None
            else [("HSET", key, LIVE + origin, dumps(live.to_dict())), ("SADD", held, player_id)]
        )
        await self._write([*change, ("HSET", key, "seen", now_ms), *self._lasting(key)])

    @guarded
    async def presence(self, player_ids: list[str], now_ms: int) -> dict[str, StoredPresence]:
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.zrangebyscore(self._keys.presence("leases"), f"({now_ms}", "+inf")
            for player_id in player_ids:
                pipe.hgetall(self._player_key(player_id))
            replies = await pipe.execute()
        alive = {text(origin) for origin in replies[0]}
        return {player_id: _stored(fields, alive) for player_id, fields in zip(player_ids, replies[1:])}

    @guarded
    async def hide_presence(self, player_id: str, hidden_seen_ms: int | None) -> None:
        key = self._player_key(player_id)
        change: Command = ("HDEL", key, "hidden") if hidden_seen_ms is None else ("HSET", key, "hidden", hidden_seen_ms)
        await self._write([change, *self._lasting(key)])

    @guarded
    async def reap_presence_leases(self, now_ms: int, limit: int = 100) -> list[DeadLease]:
        keys = self._keys
        dead = await self._redis.zrangebyscore(keys.presence("leases"), "-inf", now_ms, start=0, num=limit)
        reaped = []
        for origin in (text(member) for member in dead):
            taken = await self._reap(origin, now_ms)
            if taken is not None:
                reaped.append(taken)
        return reaped

    async def _reap(self, origin: str, now_ms: int) -> DeadLease | None:
        keys = self._keys
        held = keys.presence("origin", origin)
        lifetime: str | int = "" if self._identity_seconds is None else self._identity_seconds
        for _ in range(REAP_ATTEMPTS):
            players = sorted(text(member) for member in await self._redis.smembers(held))
            reply: Any = await self._redis.eval(
                REAP_SCRIPT, 3 + len(players), keys.presence("leases"), keys.presence("renewed"), held,
                *[self._player_key(player_id) for player_id in players], origin, now_ms, lifetime, *players,
            )
            if reply == b"held":
                return None
            if reply != b"changed":
                return DeadLease(origin, int(reply[0]), players)
        return None


def _stored(fields: dict[bytes, bytes], alive: set[str]) -> StoredPresence:
    values = {text(name): text(value) for name, value in fields.items()}
    live = {
        name[len(LIVE):]: LivePresence.from_dict(json.loads(value))
        for name, value in values.items() if name.startswith(LIVE) and name[len(LIVE):] in alive
    }
    seen, hidden = values.get("seen"), values.get("hidden")
    return StoredPresence(live, None if seen is None else int(seen), None if hidden is None else int(hidden))
