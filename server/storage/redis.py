"""The Redis back end, through redis-py's ``redis.asyncio`` (hiredis parser
when it is installed).

Several server processes share one Redis, so every step that two of them
could race on is a single atomic Redis operation: the log append and the
best-of updates are short Lua scripts, the rest are single commands or
MULTI transactions.  ``docs/storage.md`` lists every key.

Decisions the interface left open:

- Keys of one session, one player or one board share a Redis Cluster hash
  tag (the ``{...}`` part), so that each Lua script touches one slot.
  That is a first step only: the store speaks to a single Redis (or a
  proxy in front of several); a Cluster client would also have to split
  the MULTI transactions that span a session and the shared indexes.
- High availability is Redis Sentinel's: a ``redis+sentinel://`` URL
  (``sentinel_url``) names the sentinels and the service, and the pool
  asks them for the master before each new connection, so after a
  failover new connections reach the promoted replica and old ones are
  dropped.  Replication is asynchronous: an acknowledged action that had
  not reached a replica when the master died is lost with it, which
  ``docs/storage.md`` tells operators how to bound.
- redis-py retries nothing (``retries=0``).  A retried command whose reply
  was lost would run twice, and a record or a Vegas total would count a
  game twice; instead the failure reaches the caller as
  ``StorageUnavailable``.  A lost reply to ``append`` is safe in the other
  direction too: the action is in the log, and the writer's next append
  gets ``LogConflict`` and reloads.  Recovery needs no retry either: the
  pool replaces dead connections when it hands them out.
- Appends made in the same event-loop turn go to Redis as one pipeline
  (``redis_batch``), and so do publishes: appends are the hot path, one
  per player action, each followed by a publish.
- ``append`` to an unknown (or expired) session raises ``KeyError``, as
  the memory store does.  An append to a finished session inherits the
  session's remaining lifetime, so no log outlives its header.
- Index sorted sets (live sessions, a player's sessions, document indexes)
  keep members whose value has expired; readers skip and remove them.
- Scores of leaderboards go through Lua as doubles, which hold
  ``board_score`` exactly (below 2**53).
"""

from __future__ import annotations

import json
import socket
from typing import Any, Callable

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import NoBackoff
from redis.maint_notifications import MaintNotificationsConfig

from .base import (
    Action,
    GameResult,
    LeaderEntry,
    LogConflict,
    OnResume,
    PlayerRecord,
    Record,
    SessionHeader,
    Store,
    Subscription,
    board_score,
)
from .redis_batch import PublishBatcher, ScriptBatcher
from .redis_sentinel import SENTINEL_SCHEME, BlockingSentinelPool, sentinel_url
from .redis_errors import guarded
from .redis_pubsub import PubSubHub

APPEND_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing', 0} end
local length = redis.call('LLEN', KEYS[2])
if length ~= tonumber(ARGV[1]) then return {'conflict', length} end
length = redis.call('RPUSH', KEYS[2], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return {'ok', length}
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

SUBMIT_SCRIPT = """
local current = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not current or tonumber(ARGV[2]) < tonumber(current) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
end
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
"""

# A silently dead peer (no FIN, e.g. a lost network) is noticed by the
# kernel within about 20 s instead of the default two hours, which matters
# most to the pub/sub connection, idle while it waits for messages.
KEEPALIVE_OPTIONS = {
    option: value
    for name, value in (("TCP_KEEPIDLE", 10), ("TCP_KEEPINTVL", 5), ("TCP_KEEPCNT", 2))
    if (option := getattr(socket, name, None)) is not None
}

RECORD_SUMS = ("games", "wins", "moves", "time_ms", "hints", "undos", "repairs")
EXTRA_PREFIX = "extra:"
INDEX_PAGE = 100


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _text(value: object) -> str:
    """A reply item as text; redis-py types replies loosely, so check here."""
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, str):
        return value
    raise TypeError(f"expected a bulk string from Redis, got {type(value).__name__}")


