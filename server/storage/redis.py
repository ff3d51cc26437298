"""The Redis back end, through redis-py's ``redis.asyncio`` (hiredis parser
when it is installed).

Several server processes share one Redis, so every step that two of them
could race on is a single atomic Redis operation: the log append and the
best-of updates are short Lua scripts, the rest are single commands or
MULTI transactions.  ``docs/storage.md`` lists every key.

Decisions the interface left open:

- Key names and hash tags are ``redis_keys``'s.
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
  keep members whose value has expired; readers skip and remove them.  So
  that no index outgrows what it names, a player's index of games keeps
  the newest ``PLAYER_SESSIONS_KEPT`` and the identity's lifetime, and a
  document index lives as long as its longest-lived document.
- Retention is Redis's own expiry, set by the script or transaction that
  writes, so nothing is written without its lifetime; an identity's keys
  are renewed together (``renew``, and ``GETEX`` of its token).
- Scores of leaderboards go through Lua as doubles, which hold
  ``board_score`` exactly (below 2**53).
"""

from __future__ import annotations

import json
import time
from functools import partial
from typing import Any, Callable, cast

from .base import (
    DEFAULT_RETENTION,
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
    Retention,
    SessionHeader,
    Store,
    StoreSize,
    Subscription,
    board_score,
)
from .redis_batch import PublishBatcher, ScriptBatcher
from .redis_errors import guarded
from .redis_keys import RedisKeys, dumps, player_of, record_of, text
from .redis_pool import redis_client
from .redis_pubsub import PubSubHub
from .redis_scripts import (
    ADD_RESULT_SCRIPT,
    ADD_VEGAS_SCRIPT,
    APPEND_SCRIPT,
    CLOSE_OUTBOX_SCRIPT,
    INDEX_SCRIPT,
    SETTLE_RESULT_SCRIPT,
    SUBMIT_SCRIPT,
    TOUCH_PLAYER_SCRIPT,
    result_args,
)

APPEND_DEADLINE_SHARE = 0.8
"""An append must run within this share of ``socket_timeout`` of its call,
so it never runs after its caller timed out (and answered storage_unavailable)."""
INDEX_PAGE = 100
PLAYER_SESSIONS_KEPT = 1000
"""Games a player's index lists at most (``sessions_of``), newest first;
older ones stay loadable by id until they expire."""


def _local_ms() -> int:
    return time.time_ns() // 1_000_000


