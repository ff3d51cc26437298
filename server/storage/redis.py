"""The Redis back end, through redis-py's ``redis.asyncio`` (hiredis parser
when it is installed).

Several server processes share one Redis, so every step that two of them
could race on is a single atomic Redis operation: the log append and the
best-of updates are short Lua scripts, the rest are single commands or
MULTI transactions.  ``docs/storage.md`` lists every key.

Decisions the interface left open:

- Key names and hash tags are ``redis_keys``'s.  On a Redis Cluster
  (``redis_cluster``) every script touches one slot, and writes that span
  slots run per slot, in order (``RedisBase._write``); docs/storage.md has
  the slot plan and what a failure between two of them leaves.
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
from typing import Any, Iterable, cast

from .base import SETTLED_MARK_SECONDS, AppendRefused, LogConflict, board_score
from server.model.records import (
    Action,
    Announcement,
    DayResult,
    Finish,
    GameResult,
    LeaderEntry,
    PlayerRecord,
    Record,
    SessionHeader,
)
from .redis_base import INDEX_PAGE
from .redis_errors import guarded
from .redis_keys import dumps, player_of, record_of, text
from .redis_scripts import counter_args, result_args
from .redis_devices import RedisDevices
from .redis_presence import RedisPresence

PLAYER_SESSIONS_KEPT = 1000
"""Games a player's index lists at most (``sessions_of``), newest first;
older ones stay loadable by id until they expire."""


def _local_ms() -> int:
    return time.time_ns() // 1_000_000


class RedisStore(RedisPresence, RedisDevices):
    """The store on the Redis server at ``url`` (``redis://``, ``rediss://``
    for TLS, ``unix://``, ``redis+sentinel://``, ``redis+cluster://``); see
    ``RedisBase`` for the options.  Games and players are here, what the
    processes share besides in ``RedisShared``."""

    # ------------------------------------------------------------ players

    @guarded
    async def create_player(self, player: PlayerRecord) -> None:
        key = self._keys.player(player.player_id)
        fields = ("display_name", player.display_name, "token_hash", player.token_hash)
        lifetime = () if self._identity_seconds is None else ("EX", self._identity_seconds)
        await self._write(
            [("HSET", key, *fields, "created_ms", player.created_ms, "bot", int(player.bot),
              *(() if player.address is None else ("address", player.address))), *self._lasting(key)],
            [("SET", self._keys.token(player.token_hash), player.player_id, *lifetime)],
        )

    @guarded
    async def get_player(self, player_id: str) -> PlayerRecord | None:
        return player_of(player_id, cast(dict[bytes, bytes], await self._redis.hgetall(self._keys.player(player_id))))

    @guarded
    async def get_players(self, player_ids: Iterable[str]) -> dict[str, PlayerRecord]:
        wanted = list(dict.fromkeys(player_ids))
        replies = await self._each("HGETALL", [self._keys.player(player_id) for player_id in wanted])
        return {player_id: player for player_id, fields in zip(wanted, replies) if (player := player_of(player_id, fields))}

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

    @guarded
    async def note_address(self, player_id: str, address: str) -> None:
        key = self._keys.player(player_id)
        if await self._redis.exists(key):
            await self._redis.hset(key, "address", address)

    async def _display_names(self, player_ids: list[str]) -> list[str]:
        async with self._redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hget(self._keys.player(player_id), "display_name")
            names = await pipe.execute()
        return [player_id if name is None else text(name) for player_id, name in zip(player_ids, names)]

    # ------------------------------------------------------------ sessions

    @guarded
    async def create_session(self, header: SessionHeader) -> None:
        game_id, created = header.game_id, header.created_ms
        sessions = self._keys.player(header.owner, "sessions")
        await self._write(
            [("SET", self._keys.session(game_id), dumps(header.to_dict())), ("DEL", self._keys.session(game_id, "log"))],
            [("ZADD", self._keys.live, created, game_id)] if header.status == "playing" else [],
            [("ZADD", sessions, created, game_id), ("ZREMRANGEBYRANK", sessions, 0, -PLAYER_SESSIONS_KEPT - 1),
             *self._lasting(sessions)],
        )

    @guarded
    async def append(
        self, game_id: str, expected_length: int, action: Action, *, ends: bool = False,
        announce: Announcement | None = None,
    ) -> int:
        deadline = await self._deadline_ms()
        outbox = ""
        if ends:
            outbox = dumps({"seq": expected_length + 1, "at_ms": action.at_ms})
            await self._redis.zadd(self._keys.outbox, {game_id: deadline})
        keys = [self._keys.session(game_id), self._keys.session(game_id, "log"), self._keys.session(game_id, "outbox")]
        told: list[str | bytes] = ["", "", ""]
        if announce is not None:
            told = [self._publish_command, self._keys.channel(announce.channel), announce.payload]
        args = [expected_length, dumps(action.to_list()), deadline, outbox, *told]
        outcome, length, redis_ms = await self._append(keys, args)
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
        keys = [self._keys.session(game_id), self._keys.session(game_id, "log")]
        header, log = cast(list[Any], await self._load(keys=keys))
        if header is None:
            return None
        return SessionHeader.from_dict(json.loads(header)), [Action.from_list(json.loads(entry)) for entry in log]

    @guarded
    async def log_lengths(self, game_ids: list[str]) -> dict[str, int]:
        if not game_ids:
            return {}
        async with self._redis.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.exists(self._keys.session(game_id))
                pipe.llen(self._keys.session(game_id, "log"))
            replies = await pipe.execute()
        return {
            game_id: int(length)
            for game_id, exists, length in zip(game_ids, replies[::2], replies[1::2])
            if exists
        }

    @guarded
    async def update_session(self, header: SessionHeader) -> None:
        await self._write(
            [("SET", self._keys.session(header.game_id), dumps(header.to_dict()), "XX", "KEEPTTL")],
            [("ZREM", self._keys.live, header.game_id)] if header.status != "playing" else [],
        )

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
        key = self._keys.session(header.game_id)
        await self._write(
            [("SET", key, dumps(header.to_dict()), "XX"), ("EXPIRE", key, keep_seconds),
             ("EXPIRE", self._keys.session(header.game_id, "log"), keep_seconds)],
            [("ZREM", self._keys.live, header.game_id)],
        )

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
            keys = [
                *self._keys.identity(player), self._keys.player(player, "record", entry.record_key),
                self._keys.player(player, "days"),
            ]
            vegas = "" if entry.vegas is None else entry.vegas
            day = ["", ""] if entry.day is None else [entry.day.key, dumps(entry.day.to_dict())]
            args = [
                *result_args(entry.record_key, entry.result), *self._renewal(player),
                header.game_id, vegas, SETTLED_MARK_SECONDS * 1000, *day, *counter_args(entry.result),
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

    # ------------------------------------------------------------ records

    @guarded
    async def add_result(self, player_id: str, record_key: str, result: GameResult) -> None:
        keys = [*self._keys.identity(player_id), self._keys.player(player_id, "record", record_key)]
        args = [*result_args(record_key, result), *self._renewal(player_id), *counter_args(result)]
        await self._add_result(keys=keys, args=args)

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
    async def add_day(self, player_id: str, day: DayResult) -> bool:
        keys = [*self._keys.identity(player_id), self._keys.player(player_id, "days")]
        args = [day.key, dumps(day.to_dict()), *self._renewal(player_id)]
        return bool(await self._add_day(keys=keys, args=args))

    @guarded
    async def days(self, player_id: str) -> list[DayResult]:
        return _days(cast(dict[bytes, bytes], await self._redis.hgetall(self._keys.player(player_id, "days"))))

    @guarded
    async def days_of(self, player_ids: list[str]) -> dict[str, list[DayResult]]:
        wanted = list(dict.fromkeys(player_ids))
        replies = await self._each("HGETALL", [self._keys.player(player_id, "days") for player_id in wanted])
        return {player_id: _days(stored) for player_id, stored in zip(wanted, replies)}

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
    async def board_size(self, board: str) -> int:
        return int(await self._redis.zcard(self._keys.board(board)))

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


def _days(stored: dict[bytes, bytes]) -> list[DayResult]:
    """A player's days from their hash, by key."""
    return [DayResult.from_dict(json.loads(stored[key])) for key in sorted(stored)]
