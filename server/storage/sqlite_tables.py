"""What each call of the SQLite store does to its tables, inside one
transaction of the writer thread (``sqlite_writer``).

Everything here runs in the store's one thread, in a transaction, so
each method is atomic by itself: the check of a log's length and the
append, the read and write of a best entry, a claim and the setting it
depends on, the mark of a settled game and the record it guards.

Expiry follows the memory store, with the store's clock (``now``, read
when the call was made): a value past its deadline reads as gone, a
write over it starts afresh, and ``expire_due`` deletes everything due.
An identity's lifetime is renewed by the use of its token and by every
write of its record or Vegas earnings; a write to an identity whose
lifetime has ended first forgets the old one.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from .base import HELD_SPACES, SETTLED_MARK_SECONDS, Held, StoreSize, board_score
from .errors import LogConflict
from .sqlite_values import ALIVE, ValueTables, dumps
from server.model.records import Action, DayResult, Finish, GameResult, LeaderEntry, PlayerRecord, Record, SessionHeader

IDENTITY_TABLES = ("identities", "players", "tokens", "records", "vegas", "settled", "device_sets", "devices", "days")
COUNTED_TABLES = (*IDENTITY_TABLES, "sessions", "board_entries", "boards", "settings", "stocks", "documents",
                  "document_indexes", "indexed", "link_codes", "attempts")
"""The rows ``size`` counts as keys: a log counts once, as its session's
row (as in the memory store), so no scrape reads every action stored."""
PLAYER_COLUMNS = ("display_name", "bot", "address")
LOG_LENGTHS_CHUNK = 500
HELD_QUERIES = dict(zip(HELD_SPACES, (
    "SELECT '', player_id, NULL FROM players",
    "SELECT '', game_id, expires_at FROM sessions",
    "SELECT '', board, expires_at FROM boards WHERE EXISTS (SELECT 1 FROM board_entries e WHERE e.board = boards.board)",
    "SELECT '', name, expires_at FROM settings",
    "SELECT DISTINCT '', stock, NULL FROM stocks",
    "SELECT kind, key, expires_at FROM documents",
    "SELECT kind, name, expires_at FROM document_indexes d "
    "WHERE EXISTS (SELECT 1 FROM indexed i WHERE i.kind = d.kind AND i.name = d.name)",
)))
"""What ``held`` lists of each space: (kind, name, deadline) rows."""


class Tables(ValueTables):
    """The database as one transaction at the store's time ``now`` sees it."""

    # ------------------------------------------------------------ life

    def ping(self) -> None:
        self._one("SELECT 1")

    def check_writable(self) -> None:
        self.db.execute("INSERT OR REPLACE INTO health VALUES (1, ?)", (self.now,))

    def size(self) -> StoreSize:
        keys = sum(self._one(f"SELECT count(*) FROM {table}")[0] for table in COUNTED_TABLES)
        live, outboxes, sessions = self._one("SELECT total(playing), total(outbox), count(*) FROM sessions")
        identities = self._one("SELECT count(*) FROM players")[0]
        return StoreSize(keys=keys, live_games=int(live), open_finishes=int(outboxes), sessions=sessions,
                         identities=identities)

    def expire_due(self) -> int:
        """Delete everything past its deadline: the number of sessions,
        boards, settings, documents, indexes and identities deleted."""
        now = (self.now,)
        execute = self.db.execute
        execute("DELETE FROM actions WHERE game_id IN (SELECT game_id FROM sessions WHERE expires_at <= ?)", now)
        execute("DELETE FROM board_entries WHERE board IN (SELECT board FROM boards WHERE expires_at <= ?)", now)
        execute("DELETE FROM indexed WHERE (kind, name) IN "
                "(SELECT kind, name FROM document_indexes WHERE expires_at <= ?)", now)
        dropped = sum(
            execute(f"DELETE FROM {table} WHERE expires_at <= ?", now).rowcount
            for table in ("sessions", "boards", "settings", "documents", "document_indexes", "link_codes", "attempts")
        )
        if self.identity_seconds is not None:
            unused = execute("SELECT player_id FROM identities WHERE renewed_at <= ?",
                             (self.now - self.identity_seconds,)).fetchall()
            for (player_id,) in unused:
                self._forget(player_id)
            dropped += len(unused)
        execute("DELETE FROM settled WHERE at <= ?", (self.now - SETTLED_MARK_SECONDS,))
        return dropped

    def held(self, space: str) -> list[Held]:
        """Drops what is due first, so every row listed is alive."""
        if space not in HELD_QUERIES:
            raise ValueError(f"no such space: {space}")
        self.expire_due()
        rows = self.db.execute(HELD_QUERIES[space] + " ORDER BY 1, 2").fetchall()
        return [Held(space, name, kind, None if deadline is None else deadline - self.now)
                for kind, name, deadline in rows]

    # ------------------------------------------------------------ identities

    def _identity_expired(self, player_id: str) -> bool:
        if self.identity_seconds is None:
            return False
        row = self._one("SELECT renewed_at FROM identities WHERE player_id = ?", player_id)
        return row is not None and row[0] + self.identity_seconds <= self.now

    def _renew(self, player_id: str) -> None:
        """Start the identity's lifetime again, forgetting it first if it had ended."""
        if self._identity_expired(player_id):
            self._forget(player_id)
        self.db.execute("INSERT OR REPLACE INTO identities VALUES (?, ?)", (player_id, self.now))

    def _forget(self, player_id: str) -> None:
        for table in IDENTITY_TABLES:
            self.db.execute(f"DELETE FROM {table} WHERE player_id = ?", (player_id,))

    # ------------------------------------------------------------ players

    def create_player(self, player: PlayerRecord) -> None:
        self._renew(player.player_id)
        self.db.execute(
            "INSERT OR REPLACE INTO players VALUES (?, ?, ?, ?, ?, ?)",
            (player.player_id, player.display_name, player.token_hash, player.created_ms, int(player.bot),
             player.address),
        )
        self.db.execute("INSERT OR REPLACE INTO tokens VALUES (?, ?)", (player.token_hash, player.player_id))

    def token_owner(self, token_hash: str) -> str | None:
        """The live player a token row names, renewed; None for none."""
        row = self._one("SELECT player_id FROM tokens WHERE token_hash = ?", token_hash)
        if row is None or self._identity_expired(row[0]):
            return None
        self._renew(row[0])
        return str(row[0])

    def get_player(self, player_id: str) -> PlayerRecord | None:
        if self._identity_expired(player_id):
            return None
        row = self._one(
            "SELECT display_name, token_hash, created_ms, bot, address FROM players WHERE player_id = ?", player_id
        )
        return None if row is None else PlayerRecord(player_id, row[0], row[1], row[2], bool(row[3]), row[4])

    def get_players(self, *player_ids: str) -> dict[str, PlayerRecord]:
        """Each stored player of ``player_ids``, in one job of the store's thread."""
        return {player_id: player for player_id in player_ids if (player := self.get_player(player_id))}

    def update_player(self, player_id: str, column: str, value: str | int) -> None:
        """Change one of ``PLAYER_COLUMNS`` of a stored player (of none, nothing)."""
        if column not in PLAYER_COLUMNS:
            raise ValueError(f"not a player column: {column}")
        self.db.execute(f"UPDATE players SET {column} = ? WHERE player_id = ?", (value, player_id))

    # ------------------------------------------------------------ sessions

    def create_session(self, header: SessionHeader) -> None:
        self.db.execute(
            "INSERT INTO sessions (game_id, owner, created_ms, playing, header, length) VALUES (?, ?, ?, ?, ?, 0) "
            "ON CONFLICT (game_id) DO UPDATE SET owner = excluded.owner, created_ms = excluded.created_ms, "
            "playing = excluded.playing, header = excluded.header, length = 0, expires_at = NULL",
            (header.game_id, header.owner, header.created_ms, int(header.status == "playing"),
             dumps(header.to_dict())),
        )
        self.db.execute("DELETE FROM actions WHERE game_id = ?", (header.game_id,))

    def _length(self, game_id: str) -> int | None:
        """The log's length, None for a session not stored (or expired)."""
        row = self._one(f"SELECT length FROM sessions WHERE game_id = ? AND {ALIVE}", game_id, self.now)
        return None if row is None else int(row[0])

    def append(self, game_id: str, expected_length: int, action: Action, ends: bool) -> int:
        """The length checked and grown by one statement, the hot path's
        fewest: each statement is a trip out of Python and back."""
        grown = self.db.execute(
            f"UPDATE sessions SET length = length + 1, outbox = max(outbox, ?) "
            f"WHERE game_id = ? AND length = ? AND {ALIVE}",
            (int(ends), game_id, expected_length, self.now),
        )
        if grown.rowcount != 1:
            length = self._length(game_id)
            if length is None:
                raise KeyError(game_id)
            raise LogConflict(game_id, expected_length, length)
        self.db.execute("INSERT INTO actions VALUES (?, ?, ?)",
                        (game_id, expected_length + 1, dumps(action.to_list())))
        return expected_length + 1

    def load_session(self, game_id: str) -> tuple[SessionHeader, list[Action]] | None:
        row = self._one(f"SELECT header FROM sessions WHERE game_id = ? AND {ALIVE}", game_id, self.now)
        if row is None:
            return None
        entries = self.db.execute("SELECT entry FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))
        return SessionHeader.from_dict(json.loads(row[0])), [Action.from_list(json.loads(e)) for (e,) in entries]

    def log_lengths(self, game_ids: list[str]) -> dict[str, int]:
        lengths: dict[str, int] = {}
        for start in range(0, len(game_ids), LOG_LENGTHS_CHUNK):
            chunk = game_ids[start : start + LOG_LENGTHS_CHUNK]
            marks = ", ".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT game_id, length FROM sessions WHERE game_id IN ({marks}) AND {ALIVE}", (*chunk, self.now)
            )
            lengths.update(rows)
        return {game_id: lengths[game_id] for game_id in game_ids if game_id in lengths}

    def update_session(self, header: SessionHeader) -> None:
        self.db.execute(
            "UPDATE sessions SET owner = ?, created_ms = ?, playing = ?, header = ? WHERE game_id = ?",
            (header.owner, header.created_ms, int(header.status == "playing"), dumps(header.to_dict()),
             header.game_id),
        )

    def _headers(self, where: str, args: tuple[Any, ...], limit: int) -> list[SessionHeader]:
        rows = self.db.execute(
            f"SELECT header FROM sessions WHERE {where} AND {ALIVE} ORDER BY created_ms DESC, rowid DESC LIMIT ?",
            (*args, self.now, max(limit, 0)),
        )
        return [SessionHeader.from_dict(json.loads(header)) for (header,) in rows]

    def live_sessions(self, limit: int) -> list[SessionHeader]:
        return self._headers("playing = 1", (), limit)

    def sessions_of(self, player_id: str, limit: int) -> list[SessionHeader]:
        return self._headers("owner = ?", (player_id,), limit)

    def finish_session(self, header: SessionHeader, keep_seconds: int) -> None:
        self.update_session(header)
        self.db.execute("UPDATE sessions SET expires_at = ? WHERE game_id = ?",
                        (self.now + keep_seconds, header.game_id))

    def open_finishes(self, limit: int) -> list[str]:
        rows = self.db.execute(
            f"SELECT game_id FROM sessions WHERE outbox = 1 AND {ALIVE} ORDER BY game_id LIMIT ?",
            (self.now, max(limit, 0)),
        )
        return [game_id for (game_id,) in rows]

    def settle_finish(self, finish: Finish) -> None:
        """All of a game's end in this one transaction; the mark of the
        settled game keeps a second settling from counting again."""
        header, entry, board = finish.header, finish.result, finish.board
        if entry is not None:
            if self._identity_expired(entry.player_id):
                self._forget(entry.player_id)
            if self._mark_settled(entry.player_id, header.game_id):
                self.add_result(entry.player_id, entry.record_key, entry.result)
                if entry.vegas is not None:
                    self.add_vegas(entry.player_id, entry.vegas)
                if entry.day is not None:
                    self.add_day(entry.player_id, entry.day)
        if board is not None:
            self.submit(board.board, board.player_id, board.time_ms, board.moves, board.finished_ms,
                        board.keep_seconds)
        if self._length(header.game_id) is not None:
            self.finish_session(header, finish.keep_seconds)
        self.db.execute("UPDATE sessions SET outbox = 0 WHERE game_id = ?", (header.game_id,))

    def _mark_settled(self, player_id: str, game_id: str) -> bool:
        """Mark ``game_id`` settled for the player; False if it was."""
        self.db.execute("DELETE FROM settled WHERE player_id = ? AND at <= ?",
                        (player_id, self.now - SETTLED_MARK_SECONDS))
        marked = self.db.execute("INSERT OR IGNORE INTO settled VALUES (?, ?, ?)", (player_id, game_id, self.now))
        return marked.rowcount == 1

    # ------------------------------------------------------------ records

    def add_result(self, player_id: str, record_key: str, result: GameResult) -> None:
        self._renew(player_id)
        row = self._one("SELECT record FROM records WHERE player_id = ? AND record_key = ?", player_id, record_key)
        record = Record() if row is None else Record(**json.loads(row[0]))
        self.db.execute("INSERT OR REPLACE INTO records VALUES (?, ?, ?)",
                        (player_id, record_key, dumps(dataclasses.asdict(with_result(record, result)))))

    def records(self, player_id: str) -> dict[str, Record]:
        if self._identity_expired(player_id):
            return {}
        rows = self.db.execute("SELECT record_key, record FROM records WHERE player_id = ? ORDER BY record_key",
                               (player_id,))
        return {key: Record(**json.loads(record)) for key, record in rows}

    def add_day(self, player_id: str, day: DayResult) -> bool:
        self._renew(player_id)
        added = self.db.execute("INSERT OR IGNORE INTO days VALUES (?, ?, ?)", (player_id, day.key, dumps(day.to_dict())))
        return added.rowcount == 1

    def days(self, player_id: str) -> list[DayResult]:
        if self._identity_expired(player_id):
            return []
        rows = self.db.execute("SELECT result FROM days WHERE player_id = ? ORDER BY key", (player_id,))
        return [DayResult.from_dict(json.loads(result)) for (result,) in rows]

    def days_of(self, *player_ids: str) -> dict[str, list[DayResult]]:
        return {player_id: self.days(player_id) for player_id in player_ids}

    def add_vegas(self, player_id: str, amount: int) -> int:
        self._renew(player_id)
        self.db.execute("INSERT INTO vegas VALUES (?, ?) ON CONFLICT (player_id) DO UPDATE SET total = total + ?",
                        (player_id, amount, amount))
        return self.vegas(player_id)

    def vegas(self, player_id: str) -> int:
        if self._identity_expired(player_id):
            return 0
        row = self._one("SELECT total FROM vegas WHERE player_id = ?", player_id)
        return 0 if row is None else int(row[0])

    # ------------------------------------------------------------ leaderboards

    def _board_alive(self, board: str) -> bool:
        return self._one("SELECT 1 FROM boards WHERE board = ? AND expires_at > ?", board, self.now) is not None

    def submit(self, board: str, player_id: str, time_ms: int, moves: int, finished_ms: int,
               keep_seconds: int) -> None:
        if not self._board_alive(board):
            self.db.execute("DELETE FROM board_entries WHERE board = ?", (board,))
        self.db.execute(
            "INSERT INTO board_entries VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (board, player_id) DO UPDATE SET "
            "score = excluded.score, time_ms = excluded.time_ms, moves = excluded.moves, "
            "finished_ms = excluded.finished_ms WHERE excluded.score < board_entries.score",
            (board, player_id, board_score(time_ms, moves, finished_ms), time_ms, moves, finished_ms),
        )
        self.db.execute("INSERT OR REPLACE INTO boards VALUES (?, ?)", (board, self.now + keep_seconds))

    def leaderboard(self, board: str, offset: int, count: int) -> list[LeaderEntry]:
        if count <= 0 or not self._board_alive(board):
            return []
        rows = self.db.execute(
            "SELECT e.player_id, coalesce(p.display_name, e.player_id), e.time_ms, e.moves, e.finished_ms "
            "FROM board_entries e LEFT JOIN players p ON p.player_id = e.player_id "
            "WHERE e.board = ? ORDER BY e.score, e.player_id LIMIT ? OFFSET ?",
            (board, count, max(offset, 0)),
        )
        return [LeaderEntry(offset + n + 1, *row) for n, row in enumerate(rows)]

    def board_size(self, board: str) -> int:
        if not self._board_alive(board):
            return 0
        return int(self._one("SELECT count(*) FROM board_entries WHERE board = ?", board)[0])

    def rank(self, board: str, player_id: str) -> LeaderEntry | None:
        if not self._board_alive(board):
            return None
        row = self._one("SELECT score FROM board_entries WHERE board = ? AND player_id = ?", board, player_id)
        if row is None:
            return None
        ahead = self._one(
            "SELECT count(*) FROM board_entries WHERE board = ? AND (score < ? OR (score = ? AND player_id < ?))",
            board, row[0], row[0], player_id,
        )[0]
        return self.leaderboard(board, ahead, 1)[0]


def with_result(record: Record, result: GameResult) -> Record:
    """``record`` with one more finished game folded in: sums, the game's
    own counters, and bests (moves and time of wins, the highest score)."""
    counters = dict(record.counters)
    for name, value in result.counters.items():
        counters[name] = counters.get(name, 0) + value
    best_moves, best_time_ms = record.best_moves, record.best_time_ms
    if result.won:
        best_moves = result.moves if best_moves is None else min(best_moves, result.moves)
        best_time_ms = result.time_ms if best_time_ms is None else min(best_time_ms, result.time_ms)
    extra = dict(record.extra)
    if result.score is not None:
        extra["best_score"] = max(extra.get("best_score", result.score), result.score)
    return dataclasses.replace(
        record, games=record.games + 1, wins=record.wins + int(result.won), moves=record.moves + result.moves,
        time_ms=record.time_ms + result.time_ms, hints=record.hints + result.hints,
        undos=record.undos + result.undos, counters=counters, best_moves=best_moves, best_time_ms=best_time_ms,
        extra=extra,
    )