class RedisStore(Store):
    """The store on the Redis server at ``url`` (``redis://``, ``rediss://``
    for TLS, ``unix://``).

    ``namespace`` prefixes every key and channel, so several deployments
    (or test runs) can share one Redis.  ``socket_timeout`` bounds how long
    a command may take before the caller gets ``StorageUnavailable``;
    ``max_connections`` bounds the pool, and callers beyond it wait.
    ``retention`` says how long an unused identity is kept.
    """

    def __init__(
        self,
        url: str,
        *,
        namespace: str = "arena",
        socket_timeout: float = 5.0,
        connect_timeout: float = 2.0,
        max_connections: int = 64,
        retention: Retention = DEFAULT_RETENTION,
    ) -> None:
        self.namespace = namespace
        self._keys = RedisKeys(namespace)
        self._identity_seconds = retention.identity_seconds
        self._redis, self._sentinel = redis_client(url, socket_timeout, connect_timeout, max_connections)
        self._append = ScriptBatcher(self._redis, self._redis.register_script(APPEND_SCRIPT))
        self._append_budget_ms = round(socket_timeout * APPEND_DEADLINE_SHARE * 1000)
        self._redis_offset_ms: int | None = None
        self._add_result = self._redis.register_script(ADD_RESULT_SCRIPT)
        self._add_vegas = self._redis.register_script(ADD_VEGAS_SCRIPT)
        self._touch_player = self._redis.register_script(TOUCH_PLAYER_SCRIPT)
        self._index = self._redis.register_script(INDEX_SCRIPT)
        self._settle_result = self._redis.register_script(SETTLE_RESULT_SCRIPT)
        self._close_outbox = self._redis.register_script(CLOSE_OUTBOX_SCRIPT)
        self._submit = self._redis.register_script(SUBMIT_SCRIPT)
        self._publish = PublishBatcher(self._redis)
        self._hub = PubSubHub(self._redis, confirm_timeout=socket_timeout)

    def _renewal(self, player_id: str) -> list[str | int]:
        """The arguments of a player script's ``renew``: the identity's
        lifetime ('' for none) and the prefix of its record hashes."""
        seconds = self._identity_seconds
        return ["" if seconds is None else seconds, self._keys.record_prefix(player_id)]

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

    @guarded
    async def size(self) -> StoreSize:
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.dbsize()
            pipe.info("memory")
            pipe.zcard(self._keys.live)
            pipe.zcard(self._keys.outbox)
            keys, memory, live, outboxes = await pipe.execute()
        return StoreSize(keys=int(keys), live_games=int(live), open_finishes=int(outboxes),
                         memory_bytes=int(memory["used_memory"]))

    async def expire_due(self) -> int:
        return 0

    # ------------------------------------------------------------ players

    @guarded
    async def create_player(self, player: PlayerRecord) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(
                self._keys.player(player.player_id),
                mapping={
                    "display_name": player.display_name,
                    "token_hash": player.token_hash,
                    "created_ms": player.created_ms,
                    "bot": int(player.bot),
                },
            )
            if self._identity_seconds is not None:
                pipe.expire(self._keys.player(player.player_id), self._identity_seconds)
            pipe.set(self._keys.token(player.token_hash), player.player_id, ex=self._identity_seconds)
            await pipe.execute()

    @guarded
    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        token_key = self._keys.token(token_hash)
        if self._identity_seconds is None:
            player_id = await self._redis.getex(token_key, persist=True)
        else:
            player_id = await self._redis.getex(token_key, ex=self._identity_seconds)
        if player_id is None:
            return None
        return player_of(text(player_id), await self._touch(text(player_id)))

    async def _touch(self, player_id: str) -> dict[bytes, bytes]:
        """Renew the identity's keys (not the token's: another slot); the
        player's hash."""
        keys = self._keys.identity(player_id)
        flat = cast(list[bytes], await self._touch_player(keys=keys, args=self._renewal(player_id)))
        return dict(zip(flat[::2], flat[1::2]))

    @guarded
    async def get_player(self, player_id: str) -> PlayerRecord | None:
        return player_of(player_id, cast(dict[bytes, bytes], await self._redis.hgetall(self._keys.player(player_id))))

    @guarded
    async def set_display_name(self, player_id: str, name: str) -> None:
        key = self._keys.player(player_id)
        if await self._redis.exists(key):
            await self._redis.hset(key, "display_name", name)

    @guarded
    async def mark_bot(self, player_id: str) -> None:
        key = self._keys.player(player_id)
        if await self._redis.exists(key):
            await self._redis.hset(key, "bot", 1)

    async def _display_names(self, player_ids: list[str]) -> list[str]:
        async with self._redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hget(self._keys.player(player_id), "display_name")
            names = await pipe.execute()
        return [player_id if name is None else text(name) for player_id, name in zip(player_ids, names)]

    # ------------------------------------------------------------ sessions

    @guarded
    async def create_session(self, header: SessionHeader) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(self._keys.session(header.game_id), dumps(header.to_dict()))
            pipe.delete(self._keys.session(header.game_id, "log"))
            if header.status == "playing":
                pipe.zadd(self._keys.live, {header.game_id: header.created_ms})
            sessions = self._keys.player(header.owner, "sessions")
            pipe.zadd(sessions, {header.game_id: header.created_ms})
            pipe.zremrangebyrank(sessions, 0, -PLAYER_SESSIONS_KEPT - 1)
            if self._identity_seconds is not None:
                pipe.expire(sessions, self._identity_seconds)
            await pipe.execute()

    @guarded
    async def append(self, game_id: str, expected_length: int, action: Action, *, ends: bool = False) -> int:
        deadline = await self._deadline_ms()
        outbox = ""
        if ends:
            outbox = dumps({"seq": expected_length + 1, "at_ms": action.at_ms})
            await self._redis.zadd(self._keys.outbox, {game_id: deadline})
        keys = [self._keys.session(game_id), self._keys.session(game_id, "log"), self._keys.session(game_id, "outbox")]
        outcome, length, redis_ms = await self._append(keys, [expected_length, dumps(action.to_list()), deadline, outbox])
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
            pipe.get(self._keys.session(game_id))
            pipe.lrange(self._keys.session(game_id, "log"), 0, -1)
            header, log = await pipe.execute()
        if header is None:
            return None
        return SessionHeader.from_dict(json.loads(header)), [Action.from_list(json.loads(entry)) for entry in log]

    @guarded
    async def update_session(self, header: SessionHeader) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(self._keys.session(header.game_id), dumps(header.to_dict()), xx=True, keepttl=True)
            if header.status != "playing":
                pipe.zrem(self._keys.live, header.game_id)
            await pipe.execute()

    @guarded
    async def live_sessions(self, limit: int = 100) -> list[SessionHeader]:
        documents = await self._newest(
            self._keys.live, self._keys.session, limit, lambda value: value["status"] == "playing"
        )
        return [SessionHeader.from_dict(document) for document in documents]

    @guarded
    async def sessions_of(self, player_id: str, limit: int = 20) -> list[SessionHeader]:
        documents = await self._newest(self._keys.player(player_id, "sessions"), self._keys.session, limit)
        return [SessionHeader.from_dict(document) for document in documents]

    @guarded
    async def finish_session(self, header: SessionHeader, keep_seconds: int) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(self._keys.session(header.game_id), dumps(header.to_dict()), xx=True)
            pipe.expire(self._keys.session(header.game_id), keep_seconds)
            pipe.expire(self._keys.session(header.game_id, "log"), keep_seconds)
            pipe.zrem(self._keys.live, header.game_id)
            await pipe.execute()

    @guarded
    async def open_finishes(self, limit: int = 100) -> list[str]:
        index = self._keys.outbox
        seconds, micros = await self._redis.time()
        now = seconds * 1000 + micros // 1000
        found: list[str] = []
        start = 0
        while len(found) < limit:
            members = await self._redis.zrange(index, start, start + INDEX_PAGE - 1, withscores=True)
            if not members:
                break
            names = [(text(member), float(deadline)) for member, deadline in cast(list[tuple[bytes, float]], members)]
            async with self._redis.pipeline(transaction=False) as pipe:
                for name, _ in names:
                    pipe.exists(self._keys.session(name, "outbox"))
                    pipe.exists(self._keys.session(name))
                flags = await pipe.execute()
            closed = []
            for (name, deadline), has_outbox, has_header in zip(names, flags[::2], flags[1::2]):
                if has_outbox and has_header:
                    found.append(name)
                elif has_outbox:
                    await self._redis.delete(self._keys.session(name, "outbox"))
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
            keys = [*self._keys.identity(player), self._keys.player(player, "record", entry.record_key)]
            vegas = "" if entry.vegas is None else entry.vegas
            args = [
                *result_args(entry.record_key, entry.result), *self._renewal(player),
                header.game_id, vegas, SETTLED_MARK_SECONDS * 1000,
            ]
            await self._settle_result(keys=keys, args=args)
        board = finish.board
        if board is not None:
            await self.submit(board.board, board.player_id, board.time_ms, board.moves, board.finished_ms,
                              board.keep_seconds)
        keys = [
            self._keys.session(header.game_id),
            self._keys.session(header.game_id, "log"),
            self._keys.session(header.game_id, "outbox"),
        ]
        await self._close_outbox(keys=keys, args=[dumps(header.to_dict()), finish.keep_seconds])
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.zrem(self._keys.live, header.game_id)
            pipe.zrem(self._keys.outbox, header.game_id)
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
            names = [text(member) for member in members]
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
        keys = [*self._keys.identity(player_id), self._keys.player(player_id, "record", record_key)]
        await self._add_result(keys=keys, args=[*result_args(record_key, result), *self._renewal(player_id)])

    @guarded
    async def records(self, player_id: str) -> dict[str, Record]:
        record_keys = sorted(text(key) for key in await self._redis.smembers(self._keys.player(player_id, "records")))
        async with self._redis.pipeline(transaction=False) as pipe:
            for record_key in record_keys:
                pipe.hgetall(self._keys.player(player_id, "record", record_key))
            hashes = await pipe.execute()
        return {key: record_of(fields) for key, fields in zip(record_keys, hashes) if fields}

    @guarded
    async def add_vegas(self, player_id: str, amount: int) -> int:
        keys = self._keys.identity(player_id)
        return int(await self._add_vegas(keys=keys, args=[amount, *self._renewal(player_id)]))

    @guarded
    async def vegas(self, player_id: str) -> int:
        return int(await self._redis.get(self._keys.player(player_id, "vegas")) or 0)

    # ------------------------------------------------------------ leaderboards

    @guarded
    async def submit(self, board: str, player_id: str, time_ms: int, moves: int, finished_ms: int,
                     keep_seconds: int) -> None:
        keys = [self._keys.board(board), self._keys.board(board, "entries")]
        score = board_score(time_ms, moves, finished_ms)
        await self._submit(keys=keys, args=[player_id, score, dumps([time_ms, moves, finished_ms]), keep_seconds])

    @guarded
    async def leaderboard(self, board: str, offset: int = 0, count: int = 10) -> list[LeaderEntry]:
        if count <= 0:
            return []
        members = await self._redis.zrange(self._keys.board(board), offset, offset + count - 1)
        return await self._entries(board, offset + 1, [text(member) for member in members])

    @guarded
    async def rank(self, board: str, player_id: str) -> LeaderEntry | None:
        position = await self._redis.zrank(self._keys.board(board), player_id)
        if not isinstance(position, int):
            return None
        entries = await self._entries(board, position + 1, [player_id])
        return entries[0] if entries else None

    async def _entries(self, board: str, first_rank: int, player_ids: list[str]) -> list[LeaderEntry]:
        if not player_ids:
            return []
        details = await self._redis.hmget(self._keys.board(board, "entries"), player_ids)
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
            pipe.set(self._keys.setting(name), default, nx=True, ex=keep_seconds)
            pipe.get(self._keys.setting(name))
            _, value = await pipe.execute()
        return text(value)

    @guarded
    async def get_setting(self, name: str) -> str | None:
        value = await self._redis.get(self._keys.setting(name))
        return None if value is None else text(value)

    # ------------------------------------------------------------ stocks

    @guarded
    async def stock_push(self, stock: str, item: str) -> int:
        return int(await self._redis.rpush(self._keys.stock(stock), item))

    @guarded
    async def stock_pop(self, stock: str) -> str | None:
        value = await self._redis.lpop(self._keys.stock(stock))
        return None if value is None else text(value)

    @guarded
    async def stock_size(self, stock: str) -> int:
        return int(await self._redis.llen(self._keys.stock(stock)))

    # ------------------------------------------------------------ documents

    @guarded
    async def put_document(self, kind: str, key: str, value: dict[str, Any], keep_seconds: int | None = None) -> None:
        document_key = self._keys.document(kind, key)
        if keep_seconds is not None and keep_seconds <= 0:
            await self._redis.delete(document_key)
        else:
            await self._redis.set(document_key, dumps(value), ex=keep_seconds)

    @guarded
    async def get_document(self, kind: str, key: str) -> dict[str, Any] | None:
        value = await self._redis.get(self._keys.document(kind, key))
        return None if value is None else json.loads(value)

    @guarded
    async def index_document(self, kind: str, index: str, key: str, score: float) -> None:
        document_ttl = await self._redis.pttl(self._keys.document(kind, key))
        await self._index(keys=[self._keys.index(kind, index)], args=[key, score, document_ttl])

    @guarded
    async def list_documents(self, kind: str, index: str, limit: int = 50) -> list[dict[str, Any]]:
        return await self._newest(self._keys.index(kind, index), partial(self._keys.document, kind), limit)

    # ------------------------------------------------------------ pub/sub

    @guarded
    async def publish(self, channel: str, payload: bytes) -> None:
        await self._publish(self._keys.channel(channel), payload)

    @guarded
    async def subscribe(self, channel: str, on_resume: OnResume | None = None) -> Subscription:
        return await self._hub.subscribe(self._keys.channel(channel), on_resume)

