"""The Lua scripts of the Redis store (``server.storage.redis``).

Each touches the keys of one Redis Cluster slot only (one session, one
player or one board: the ``{...}`` hash tag of every key it gets), so each
would run unchanged on a Cluster.  Scripts that read ``TIME`` and then
write are replicated by their effects (the default since Redis 5).
"""

from __future__ import annotations

from server.model.records import GameResult
from .redis_keys import counter_field

REDIS_NOW = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
"""

# KEYS: header, log, outbox; ARGV: expected length, entry, deadline (ms,
# Redis's clock), the outbox's JSON or '' (the entry does not end the game),
# then the announcement: the publish command ('PUBLISH', on a cluster
# 'SPUBLISH' to a channel of the game's slot, or '' for none), its
# channel and its payload, published only with the entry.
# Replies {outcome, length, Redis's time in ms}.
APPEND_SCRIPT = REDIS_NOW + """
if now > tonumber(ARGV[3]) then return {'late', 0, now} end
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing', 0, now} end
local length = redis.call('LLEN', KEYS[2])
if length ~= tonumber(ARGV[1]) then return {'conflict', length, now} end
length = redis.call('RPUSH', KEYS[2], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
if ARGV[4] ~= '' then redis.call('SET', KEYS[3], ARGV[4]) end
if ARGV[5] ~= '' then redis.call(ARGV[5], ARGV[6], ARGV[7]) end
return {'ok', length, now}
"""

# KEYS: header, log.  A game's header and log as of one moment.  A script
# rather than a MULTI, because Redis refuses every command queued in a
# MULTI while it is out of memory, reads too, and a full store should
# still show the games it holds.
LOAD_SCRIPT = """
return {redis.call('GET', KEYS[1]), redis.call('LRANGE', KEYS[2], 0, -1)}
"""

# KEYS: the claim, the setting it depends on; ARGV: the claim's value, its
# lifetime in seconds, the text the setting must contain.  Replies the
# claim's stored value, or nil (nothing written) when the setting is gone
# or holds something else.
CLAIM_SCRIPT = """
local held = redis.call('GET', KEYS[2])
if not held or not string.find(held, ARGV[3], 1, true) then return false end
redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[2])
return redis.call('GET', KEYS[1])
"""

# KEYS: header, log, outbox; ARGV: the final header, seconds to keep it.
CLOSE_OUTBOX_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('EXPIRE', KEYS[1], ARGV[2])
  redis.call('EXPIRE', KEYS[2], ARGV[2])
end
redis.call('DEL', KEYS[3])
"""

# Every script that writes a player's keys takes the identity's keys first
# (``RedisStore._identity_keys``: player, sessions, records, Vegas, settled
# marks) and ends with ``renew``: each of them, each record hash, the
# device keys (``redis_keys.DEVICE_SUFFIXES``) and the days hash get
# the identity's lifetime again (ARGV seconds, '' for none), so no key of
# a player is ever left without the expiry of the rest.
RENEW_FUNCTION = """
local function renew(seconds, record_prefix)
  local keys = {KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]}
  for _, member in ipairs(redis.call('SMEMBERS', KEYS[3])) do table.insert(keys, record_prefix .. member) end
  for _, suffix in ipairs({':devices', ':device_tokens', ':device_seen', ':days'}) do table.insert(keys, KEYS[1] .. suffix) end
  for _, key in ipairs(keys) do
    if seconds == '' then redis.call('PERSIST', key) else redis.call('EXPIRE', key, seconds) end
  end
end
"""

# KEYS: the identity's 5; ARGV: amount, seconds, record prefix.
ADD_VEGAS_SCRIPT = RENEW_FUNCTION + """
local total = redis.call('INCRBY', KEYS[4], ARGV[1])
renew(ARGV[2], ARGV[3])
return total
"""

