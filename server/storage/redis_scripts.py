"""The Lua scripts of the Redis store (``server.storage.redis``).

Each touches the keys of one Redis Cluster slot only (one session, one
player or one board: the ``{...}`` hash tag of every key it gets), so each
would run unchanged on a Cluster.  Scripts that read ``TIME`` and then
write are replicated by their effects (the default since Redis 5).
"""

from __future__ import annotations

from .base import GameResult

REDIS_NOW = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
"""

# KEYS: header, log, outbox; ARGV: expected length, entry, deadline (ms,
# Redis's clock), the outbox's JSON or '' (the entry does not end the game).
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
return {'ok', length, now}
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

ADD_RESULT_SCRIPT = """
local record = KEYS[1]
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('HINCRBY', record, 'games', 1)
local sums = {'wins', 'moves', 'time_ms', 'hints', 'undos', 'repairs'}
for i, name in ipairs(sums) do redis.call('HINCRBY', record, name, ARGV[i + 1]) end
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
if ARGV[8] ~= '' then keep_best('extra:best_score', ARGV[8], false) end
"""

# The record's part of a game's end, in the player's slot: the mark of
# the game (``settled``, scored by when it was set) guards the record and
# the Vegas earnings, so settling the same game again changes nothing.
SETTLE_RESULT_SCRIPT = REDIS_NOW + """
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[11]))
if redis.call('ZSCORE', KEYS[4], ARGV[9]) then return 0 end
redis.call('ZADD', KEYS[4], now, ARGV[9])
""" + ADD_RESULT_SCRIPT + """
if ARGV[10] ~= '' then redis.call('INCRBY', KEYS[3], ARGV[10]) end
return 1
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
    """``ADD_RESULT_SCRIPT``'s arguments (its ARGV 1 to 8)."""
    return [
        record_key,
        int(result.won),
        result.moves,
        result.time_ms,
        result.hints,
        result.undos,
        result.repairs,
        "" if result.score is None else result.score,
    ]
