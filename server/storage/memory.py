"""The in-memory store: ``arena serve --memory``, and the store of a
server made in process (tests, benchmarks) that names none.

It keeps everything in dicts of one process and forgets it on exit; pub/sub
reaches only subscribers in the same process (``MemoryChannels``).  Expiry times are honoured
on read, by the clock the store is handed (the server's, a test's fake
one), and
``expire_due`` (the server's sweeper calls it) drops everything due, so
data nobody reads again does not stay in memory.  An identity's lifetime
is renewed as Redis renews its keys' expiry: by the use of its token and
by every write of its record or Vegas earnings.
"""

from __future__ import annotations

import collections
import copy
from collections.abc import Mapping, Sized
from typing import Any, Iterable

from .base import DEFAULT_RETENTION, SETTLED_MARK_SECONDS, Held, LogConflict, OnResume, Retention, Skip, Store
from .base import StoreSize, Subscription
from .memory_boards import Entry, MemoryBoards
from .memory_channels import MemoryChannels
from .memory_deadlines import Deadlines
from .memory_devices import MemoryIdentities
from .memory_held import DOCUMENT_EXPIRY, INDEX_EXPIRY, SETTING_EXPIRY, held_in, ranked_entries
from .memory_presence import MemoryPresence
from .memory_sessions import EMPTY_LOG, PackedHeader, PackedLog, SessionIndex, appended, log_length, newest
from .memory_sessions import pack_header, unpack_header, unpack_log
from server.runtime.clock import Clock, wall_clock_ms
from server.model.records import Action, Announcement, DayResult, Finish, GameResult, LeaderEntry, PlayerRecord, Record
from server.model.records import SessionHeader