# KEYS: the identity's 5, then the record's hash; ARGV 1 to 7:
# ``result_args``, 8 and 9: ``renew``'s, then each script's own, then from
# ``first_counter`` on the game's counters as (field, amount) pairs
# (``counter_args``), so a game's own sums need no change here.
ADD_RESULT_FUNCTION = """
local function add_result(first_counter)
  local record = KEYS[6]
  redis.call('SADD', KEYS[3], ARGV[1])
  redis.call('HINCRBY', record, 'games', 1)
  local sums = {'wins', 'moves', 'time_ms', 'hints', 'undos'}
  for i, name in ipairs(sums) do redis.call('HINCRBY', record, name, ARGV[i + 1]) end
  for i = first_counter, #ARGV, 2 do redis.call('HINCRBY', record, ARGV[i], ARGV[i + 1]) end
  local function keep_best(field, value, lower_is_better)
    local current = redis.call('HGET', record, field)
    local new = tonumber(value)
    if not current or (lower_is_better and new < tonumber(current))
        or (not lower_is_better and new > tonumber(current)) then
      redis.call('HSET', record, field, value)
    end
  end
  if ARGV[2] == '1' then
    keep_best('best_moves', ARGV[3], true)
    keep_best('best_time_ms', ARGV[4], true)
  end
  if ARGV[7] ~= '' then keep_best('extra:best_score', ARGV[7], false) end
end
"""

# ARGV as above, the counters from 10.
ADD_RESULT_SCRIPT = RENEW_FUNCTION + ADD_RESULT_FUNCTION + """
add_result(10)
renew(ARGV[8], ARGV[9])
"""

# The record's part of a game's end, in the player's slot: the mark of
# the game (``settled``, scored by when it was set) guards the record, the
# Vegas earnings and the day, so settling the same game again changes
# nothing.  KEYS as ``ADD_RESULT_SCRIPT``'s, then the days hash.  ARGV as
# ``ADD_RESULT_SCRIPT``'s, then 10: game id, 11: Vegas amount or '', 12:
# milliseconds a mark is kept, 13 and 14: the day's key ('' for none) and
# JSON; the counters from 15.
SETTLE_RESULT_SCRIPT = REDIS_NOW + RENEW_FUNCTION + ADD_RESULT_FUNCTION + """
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - tonumber(ARGV[12]))
if redis.call('ZSCORE', KEYS[5], ARGV[10]) then return 0 end
redis.call('ZADD', KEYS[5], now, ARGV[10])
add_result(15)
if ARGV[11] ~= '' then redis.call('INCRBY', KEYS[4], ARGV[11]) end
if ARGV[13] ~= '' then redis.call('HSETNX', KEYS[7], ARGV[13], ARGV[14]) end
renew(ARGV[8], ARGV[9])
return 1
"""

# KEYS: the identity's 5, then the days hash; ARGV: the day's key, its
# JSON, then ``renew``'s.  The first day written under a key stays.
ADD_DAY_SCRIPT = RENEW_FUNCTION + """
local added = redis.call('HSETNX', KEYS[6], ARGV[1], ARGV[2])
renew(ARGV[3], ARGV[4])
return added
"""

# KEYS: an index; ARGV: member, score, the indexed document's PTTL.  The
# index lives as long as its longest-lived document: a new index takes the
# document's lifetime, a document without one makes the index permanent.
INDEX_SCRIPT = """
local existed = redis.call('EXISTS', KEYS[1]) == 1
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
local document_ttl = tonumber(ARGV[3])
if document_ttl == -1 then
  redis.call('PERSIST', KEYS[1])
elseif document_ttl > 0 then
  local ttl = redis.call('PTTL', KEYS[1])
  if not existed or (ttl > 0 and ttl < document_ttl) then redis.call('PEXPIRE', KEYS[1], document_ttl) end
end
"""

SUBMIT_SCRIPT = """
local current = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not current or tonumber(ARGV[2]) < tonumber(current) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
end
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
"""


def result_args(record_key: str, result: GameResult) -> list[str | int]:
    """The record scripts' ARGV 1 to 7."""
    return [
        record_key,
        int(result.won),
        result.moves,
        result.time_ms,
        result.hints,
        result.undos,
        "" if result.score is None else result.score,
    ]


def counter_args(result: GameResult) -> list[str | int]:
    """The game's counters as the record scripts' last ARGV: (field, amount)
    pairs, each field prefixed (``counter_field``) so that no game's name
    can add to one of the record's own sums."""
    return [item for name, value in sorted(result.counters.items()) for item in (counter_field(name), value)]

# KEYS: a setting; ARGV: the value it must hold, the new value ('': remove
# it), seconds to keep the new one.  Replies 1 if replaced, else 0.
REPLACE_SETTING_SCRIPT = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) end
return 1
"""
