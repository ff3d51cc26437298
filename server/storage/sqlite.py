"""The SQLite back end: a server on one machine keeps everything in one
file, and loses nothing on restart.

Decisions behind it (docs/storage.md, "The SQLite store", has the
operator's side):

- Python's ``sqlite3`` on one thread of the store's own
  (``sqlite_writer``), rather than ``aiosqlite``: that library also runs
  every call on a thread, but commits each one by itself, where the
  store's thread commits every call waiting in one transaction (group
  commit), and answers none before its commit.
- WAL mode with ``synchronous=FULL``: each commit syncs the write-ahead
  log, so an acknowledged action survives ``kill -9`` and a power cut
  alike.  ``NORMAL`` would survive ``kill -9`` only; group commit makes
  ``FULL`` cost one sync per batch, not one per action.
- One process per database (``sqlite_lock``): pub/sub is in-process, as
  the memory store's, and the writer thread is what orders writes.
- The file is checked at open (``sqlite_schema``): a foreign, damaged or
  newer file is refused with a clear error, never reset; an older one is
  migrated forward.
- Expiry runs on the store's clock (injectable, as the memory store's):
  what is past its deadline reads as gone, and ``expire_due`` (the
  sweeper) deletes it.
"""

from __future__ import annotations

import copy
import sqlite3
from pathlib import Path
from typing import Any, Callable, Concatenate, Iterable, ParamSpec, TypeVar

from server.runtime.clock import Clock, wall_clock_ms
from .base import DEFAULT_RETENTION, Held, OnResume, Retention, Skip, Store, StoreSize, Subscription
from .memory_channels import MemoryChannels
from .sqlite_lock import DatabaseLock
from .sqlite_presence import SqlitePresence
from .sqlite_schema import StoreUnusable, open_database
from . import sqlite_devices
from .devices_base import Device
from .sqlite_tables import Tables
from .sqlite_writer import Writer
from server.model.records import Action, Announcement, DayResult, Finish, GameResult, LeaderEntry, PlayerRecord
from server.model.records import Record, SessionHeader

SQLITE_SCHEME = "sqlite://"
P = ParamSpec("P")
R = TypeVar("R")


def sqlite_path(url: str) -> Path:
    """The database file of ``sqlite://PATH`` (``sqlite:///srv/arena.db``
    is absolute, ``sqlite://arena.db`` relative to the working directory);
    ``ValueError`` for a URL without one."""
    path = url.removeprefix(SQLITE_SCHEME)
    if not url.startswith(SQLITE_SCHEME) or not path or path.endswith("/") or "?" in path or "#" in path:
        raise ValueError("expected sqlite:///PATH/TO/FILE.db")
    return Path(path)


SCALARS = frozenset({str, int, float, bool, bytes, type(None)})
"""Values a caller cannot change: arguments made only of these need no
copy (a deep copy was most of what a read of one document cost)."""