class RedisStore(Store):
    """The store on the Redis server at ``url`` (``redis://``, ``rediss://``
    for TLS, ``unix://``).

    ``namespace`` prefixes every key and channel, so several deployments
    (or test runs) can share one Redis.  ``socket_timeout`` bounds how long
    a command may take before the caller gets ``StorageUnavailable``;
    ``max_connections`` bounds the pool, and callers beyond it wait.
    """

    def __init__(
        self,
        url: str,
        *,
        namespace: str = "arena",
        socket_timeout: float = 5.0,
        connect_timeout: float = 2.0,
        max_connections: int = 64,
    ) -> None:
        self.namespace = namespace
        connection_options: dict[str, Any] = {
            "socket_timeout": socket_timeout,
            "socket_connect_timeout": connect_timeout,
            "socket_keepalive": True,
            "socket_keepalive_options": KEEPALIVE_OPTIONS,
            "retry": Retry(NoBackoff(), 0),
            # With maintenance notifications on ("auto" by default) redis-py
            # hands out pooled connections without checking them, and the
            # first command after a Redis restart would fail.
            "maint_notifications_config": MaintNotificationsConfig(enabled=False),
            "decode_responses": False,
        }
        pool: BlockingConnectionPool
        self._sentinel: Sentinel | None = None
        if url.startswith(SENTINEL_SCHEME):
            address = sentinel_url(url)
            sentinels = Sentinel(
                address.sentinels,
                sentinel_kwargs={"socket_timeout": socket_timeout, "socket_connect_timeout": connect_timeout},
            )
            self._sentinel = sentinels
            pool = BlockingSentinelPool(
                address.service,
                sentinels,
                max_connections=max_connections,
                timeout=socket_timeout,
                db=address.db,
                password=address.password,
                **connection_options,
            )
        else:
            pool = BlockingConnectionPool.from_url(
                url, max_connections=max_connections, timeout=socket_timeout, **connection_options
            )
        self._redis = Redis.from_pool(pool)
        self._append = ScriptBatcher(self._redis, self._redis.register_script(APPEND_SCRIPT))
        self._add_result = self._redis.register_script(ADD_RESULT_SCRIPT)
        self._submit = self._redis.register_script(SUBMIT_SCRIPT)
        self._publish = PublishBatcher(self._redis)
        self._hub = PubSubHub(self._redis, confirm_timeout=socket_timeout)

    # ------------------------------------------------------------ key names

    def _key(self, *parts: str) -> str:
        return ":".join((self.namespace, *parts))

    def _player_key(self, player_id: str, *suffix: str) -> str:
        return self._key("player", "{" + player_id + "}", *suffix)

    def _session_key(self, game_id: str, *suffix: str) -> str:
        return self._key("session", "{" + game_id + "}", *suffix)

    def _board_key(self, board: str, *suffix: str) -> str:
        return self._key("board", "{" + board + "}", *suffix)

    def _channel(self, channel: str) -> bytes:
        return self._key("channel", channel).encode()

    # ------------------------------------------------------------ life

    async def close(self) -> None:
        await self._hub.close()
        await self._redis.aclose()
        if self._sentinel is not None:
            for client in self._sentinel.sentinels:
                await client.aclose()

    @guarded
    async def ping(self) -> None:
        await self._redis.ping()

    # ------------------------------------------------------------ players

    @guarded
    async def create_player(self, player: PlayerRecord) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(
                self._player_key(player.player_id),
                mapping={
                    "display_name": player.display_name,
                    "token_hash": player.token_hash,
                    "created_ms": player.created_ms,
                    "bot": int(player.bot),
                },
            )
            pipe.set(self._key("token", player.token_hash), player.player_id)
            await pipe.execute()

    @guarded
    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        player_id = await self._redis.get(self._key("token", token_hash))
        return None if player_id is None else await self.get_player(_text(player_id))

    @guarded
    async def get_player(self, player_id: str) -> PlayerRecord | None:
        fields = await self._redis.hgetall(self._player_key(player_id))
        if not fields:
            return None
        return PlayerRecord(
            player_id=player_id,
            display_name=_text(fields[b"display_name"]),
            token_hash=_text(fields[b"token_hash"]),
            created_ms=int(fields[b"created_ms"]),
            bot=fields.get(b"bot") == b"1",
        )

    @guarded
    async def set_display_name(self, player_id: str, name: str) -> None:
        key = self._player_key(player_id)
        if await self._redis.exists(key):
            await self._redis.hset(key, "display_name", name)

    @guarded
    async def mark_bot(self, player_id: str) -> None:
        key = self._player_key(player_id)
        if await self._redis.exists(key):
            await self._redis.hset(key, "bot", 1)

    async def _display_names(self, player_ids: list[str]) -> list[str]:
        async with self._redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hget(self._player_key(player_id), "display_name")
            names = await pipe.execute()
        return [player_id if name is None else _text(name) for player_id, name in zip(player_ids, names)]

    # ------------------------------------------------------------ sessions

    @guarded
    async def create_session(self, header: SessionHeader) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(self._session_key(header.game_id), _dumps(header.to_dict()))
            pipe.delete(self._session_key(header.game_id, "log"))
            if header.status == "playing":
                pipe.zadd(self._key("sessions", "live"), {header.game_id: header.created_ms})
            pipe.zadd(self._player_key(header.owner, "sessions"), {header.game_id: header.created_ms})
            await pipe.execute()

    @guarded
    async def append(self, game_id: str, expected_length: int, action: Action) -> int:
        keys = [self._session_key(game_id), self._session_key(game_id, "log")]
        outcome, length = await self._append(keys, [expected_length, _dumps(action.to_list())])
        if outcome == b"missing":
            raise KeyError(game_id)
        if outcome == b"conflict":
            raise LogConflict(game_id, expected_length, int(length))
        return int(length)

    @guarded
    async def load_session(self, game_id: str) -> tuple[SessionHeader, list[Action]] | None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.get(self._session_key(game_id))
            pipe.lrange(self._session_key(game_id, "log"), 0, -1)
            header, log = await pipe.execute()
        if header is None:
            return None
        return SessionHeader.from_dict(json.loads(header)), [Action.from_list(json.loads(entry)) for entry in log]

    @guarded
    async def update_session(self, header: SessionHeader) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(self._session_key(header.game_id), _dumps(header.to_dict()), xx=True, keepttl=True)
            if header.status != "playing":
                pipe.zrem(self._key("sessions", "live"), header.game_id)
            await pipe.execute()

    @guarded
    async def live_sessions(self, limit: int = 100) -> list[SessionHeader]:
        documents = await self._newest(
            self._key("sessions", "live"), self._session_key, limit, lambda value: value["status"] == "playing"
        )
        return [SessionHeader.from_dict(document) for document in documents]

    @guarded
    async def sessions_of(self, player_id: str, limit: int = 20) -> list[SessionHeader]:
        documents = await self._newest(self._player_key(player_id, "sessions"), self._session_key, limit)
        return [SessionHeader.from_dict(document) for document in documents]

    @guarded
    async def finish_session(self, header: SessionHeader, keep_seconds: int) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(self._session_key(header.game_id), _dumps(header.to_dict()), xx=True)
            pipe.expire(self._session_key(header.game_id), keep_seconds)
            pipe.expire(self._session_key(header.game_id, "log"), keep_seconds)
            pipe.zrem(self._key("sessions", "live"), header.game_id)
            await pipe.execute()

    async def _newest(
        self,
        index_key: str,
        value_key: Callable[[str], str],
        limit: int,
        accept: Callable[[dict[str, Any]], bool] = lambda value: True,
    ) -> list[dict[str, Any]]:
        """The JSON values named by ``index_key``'s members, highest score
        first, skipping (and removing from the index) members whose value
        has expired."""
        found: list[dict[str, Any]] = []
        start = 0
        while len(found) < limit:
            members = await self._redis.zrevrange(index_key, start, start + INDEX_PAGE - 1)
            if not members:
                break
            names = [_text(member) for member in members]
            values = await self._redis.mget([value_key(name) for name in names])
            gone = [name for name, value in zip(names, values) if value is None]
            if gone:
                await self._redis.zrem(index_key, *gone)
            start += len(members) - len(gone)
            found += [document for document in (json.loads(value) for value in values if value) if accept(document)]
        return found[:limit]

    # ------------------------------------------------------------ records

    @guarded
    async def add_result(self, player_id: str, record_key: str, result: GameResult) -> None:
        keys = [self._player_key(player_id, "record", record_key), self._player_key(player_id, "records")]
        args: list[str | int] = [
            record_key,
            int(result.won),
            result.moves,
            result.time_ms,
            result.hints,
            result.undos,
            result.repairs,
            "" if result.score is None else result.score,
        ]
        await self._add_result(keys=keys, args=args)

    @guarded
    async def records(self, player_id: str) -> dict[str, Record]:
        record_keys = sorted(_text(key) for key in await self._redis.smembers(self._player_key(player_id, "records")))
        async with self._redis.pipeline(transaction=False) as pipe:
            for record_key in record_keys:
                pipe.hgetall(self._player_key(player_id, "record", record_key))
            hashes = await pipe.execute()
        return {key: _record(fields) for key, fields in zip(record_keys, hashes) if fields}

    @guarded
    async def add_vegas(self, player_id: str, amount: int) -> int:
        return int(await self._redis.incrby(self._player_key(player_id, "vegas"), amount))

    @guarded
    async def vegas(self, player_id: str) -> int:
        return int(await self._redis.get(self._player_key(player_id, "vegas")) or 0)

    # ------------------------------------------------------------ leaderboards

    @guarded
    async def submit(self, board: str, player_id: str, time_ms: int, moves: int, finished_ms: int,
                     keep_seconds: int) -> None:
        keys = [self._board_key(board), self._board_key(board, "entries")]
        score = board_score(time_ms, moves, finished_ms)
        await self._submit(keys=keys, args=[player_id, score, _dumps([time_ms, moves, finished_ms]), keep_seconds])

    @guarded
    async def leaderboard(self, board: str, offset: int = 0, count: int = 10) -> list[LeaderEntry]:
        if count <= 0:
            return []
        members = await self._redis.zrange(self._board_key(board), offset, offset + count - 1)
        return await self._entries(board, offset + 1, [_text(member) for member in members])

    @guarded
    async def rank(self, board: str, player_id: str) -> LeaderEntry | None:
        position = await self._redis.zrank(self._board_key(board), player_id)
        if not isinstance(position, int):
            return None
        entries = await self._entries(board, position + 1, [player_id])
        return entries[0] if entries else None

    async def _entries(self, board: str, first_rank: int, player_ids: list[str]) -> list[LeaderEntry]:
        if not player_ids:
            return []
        details = await self._redis.hmget(self._board_key(board, "entries"), player_ids)
        names = await self._display_names(player_ids)
        entries = []
        for rank, (player_id, name, detail) in enumerate(zip(player_ids, names, details), start=first_rank):
            if detail is not None:
                time_ms, moves, finished_ms = json.loads(detail)
                entries.append(LeaderEntry(rank, player_id, name, time_ms, moves, finished_ms))
        return entries

    # ------------------------------------------------------------ settings

    @guarded
    async def setting(self, name: str, default: str, keep_seconds: int | None = None) -> str:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(self._key("setting", name), default, nx=True, ex=keep_seconds)
            pipe.get(self._key("setting", name))
            _, value = await pipe.execute()
        return _text(value)

    @guarded
    async def get_setting(self, name: str) -> str | None:
        value = await self._redis.get(self._key("setting", name))
        return None if value is None else _text(value)

    # ------------------------------------------------------------ stocks

    @guarded
    async def stock_push(self, stock: str, item: str) -> int:
        return int(await self._redis.rpush(self._key("stock", stock), item))

    @guarded
    async def stock_pop(self, stock: str) -> str | None:
        value = await self._redis.lpop(self._key("stock", stock))
        return None if value is None else _text(value)

    @guarded
    async def stock_size(self, stock: str) -> int:
        return int(await self._redis.llen(self._key("stock", stock)))

    # ------------------------------------------------------------ documents

    def _document_key(self, kind: str) -> Callable[[str], str]:
        return lambda key: self._key("doc", kind, key)

    @guarded
    async def put_document(self, kind: str, key: str, value: dict[str, Any], keep_seconds: int | None = None) -> None:
        document_key = self._document_key(kind)(key)
        if keep_seconds is not None and keep_seconds <= 0:
            await self._redis.delete(document_key)
        else:
            await self._redis.set(document_key, _dumps(value), ex=keep_seconds)

    @guarded
    async def get_document(self, kind: str, key: str) -> dict[str, Any] | None:
        value = await self._redis.get(self._document_key(kind)(key))
        return None if value is None else json.loads(value)

    @guarded
    async def index_document(self, kind: str, index: str, key: str, score: float) -> None:
        await self._redis.zadd(self._key("index", kind, index), {key: score})

    @guarded
    async def list_documents(self, kind: str, index: str, limit: int = 50) -> list[dict[str, Any]]:
        return await self._newest(self._key("index", kind, index), self._document_key(kind), limit)

    # ------------------------------------------------------------ pub/sub

    @guarded
    async def publish(self, channel: str, payload: bytes) -> None:
        await self._publish(self._channel(channel), payload)

    @guarded
    async def subscribe(self, channel: str, on_resume: OnResume | None = None) -> Subscription:
        return await self._hub.subscribe(self._channel(channel), on_resume)


def _record(fields: dict[bytes, bytes]) -> Record:
    values = {_text(name): int(value) for name, value in fields.items()}
    return Record(
        **{name: values.get(name, 0) for name in RECORD_SUMS},
        best_moves=values.get("best_moves"),
        best_time_ms=values.get("best_time_ms"),
        extra={name[len(EXTRA_PREFIX):]: value for name, value in values.items() if name.startswith(EXTRA_PREFIX)},
    )
