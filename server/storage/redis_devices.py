"""The Redis store's devices, link codes and attempt counters.

A player's devices are in the player's slot (``{<player>}``): ``devices``
(device id to its name, creation time and token hash, JSON),
``device_tokens`` (token hash to device id) and ``device_seen`` (device id
to its last sight), written by scripts that renew the identity.  The
player's hash says ``devices 1`` once they are written; until then the
player's own token (``token_hash``) is its one device, written by the
first script that needs it (``WRITTEN_FUNCTION``), so a player stored
before devices existed keeps its token.

A token key (``token:<hash>``, its own slot) names the player, as it
always did; a token resolves only if the player's ``device_tokens`` has it
too.  So the player's slot decides, in one script: on a Redis Cluster a
revocation or rotation whose token key write fails after the player's
script ran still leaves the old token refused.  Each use of a token renews
every device's token key with the identity (one pipeline), so a device
unused for a while keeps its token as long as the player lives.

A link code is one key (``link:<code hash>``) taken by ``GETDEL``: of two
processes redeeming it at once, one gets it.  An attempt counter is one
key counted by ``INCR``, expiring at the end of its window.
"""

from __future__ import annotations

import json
from typing import Any, cast

from .devices_base import Device, first_device
from .redis_errors import guarded
from .redis_held import RedisHeld
from .redis_keys import player_of, text
from .redis_scripts import RENEW_FUNCTION
from server.model.records import PlayerRecord

# KEYS of every device script: the identity's 5 (``RedisKeys.devices``),
# then devices, device_tokens, device_seen.  ``written`` writes the first
# device from the player's hash once; the player must exist.
WRITTEN_FUNCTION = RENEW_FUNCTION + """
local function written()
  if redis.call('HEXISTS', KEYS[1], 'devices') == 1 then return end
  redis.call('HSET', KEYS[1], 'devices', '1')
  local first = redis.call('HMGET', KEYS[1], 'token_hash', 'created_ms')
  local id = 'd_' .. string.sub(first[1], 1, 12)
  redis.call('HSET', KEYS[6], id, cjson.encode({name = '', created_ms = tonumber(first[2]), token_hash = first[1]}))
  redis.call('HSET', KEYS[7], first[1], id)
end
"""

# ARGV: token hash, the sighting's ms or '', renew's two.  Replies {} for
# no such device, else the player's hash, the device id, its JSON, its
# last sight or '', and every token hash of the player's devices.
TOUCH_DEVICE_SCRIPT = WRITTEN_FUNCTION + """
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
written()
local id = redis.call('HGET', KEYS[7], ARGV[1])
if not id then return {} end
if ARGV[2] ~= '' then redis.call('HSET', KEYS[8], id, ARGV[2]) end
renew(ARGV[3], ARGV[4])
return {redis.call('HGETALL', KEYS[1]), id, redis.call('HGET', KEYS[6], id), redis.call('HGET', KEYS[8], id) or '',
        redis.call('HKEYS', KEYS[7])}
"""

# ARGV: device id, its JSON, its token hash, the most devices, renew's two,
# its last sight or ''.  Replies 1, or 0 (nothing written) for no such
# player or too many devices.
ADD_DEVICE_SCRIPT = WRITTEN_FUNCTION + """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
written()
if redis.call('HLEN', KEYS[6]) >= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', KEYS[6], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[7], ARGV[3], ARGV[1])
if ARGV[7] ~= '' then redis.call('HSET', KEYS[8], ARGV[1], ARGV[7]) end
renew(ARGV[5], ARGV[6])
return 1
"""

# ARGV: 'rename', 'revoke' or 'rotate', device id, the new name or token
# hash, renew's two.  Replies the device's token hash before the change,
# or nil (nothing written) for no such device.
CHANGE_DEVICE_SCRIPT = WRITTEN_FUNCTION + """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
written()
local stored = redis.call('HGET', KEYS[6], ARGV[2])
if not stored then return false end
local device = cjson.decode(stored)
local old = device['token_hash']
if ARGV[1] == 'revoke' then
  redis.call('HDEL', KEYS[6], ARGV[2])
  redis.call('HDEL', KEYS[7], old)
  redis.call('HDEL', KEYS[8], ARGV[2])
elseif ARGV[1] == 'rename' then
  device['name'] = ARGV[3]
  redis.call('HSET', KEYS[6], ARGV[2], cjson.encode(device))
else
  device['token_hash'] = ARGV[3]
  redis.call('HDEL', KEYS[7], old)
  redis.call('HSET', KEYS[7], ARGV[3], ARGV[2])
  redis.call('HSET', KEYS[6], ARGV[2], cjson.encode(device))
end
renew(ARGV[4], ARGV[5])
return old
"""

# KEYS: the counter; ARGV: the window's seconds.
COUNT_SCRIPT = """
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return count
"""