class MemoryStore(MemoryPresence, MemoryIdentities, Store):
    """Expiry deadlines are keyed by ("session", game id), ("board", board),
    ("setting", name), ("document:" + kind, key) or ("index:" + kind,
    index), so no document kind can clash with the others.  Identities
    expire by when they were last renewed (``MemoryIdentities``)."""

    def __init__(self, clock: Clock = wall_clock_ms, retention: Retention = DEFAULT_RETENTION) -> None:
        MemoryIdentities.__init__(self, clock, retention.identity_seconds)
        MemoryPresence.__init__(self, lambda: clock() / 1000, retention.identity_seconds)
        self._headers: dict[str, PackedHeader] = {}
        self._index = SessionIndex()
        self._logs: dict[str, PackedLog] = {}
        self._expires = Deadlines()
        self._outboxes: set[str] = set()
        self._boards = MemoryBoards()
        self._settings: dict[str, str] = {}
        self._stocks: dict[str, collections.deque[str]] = {}
        self._documents: dict[tuple[str, str], dict[str, Any]] = {}
        self._indexes: dict[tuple[str, str], dict[str, float]] = {}
        self._channels = MemoryChannels()

    def _alive(self, kind: str, key: str) -> bool:
        deadline = self._expires.get((kind, key))
        if deadline is not None and deadline <= self._now():
            self._expires.pop((kind, key))
            if kind == "session":
                self._index.drop(key, self._headers.pop(key, None))
                self._logs.pop(key, None)
                self._outboxes.discard(key)
            elif kind == "board":
                self._boards.boards.pop(key, None)
            elif kind == SETTING_EXPIRY:
                self._settings.pop(key, None)
            elif kind.startswith(INDEX_EXPIRY):
                self._indexes.pop((kind.removeprefix(INDEX_EXPIRY), key), None)
            else:
                self._documents.pop((kind.removeprefix(DOCUMENT_EXPIRY), key), None)
            return False
        return True

    async def check_writable(self) -> None:
        """The memory store always takes writes."""

    async def expire_due(self) -> int:
        dropped = self._expire_codes() + sum(not self._alive(kind, key) for kind, key in self._expires.due(self._now()))
        dropped += self._presence_due()
        return dropped + self._identities_due()

    async def size(self) -> StoreSize:
        tables: list[Sized] = [
            self._players, self._by_token, self._headers, self._logs, self._outboxes, self._vegas, self._boards.boards,
            self._settings, self._stocks, self._documents, self._indexes, self._devices, self._link_codes,
            self._attempts, self._days, *self._records.values(), *self._settled.values(),
        ]
        return StoreSize(
            keys=sum(len(table) for table in tables),
            live_games=len(self._index.live),
            open_finishes=len(self._outboxes),
            sessions=len(self._headers),
            identities=len(self._players),
        )

    async def close(self) -> None:
        self._channels.close()

    async def ping(self) -> None:
        return None

    async def create_player(self, player: PlayerRecord) -> None:
        self._players[player.player_id] = copy.copy(player)
        self._by_token[player.token_hash] = player.player_id
        self._renew(player.player_id)

    async def get_player(self, player_id: str) -> PlayerRecord | None:
        player = self._players.get(player_id) if self._identity_alive(player_id) else None
        return copy.copy(player) if player else None

    async def get_players(self, player_ids: Iterable[str]) -> dict[str, PlayerRecord]:
        return {player_id: player for player_id in player_ids if (player := await self.get_player(player_id))}

    async def set_display_name(self, player_id: str, name: str) -> None:
        if player_id in self._players:
            self._players[player_id].display_name = name

    async def mark_bot(self, player_id: str) -> None:
        if player_id in self._players:
            self._players[player_id].bot = True

    async def note_address(self, player_id: str, address: str) -> None:
        if player_id in self._players:
            self._players[player_id].address = address

    async def create_session(self, header: SessionHeader) -> None:
        self._index.drop(header.game_id, self._headers.get(header.game_id))
        packed = self._headers[header.game_id] = pack_header(header)
        self._index.put(header.game_id, packed)
        self._logs[header.game_id] = EMPTY_LOG
        self._expires.pop(("session", header.game_id), None)

    async def append(
        self, game_id: str, expected_length: int, action: Action, *, ends: bool = False,
        announce: Announcement | None = None,
    ) -> int:
        log = self._logs.get(game_id) if self._alive("session", game_id) else None
        if log is None:
            raise KeyError(game_id)
        length = log_length(log)
        if length != expected_length:
            raise LogConflict(game_id, expected_length, length)
        self._logs[game_id] = appended(log, action)
        if ends:
            self._outboxes.add(game_id)
        if announce is not None:
            self._channels.publish(announce.channel, announce.payload)
        return length + 1

    async def log_lengths(self, game_ids: list[str]) -> dict[str, int]:
        return {
            game_id: log_length(self._logs[game_id])
            for game_id in game_ids
            if self._alive("session", game_id) and game_id in self._logs
        }

    async def load_session(self, game_id: str) -> tuple[SessionHeader, list[Action]] | None:
        if not self._alive("session", game_id) or game_id not in self._headers:
            return None
        return unpack_header(self._headers[game_id]), unpack_log(self._logs[game_id])

    async def update_session(self, header: SessionHeader) -> None:
        if header.game_id in self._headers:
            packed = self._headers[header.game_id] = pack_header(header)
            self._index.put(header.game_id, packed)

    async def live_sessions(self, limit: int = 100) -> list[SessionHeader]:
        return self._newest(list(self._index.live), limit)

    async def sessions_of(self, player_id: str, limit: int = 20) -> list[SessionHeader]:
        return self._newest(list(self._index.owned.get(player_id, ())), limit)

    def _newest(self, keys: list[str], limit: int) -> list[SessionHeader]:
        """The unexpired headers of ``keys`` (a copy: expiry may drop them
        from the index), newest first."""
        return newest([self._headers[key] for key in keys if self._alive("session", key)], limit)

    async def finish_session(self, header: SessionHeader, keep_seconds: int) -> None:
        await self.update_session(header)
        self._expires[("session", header.game_id)] = self._now() + keep_seconds

    async def open_finishes(self, limit: int = 100) -> list[str]:
        for game_id in list(self._outboxes):
            self._alive("session", game_id)
        return sorted(self._outboxes)[:limit]

    async def settle_finish(self, finish: Finish) -> None:
        header = finish.header
        entry = finish.result
        if entry is not None:
            self._identity_alive(entry.player_id)
        if entry is not None and self._mark_settled(entry.player_id, header.game_id):
            await self.add_result(entry.player_id, entry.record_key, entry.result)
            if entry.vegas is not None:
                await self.add_vegas(entry.player_id, entry.vegas)
            if entry.day is not None:
                await self.add_day(entry.player_id, entry.day)
        board = finish.board
        if board is not None:
            await self.submit(board.board, board.player_id, board.time_ms, board.moves, board.finished_ms,
                              board.keep_seconds)
        if header.game_id in self._headers:
            await self.finish_session(header, finish.keep_seconds)
        self._outboxes.discard(header.game_id)

    def _mark_settled(self, player_id: str, game_id: str) -> bool:
        """Mark ``game_id`` settled in the player's record; False if it was."""
        now = self._now()
        marks = self._settled.setdefault(player_id, {})
        for old in [game for game, at in marks.items() if at <= now - SETTLED_MARK_SECONDS]:
            del marks[old]
        if game_id in marks:
            return False
        marks[game_id] = now
        return True

    async def add_result(self, player_id: str, record_key: str, result: GameResult) -> None:
        self._identity_alive(player_id)
        self._renew(player_id)
        record = self._records.setdefault(player_id, {}).setdefault(record_key, Record())
        record.games += 1
        record.wins += int(result.won)
        record.moves += result.moves
        record.time_ms += result.time_ms
        record.hints += result.hints
        record.undos += result.undos
        for name, value in result.counters.items():
            record.counters[name] = record.counters.get(name, 0) + value
        if result.won:
            record.best_moves = result.moves if record.best_moves is None else min(record.best_moves, result.moves)
            record.best_time_ms = (
                result.time_ms if record.best_time_ms is None else min(record.best_time_ms, result.time_ms)
            )
        if result.score is not None:
            best = record.extra.get("best_score")
            record.extra["best_score"] = result.score if best is None else max(best, result.score)

    async def records(self, player_id: str) -> dict[str, Record]:
        self._identity_alive(player_id)
        return copy.deepcopy(self._records.get(player_id, {}))

    async def add_day(self, player_id: str, day: DayResult) -> bool:
        self._identity_alive(player_id)
        self._renew(player_id)
        days = self._days.setdefault(player_id, {})
        if day.key in days:
            return False
        days[day.key] = day
        return True

    async def days(self, player_id: str) -> list[DayResult]:
        self._identity_alive(player_id)
        return [day for _, day in sorted(self._days.get(player_id, {}).items())]

    async def days_of(self, player_ids: list[str]) -> dict[str, list[DayResult]]:
        return {player_id: await self.days(player_id) for player_id in player_ids}

    async def add_vegas(self, player_id: str, amount: int) -> int:
        self._identity_alive(player_id)
        self._renew(player_id)
        self._vegas[player_id] = self._vegas.get(player_id, 0) + amount
        return self._vegas[player_id]

    async def vegas(self, player_id: str) -> int:
        self._identity_alive(player_id)
        return self._vegas.get(player_id, 0)

    async def submit(self, board: str, player_id: str, time_ms: int, moves: int, finished_ms: int,
                     keep_seconds: int) -> None:
        self._alive("board", board)
        self._boards.submit(board, player_id, time_ms, moves, finished_ms)
        self._expires[("board", board)] = self._now() + keep_seconds

    def _ordered(self, board: str) -> list[tuple[str, Entry]]:
        return self._boards.ordered(board) if self._alive("board", board) else []

    def _entry(self, rank: int, player_id: str, data: Entry) -> LeaderEntry:
        player = self._players.get(player_id)
        name = player.display_name if player else player_id
        return LeaderEntry(rank, player_id, name, data[1], data[2], data[3])

    async def leaderboard(self, board: str, offset: int = 0, count: int = 10) -> list[LeaderEntry]:
        ordered = self._ordered(board)
        return [self._entry(offset + i + 1, pid, data) for i, (pid, data) in enumerate(ordered[offset : offset + count])]

    async def board_size(self, board: str) -> int:
        return len(self._ordered(board))

    async def rank(self, board: str, player_id: str) -> LeaderEntry | None:
        for i, (pid, data) in enumerate(self._ordered(board)):
            if pid == player_id:
                return self._entry(i + 1, pid, data)
        return None

    async def setting(self, name: str, default: str, keep_seconds: int | None = None) -> str:
        if self._alive(SETTING_EXPIRY, name) and name in self._settings:
            return self._settings[name]
        self._settings[name] = default
        if keep_seconds is not None:
            self._expires[(SETTING_EXPIRY, name)] = self._now() + keep_seconds
        return default

    async def claim(self, name: str, value: str, keep_seconds: int, *, while_holding: tuple[str, str]) -> str | None:
        held = await self.get_setting(while_holding[0])
        if held is None or while_holding[1] not in held:
            return None
        return await self.setting(name, value, keep_seconds)

    async def get_setting(self, name: str) -> str | None:
        return self._settings.get(name) if self._alive(SETTING_EXPIRY, name) else None

    async def get_settings(self, names: Iterable[str]) -> dict[str, str]:
        return {name: value for name in names if (value := await self.get_setting(name)) is not None}

    async def replace_setting(self, name: str, expected: str, value: str | None, keep_seconds: int) -> bool:
        if await self.get_setting(name) != expected:
            return False
        if value is None:
            self._settings.pop(name, None)
            self._expires.pop((SETTING_EXPIRY, name), None)
        else:
            self._settings[name] = value
            self._expires[(SETTING_EXPIRY, name)] = self._now() + keep_seconds
        return True

    async def stock_push(self, stock: str, item: str) -> int:
        items = self._stocks.setdefault(stock, collections.deque())
        items.append(item)
        return len(items)

    async def stock_pop(self, stock: str) -> str | None:
        items = self._stocks.get(stock)
        return items.popleft() if items else None

    async def stock_size(self, stock: str) -> int:
        return len(self._stocks.get(stock, ()))

    async def put_document(self, kind: str, key: str, value: dict[str, Any], keep_seconds: int | None = None) -> None:
        self._documents[(kind, key)] = copy.deepcopy(value)
        if keep_seconds is None:
            self._expires.pop((DOCUMENT_EXPIRY + kind, key), None)
        else:
            self._expires[(DOCUMENT_EXPIRY + kind, key)] = self._now() + keep_seconds

    async def get_document(self, kind: str, key: str) -> dict[str, Any] | None:
        if not self._alive(DOCUMENT_EXPIRY + kind, key):
            return None
        value = self._documents.get((kind, key))
        return copy.deepcopy(value) if value is not None else None

    async def get_documents(self, kind: str, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        return {key: value for key in keys if (value := await self.get_document(kind, key)) is not None}

    async def index_document(self, kind: str, index: str, key: str, score: float) -> None:
        index_expiry = (INDEX_EXPIRY + kind, index)
        existed = self._alive(*index_expiry) and (kind, index) in self._indexes
        self._indexes.setdefault((kind, index), {})[key] = score
        if not self._alive(DOCUMENT_EXPIRY + kind, key) or (kind, key) not in self._documents:
            return
        document_deadline = self._expires.get((DOCUMENT_EXPIRY + kind, key))
        if document_deadline is None:
            self._expires.pop(index_expiry, None)
        elif not existed:
            self._expires[index_expiry] = document_deadline
        elif index_expiry in self._expires:
            self._expires[index_expiry] = max(self._expires[index_expiry], document_deadline)

    async def list_documents(self, kind: str, index: str, limit: int = 50) -> list[dict[str, Any]]:
        self._alive(INDEX_EXPIRY + kind, index)
        keys = sorted(self._indexes.get((kind, index), {}).items(), key=lambda item: -item[1])
        result = []
        for key, _ in keys:
            document = await self.get_document(kind, key)
            if document is not None:
                result.append(document)
            if len(result) >= limit:
                break
        return result

    async def held(self, space: str) -> list[Held]:
        await self.expire_due()
        tables: dict[str, Mapping[Any, Any]] = {
            "player": self._players, "session": self._headers, "board": self._boards.boards, "setting": self._settings,
            "stock": self._stocks, "document": self._documents, "index": self._indexes,
        }
        return held_in(space, tables.get(space, {}), self._expires, self._now())

    async def stock_items(self, stock: str) -> list[str]:
        return list(self._stocks.get(stock, ()))

    async def index_entries(self, kind: str, index: str) -> list[tuple[str, float]]:
        return ranked_entries(self._indexes.get((kind, index), {})) if self._alive(INDEX_EXPIRY + kind, index) else []

    async def publish(self, channel: str, payload: bytes) -> None:
        self._channels.publish(channel, payload)

    async def subscribe(self, channel: str, on_resume: OnResume | None = None, skip: Skip | None = None) -> Subscription:
        return self._channels.subscribe(channel, skip)
