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
- An append carries a deadline in Redis's clock, checked by the script
  against Redis ``TIME``: one that runs later (Redis stalled with the
  command in its socket buffer, after the caller gave up) is refused, so
  ``storage_unavailable`` never turns into an applied action later.  The
  store learns the offset of Redis's clock from each append's reply (an
  underestimate by the reply's latency, so the deadline is never late).
- A game's end opens its outbox in the append script (the game's slot);
  the index of open outboxes (``outbox``) is written before that append,
  so a sweep finds every open one, and cleans up the entries whose append
  never happened once their deadline has passed.
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
import time
from typing import Any, Callable, cast

from redis.asyncio import Redis

from .base import (
    SETTLED_MARK_SECONDS,
    Action,
    AppendRefused,
    Finish,
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
from .redis_pool import connection_pool
from .redis_scripts import (
    ADD_RESULT_SCRIPT,
    APPEND_SCRIPT,
    CLOSE_OUTBOX_SCRIPT,
    SETTLE_RESULT_SCRIPT,
    SUBMIT_SCRIPT,
    result_args,
)
from .redis_errors import guarded
from .redis_pubsub import PubSubHub

APPEND_DEADLINE_SHARE = 0.8
"""An append must run within this share of ``socket_timeout`` of its call,
so it never runs after its caller timed out (and answered storage_unavailable)."""
RECORD_SUMS = ("games", "wins", "moves", "time_ms", "hints", "undos", "repairs")
EXTRA_PREFIX = "extra:"
INDEX_PAGE = 100


def _local_ms() -> int:
    return time.time_ns() // 1_000_000


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
        pool, self._sentinel = connection_pool(url, socket_timeout, connect_timeout, max_connections)
        self._redis = Redis.from_pool(pool)
        self._append = ScriptBatcher(self._redis, self._redis.register_script(APPEND_SCRIPT))
        self._append_budget_ms = round(socket_timeout * APPEND_DEADLINE_SHARE * 1000)
        self._redis_offset_ms: int | None = None
        self._add_result = self._redis.register_script(ADD_RESULT_SCRIPT)
        self._settle_result = self._redis.register_script(SETTLE_RESULT_SCRIPT)
        self._close_outbox = self._redis.register_script(CLOSE_OUTBOX_SCRIPT)
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
    async def append(self, game_id: str, expected_length: int, action: Action, *, ends: bool = False) -> int:
        deadline = await self._deadline_ms()
        outbox = ""
        if ends:
            outbox = _dumps({"seq": expected_length + 1, "at_ms": action.at_ms})
            await self._redis.zadd(self._key("outbox"), {game_id: deadline})
        keys = [self._session_key(game_id), self._session_key(game_id, "log"), self._session_key(game_id, "outbox")]
        outcome, length, redis_ms = await self._append(keys, [expected_length, _dumps(action.to_list()), deadline, outbox])
        self._redis_offset_ms = int(redis_ms) - _local_ms()
        if outcome == b"late":
            raise AppendRefused(f"Redis ran the append to {game_id} after its deadline; it was not written")
        if outcome == b"missing":
            raise KeyError(game_id)
        if outcome == b"conflict":
            raise LogConflict(game_id, expected_length, int(length))
        return int(length)

    async def _deadline_ms(self) -> int:
        """The latest moment, in Redis's clock, an append made now may run.
        The offset of Redis's clock is learnt from replies (Redis's time
        when the script ran minus ours when the reply came, never more
        than the true offset), from a ``TIME`` the first time."""
        if self._redis_offset_ms is None:
            seconds, micros = await self._redis.time()
            self._redis_offset_ms = seconds * 1000 + micros // 1000 - _local_ms()
        return _local_ms() + self._redis_offset_ms + self._append_budget_ms

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

    @guarded
    async def open_finishes(self, limit: int = 100) -> list[str]:
        index = self._key("outbox")
        seconds, micros = await self._redis.time()
        now = seconds * 1000 + micros // 1000
        found: list[str] = []
        start = 0
        while len(found) < limit:
            members = await self._redis.zrange(index, start, start + INDEX_PAGE - 1, withscores=True)
            if not members:
                break
            names = [(_text(member), float(deadline)) for member, deadline in cast(list[tuple[bytes, float]], members)]
            async with self._redis.pipeline(transaction=False) as pipe:
                for name, _ in names:
                    pipe.exists(self._session_key(name, "outbox"))
                    pipe.exists(self._session_key(name))
                flags = await pipe.execute()
            closed = []
            for (name, deadline), has_outbox, has_header in zip(names, flags[::2], flags[1::2]):
                if has_outbox and has_header:
                    found.append(name)
                elif has_outbox:
                    await self._redis.delete(self._session_key(name, "outbox"))
                    closed.append(name)
                elif deadline < now:
                    closed.append(name)
            if closed:
                await self._redis.zrem(index, *closed)
            start += len(members) - len(closed)
        return found[:limit]

    @guarded
    async def settle_finish(self, finish: Finish) -> None:
        header = finish.header
        entry = finish.result
        if entry is not None:
            player = entry.player_id
            keys = [
                self._player_key(player, "record", entry.record_key),
                self._player_key(player, "records"),
                self._player_key(player, "vegas"),
                self._player_key(player, "settled"),
            ]
            vegas = "" if entry.vegas is None else entry.vegas
            args = [*result_args(entry.record_key, entry.result), header.game_id, vegas, SETTLED_MARK_SECONDS * 1000]
            await self._settle_result(keys=keys, args=args)
        board = finish.board
        if board is not None:
            await self.submit(board.board, board.player_id, board.time_ms, board.moves, board.finished_ms,
                              board.keep_seconds)
        keys = [
            self._session_key(header.game_id),
            self._session_key(header.game_id, "log"),
            self._session_key(header.game_id, "outbox"),
        ]
        await self._close_outbox(keys=keys, args=[_dumps(header.to_dict()), finish.keep_seconds])
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.zrem(self._key("sessions", "live"), header.game_id)
            pipe.zrem(self._key("outbox"), header.game_id)
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
        await self._add_result(keys=keys, args=result_args(record_key, result))

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