def _device(device_id: str, stored: bytes | str, seen: bytes | str | None) -> Device:
    fields = json.loads(stored)
    return Device(device_id, str(fields.get("name", "")), int(fields["created_ms"]),
                  int(seen) if seen else None, str(fields["token_hash"]))


class RedisDevices(RedisHeld):
    """Devices, link codes and attempt counters on Redis; see the module docstring."""

    def __init__(self, url: str, **options: Any) -> None:
        super().__init__(url, **options)
        self._touch_device = self._redis.register_script(TOUCH_DEVICE_SCRIPT)
        self._add_device = self._redis.register_script(ADD_DEVICE_SCRIPT)
        self._change_device = self._redis.register_script(CHANGE_DEVICE_SCRIPT)
        self._count = self._redis.register_script(COUNT_SCRIPT)

    def _token_lifetime(self) -> dict[str, Any]:
        return {"persist": True} if self._identity_seconds is None else {"ex": self._identity_seconds}

    @guarded
    async def device_by_token_hash(self, token_hash: str, seen_ms: int | None) -> tuple[PlayerRecord, Device] | None:
        found = await self._redis.getex(self._keys.token(token_hash), **self._token_lifetime())
        if found is None:
            return None
        player_id = text(found)
        reply = cast(list[Any], await self._touch_device(
            keys=self._keys.devices(player_id),
            args=[token_hash, "" if seen_ms is None else seen_ms, *self._renewal(player_id)],
        ))
        if not reply:
            return None
        flat, device_id, stored, seen, tokens = reply
        player = player_of(player_id, dict(zip(flat[::2], flat[1::2])))
        if player is None:
            return None
        others = [text(token) for token in tokens if text(token) != token_hash]
        if others:
            async with self._redis.pipeline(transaction=False) as pipe:
                for other in others:
                    if self._identity_seconds is None:
                        pipe.persist(self._keys.token(other))
                    else:
                        pipe.expire(self._keys.token(other), self._identity_seconds)
                await pipe.execute()
        return player, _device(text(device_id), stored, seen)

    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        found = await self.device_by_token_hash(token_hash, None)
        return None if found is None else found[0]

    @guarded
    async def devices(self, player_id: str) -> list[Device]:
        keys = self._keys.devices(player_id)
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.hgetall(keys[0])
            pipe.hgetall(keys[5])
            pipe.hgetall(keys[7])
            fields, stored, seen = await pipe.execute()
        player = player_of(player_id, fields)
        if player is None:
            return []
        if fields.get(b"devices") != b"1":
            return [first_device(player)]
        kept = [_device(text(device_id), value, seen.get(device_id)) for device_id, value in stored.items()]
        return sorted(kept, key=lambda device: (device.created_ms, device.device_id))

    @guarded
    async def add_device(self, player_id: str, device: Device, limit: int) -> bool:
        value = json.dumps({"name": device.name, "created_ms": device.created_ms, "token_hash": device.token_hash})
        added = await self._add_device(keys=self._keys.devices(player_id), args=[
            device.device_id, value, device.token_hash, limit, *self._renewal(player_id),
            "" if device.last_seen_ms is None else device.last_seen_ms])
        if not added:
            return False
        await self._redis.set(self._keys.token(device.token_hash), player_id, ex=self._identity_seconds)
        return True

    async def _change(self, player_id: str, change: str, device_id: str, value: str) -> str | None:
        """The device's token hash before the change; None: no such device."""
        old = await self._change_device(keys=self._keys.devices(player_id),
                                        args=[change, device_id, value, *self._renewal(player_id)])
        return None if old is None else text(old)

    @guarded
    async def rename_device(self, player_id: str, device_id: str, name: str) -> None:
        await self._change(player_id, "rename", device_id, name)

    @guarded
    async def revoke_device(self, player_id: str, device_id: str) -> bool:
        old = await self._change(player_id, "revoke", device_id, "")
        if old is None:
            return False
        await self._redis.delete(self._keys.token(old))
        return True

    @guarded
    async def rotate_device_token(self, player_id: str, device_id: str, token_hash: str) -> bool:
        old = await self._change(player_id, "rotate", device_id, token_hash)
        if old is None:
            return False
        await self._redis.set(self._keys.token(token_hash), player_id, ex=self._identity_seconds)
        await self._redis.delete(self._keys.token(old))
        return True

    @guarded
    async def put_link_code(self, code_hash: str, player_id: str, keep_seconds: int) -> None:
        await self._redis.set(self._keys.link_code(code_hash), player_id, ex=keep_seconds)

    @guarded
    async def take_link_code(self, code_hash: str) -> str | None:
        player_id = await self._redis.getdel(self._keys.link_code(code_hash))
        return None if player_id is None else text(player_id)

    @guarded
    async def count_attempt(self, counter: str, window_seconds: int) -> int:
        return int(await self._count(keys=[self._keys.attempts(counter)], args=[window_seconds]))