class SqliteStore(SqlitePresence, Store):
    """The store in the SQLite database at ``path`` (created, and its
    folder, if missing), held by this process until ``close``.  Raises ``StoreLocked`` when
    another process holds it and ``StoreUnusable`` when the file cannot
    be used (both ``StorageUnavailable``).  ``clock``: the time expiry
    reads (milliseconds), as the memory store's."""

    def __init__(
        self, path: str | Path, *, clock: Clock = wall_clock_ms, retention: Retention = DEFAULT_RETENTION
    ) -> None:
        self.path = Path(path)
        self._identity_seconds = retention.identity_seconds
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as error:
            raise StoreUnusable(f"cannot make the folder of the database {self.path}: {error}") from error
        self._lock = DatabaseLock(self.path)
        try:
            db = open_database(self.path)
        except BaseException:
            self._lock.release()
            raise
        self._writer = Writer(db, lambda: clock() / 1000, f"arena-sqlite {self.path.name}")
        self._channels = MemoryChannels()
        """Pub/sub within this process, which is every subscriber a database
        has (one process per database): messages are never lost, so
        ``on_resume`` is never called."""

    async def _run(self, operation: Callable[Concatenate[Tables, P], R], *args: P.args, **kwargs: P.kwargs) -> R:
        """``operation`` on the tables, in the writer thread, committed.  The
        arguments are copied first, as the memory store copies what it
        keeps: a caller may change a header while its write waits."""
        identity_seconds = self._identity_seconds
        if not all(type(value) in SCALARS for value in (*args, *kwargs.values())):
            args, kwargs = copy.deepcopy((args, kwargs))

        def job(db: sqlite3.Connection, now: float) -> R:
            return operation(Tables(db, now, identity_seconds), *args, **kwargs)

        result: R = await self._writer.run(job)
        return result

    # ---------------------------------------------------------------- life

    async def close(self) -> None:
        await self._writer.close()
        self._lock.release()
        self._channels.close()

    async def ping(self) -> None:
        await self._run(Tables.ping)

    async def check_writable(self) -> None:
        await self._run(Tables.check_writable)

    async def size(self) -> StoreSize:
        return await self._run(Tables.size)

    async def expire_due(self) -> int:
        return await self._run(Tables.expire_due) + await self._presence_due()

    # ---------------------------------------------------------------- players

    async def create_player(self, player: PlayerRecord) -> None:
        await self._run(Tables.create_player, player)

    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        found = await self.device_by_token_hash(token_hash, None)
        return None if found is None else found[0]

    async def get_player(self, player_id: str) -> PlayerRecord | None:
        return await self._run(Tables.get_player, player_id)

    async def get_players(self, player_ids: Iterable[str]) -> dict[str, PlayerRecord]:
        return await self._run(Tables.get_players, *player_ids)

    async def set_display_name(self, player_id: str, name: str) -> None:
        await self._run(Tables.update_player, player_id, "display_name", name)

    async def mark_bot(self, player_id: str) -> None:
        await self._run(Tables.update_player, player_id, "bot", 1)

    async def note_address(self, player_id: str, address: str) -> None:
        await self._run(Tables.update_player, player_id, "address", address)

    # ---------------------------------------------------------------- devices

    async def device_by_token_hash(self, token_hash: str, seen_ms: int | None) -> tuple[PlayerRecord, Device] | None:
        return await self._run(sqlite_devices.device_by_token_hash, token_hash, seen_ms)

    async def devices(self, player_id: str) -> list[Device]:
        return await self._run(sqlite_devices.devices, player_id)

    async def add_device(self, player_id: str, device: Device, limit: int) -> bool:
        return await self._run(sqlite_devices.add_device, player_id, device, limit)

    async def rename_device(self, player_id: str, device_id: str, name: str) -> None:
        await self._run(sqlite_devices.rename_device, player_id, device_id, name)

    async def revoke_device(self, player_id: str, device_id: str) -> bool:
        return await self._run(sqlite_devices.revoke_device, player_id, device_id)

    async def rotate_device_token(self, player_id: str, device_id: str, token_hash: str) -> bool:
        return await self._run(sqlite_devices.rotate_device_token, player_id, device_id, token_hash)

    async def put_link_code(self, code_hash: str, player_id: str, keep_seconds: int) -> None:
        await self._run(sqlite_devices.put_link_code, code_hash, player_id, keep_seconds)

    async def take_link_code(self, code_hash: str) -> str | None:
        return await self._run(sqlite_devices.take_link_code, code_hash)

    async def count_attempt(self, counter: str, window_seconds: int) -> int:
        return await self._run(sqlite_devices.count_attempt, counter, window_seconds)

    # ---------------------------------------------------------------- sessions

    async def create_session(self, header: SessionHeader) -> None:
        await self._run(Tables.create_session, header)

    async def append(
        self, game_id: str, expected_length: int, action: Action, *, ends: bool = False,
        announce: Announcement | None = None,
    ) -> int:
        """The announcement is delivered once the entry is committed, before
        the caller hears of it, even if the caller stopped waiting."""
        identity_seconds = self._identity_seconds

        def job(db: sqlite3.Connection, now: float) -> int:
            return Tables(db, now, identity_seconds).append(game_id, expected_length, action, ends)

        def then(_: object) -> None:
            if announce is not None:
                self._channels.publish(announce.channel, announce.payload)

        length: int = await self._writer.run(job, then)
        return length

    async def load_session(self, game_id: str) -> tuple[SessionHeader, list[Action]] | None:
        return await self._run(Tables.load_session, game_id)

    async def log_lengths(self, game_ids: list[str]) -> dict[str, int]:
        return await self._run(Tables.log_lengths, list(game_ids))

    async def update_session(self, header: SessionHeader) -> None:
        await self._run(Tables.update_session, header)

    async def live_sessions(self, limit: int = 100) -> list[SessionHeader]:
        return await self._run(Tables.live_sessions, limit)

    async def sessions_of(self, player_id: str, limit: int = 20) -> list[SessionHeader]:
        return await self._run(Tables.sessions_of, player_id, limit)

    async def finish_session(self, header: SessionHeader, keep_seconds: int) -> None:
        await self._run(Tables.finish_session, header, keep_seconds)

    async def open_finishes(self, limit: int = 100) -> list[str]:
        return await self._run(Tables.open_finishes, limit)

    async def settle_finish(self, finish: Finish) -> None:
        await self._run(Tables.settle_finish, finish)

    # ---------------------------------------------------------------- records

    async def add_result(self, player_id: str, record_key: str, result: GameResult) -> None:
        await self._run(Tables.add_result, player_id, record_key, result)

    async def records(self, player_id: str) -> dict[str, Record]:
        return await self._run(Tables.records, player_id)

    async def add_vegas(self, player_id: str, amount: int) -> int:
        return await self._run(Tables.add_vegas, player_id, amount)

    async def add_day(self, player_id: str, day: DayResult) -> bool:
        return await self._run(Tables.add_day, player_id, day)

    async def days(self, player_id: str) -> list[DayResult]:
        return await self._run(Tables.days, player_id)

    async def days_of(self, player_ids: list[str]) -> dict[str, list[DayResult]]:
        return await self._run(Tables.days_of, *player_ids)

    async def vegas(self, player_id: str) -> int:
        return await self._run(Tables.vegas, player_id)

    # ---------------------------------------------------------------- leaderboards

    async def submit(self, board: str, player_id: str, time_ms: int, moves: int, finished_ms: int,
                     keep_seconds: int) -> None:
        await self._run(Tables.submit, board, player_id, time_ms, moves, finished_ms, keep_seconds)

    async def leaderboard(self, board: str, offset: int = 0, count: int = 10) -> list[LeaderEntry]:
        return await self._run(Tables.leaderboard, board, offset, count)

    async def rank(self, board: str, player_id: str) -> LeaderEntry | None:
        return await self._run(Tables.rank, board, player_id)

    async def board_size(self, board: str) -> int:
        return await self._run(Tables.board_size, board)

    # ---------------------------------------------------------------- settings

    async def setting(self, name: str, default: str, keep_seconds: int | None = None) -> str:
        return await self._run(Tables.setting, name, default, keep_seconds)

    async def claim(self, name: str, value: str, keep_seconds: int, *, while_holding: tuple[str, str]) -> str | None:
        return await self._run(Tables.claim, name, value, keep_seconds, while_holding)

    async def get_setting(self, name: str) -> str | None:
        return await self._run(Tables.get_setting, name)

    async def get_settings(self, names: Iterable[str]) -> dict[str, str]:
        return await self._run(Tables.get_settings, *names)

    async def replace_setting(self, name: str, expected: str, value: str | None, keep_seconds: int) -> bool:
        return await self._run(Tables.replace_setting, name, expected, value, keep_seconds)

    # ---------------------------------------------------------------- stocks

    async def stock_push(self, stock: str, item: str) -> int:
        return await self._run(Tables.stock_push, stock, item)

    async def stock_pop(self, stock: str) -> str | None:
        return await self._run(Tables.stock_pop, stock)

    async def stock_size(self, stock: str) -> int:
        return await self._run(Tables.stock_size, stock)

    # ---------------------------------------------------------------- documents

    async def put_document(self, kind: str, key: str, value: dict[str, Any], keep_seconds: int | None = None) -> None:
        await self._run(Tables.put_document, kind, key, value, keep_seconds)

    async def get_document(self, kind: str, key: str) -> dict[str, Any] | None:
        return await self._run(Tables.get_document, kind, key)

    async def get_documents(self, kind: str, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        return await self._run(Tables.get_documents, kind, *keys)

    async def list_documents(self, kind: str, index: str, limit: int = 50) -> list[dict[str, Any]]:
        return await self._run(Tables.list_documents, kind, index, limit)

    async def index_document(self, kind: str, index: str, key: str, score: float) -> None:
        await self._run(Tables.index_document, kind, index, key, score)

    # ---------------------------------------------------------------- enumeration

    async def held(self, space: str) -> list[Held]:
        return await self._run(Tables.held, space)

    async def stock_items(self, stock: str) -> list[str]:
        return await self._run(Tables.stock_items, stock)

    async def index_entries(self, kind: str, index: str) -> list[tuple[str, float]]:
        return await self._run(Tables.index_entries, kind, index)

    # ---------------------------------------------------------------- pub/sub

    async def publish(self, channel: str, payload: bytes) -> None:
        self._channels.publish(channel, payload)

    async def subscribe(self, channel: str, on_resume: OnResume | None = None, skip: Skip | None = None) -> Subscription:
        return self._channels.subscribe(channel, skip)
