"""Moving a server's data to another store (``arena export``, ``arena
import``): a SQLite server's player moves to Redis with its token, record,
leaderboard entry, live game and finished game's replay; a copy through
the file changes nothing (memory to file to SQLite to file, byte for
byte); and a bad file or a used target is refused with nothing written."""

from __future__ import annotations

import asyncio
import io
import os
import sys
from pathlib import Path

import pytest
from tests.redis_server import RedisServer
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WireClient
from tests.storage_backends import SERVE_ENVIRONMENT, ManualClock

from protocol import to_server as ts
from server.model.records import Action, Finish, GameResult, PlayerRecord, ResultEntry, SessionHeader
from server.runtime.exits import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from server.storage import MemoryStore, SqliteStore, Store
from server.storage.base import HELD_SPACES
from server.storage.devices_base import Device
from server.storage.redis import RedisStore
from server.storage.transfer import export_store, import_store, read_export, record_results
from server.transport.app import ArenaServer

ROOT = Path(__file__).resolve().parents[2]
COMMAND_SECONDS = 120.0
"""Bounds a hang only: an ``arena`` process on a loaded machine."""
BOARD = "klondike/draw-1/2024-05-01"
DAY_MS = 1_714_521_600_000


async def arena(*args: str) -> tuple[int, str]:
    """Run ``arena`` with ``args``: its exit code and standard error."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", *args, cwd=ROOT, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE, env={**os.environ, **SERVE_ENVIRONMENT},
    )
    _, error = await asyncio.wait_for(process.communicate(), COMMAND_SECONDS)
    assert process.returncode is not None
    return process.returncode, error.decode()


def no_progress(done: int, total: int, what: str) -> None:
    """Progress nobody reads."""


async def play_a_move(player: WireClient, deal: int) -> str:
    """A new game of ``deal`` with its first legal move played: its id."""
    started, snapshot = await player.new_game(deal=deal, options={"draw": 1})
    assert snapshot.legal, "a deal with a move to play"
    assert (await player.request(ts.Move, game_id=started.game_id, move=snapshot.legal[0])).type == "diff"
    return started.game_id


@pytest.mark.redis
async def test_a_sqlite_server_moves_to_redis_with_its_players_records_boards_and_games(
    tmp_path: Path, own_redis_server: RedisServer
) -> None:
    database, export = tmp_path / "arena.db", tmp_path / "arena.ndjson"
    async with ArenaServer(make_settings(redis_url=f"sqlite://{database}")) as sqlite_server:
        player = await WireClient.open(sqlite_server.url)
        welcome = await player.hello(name="ann")
        over = await play_a_move(player, deal=7)
        assert (await player.request(ts.Resign, game_id=over)).type == "diff"
        live = await play_a_move(player, deal=8)
        await player.close()
        held, error = await arena("export", str(export), "--store", f"sqlite://{database}")
        assert held == EXIT_FAILURE and "stop the server first" in error and not export.exists()
    board_store = SqliteStore(database)
    await board_store.submit(BOARD, welcome.player_id, 61_000, 90, DAY_MS, keep_seconds=86_400)
    await board_store.close()

    assert (await arena("export", str(export), "--store", f"sqlite://{database}"))[0] == EXIT_OK
    assert oct(export.stat().st_mode & 0o777) == oct(0o600), "the export holds every token's hash"
    assert (await arena("import", str(export), "--store", own_redis_server.url))[0] == EXIT_OK
    refused, error = await arena("import", str(export), "--store", own_redis_server.url)
    assert refused == EXIT_USAGE and "not empty" in error

    async with ArenaServer(make_settings(redis_url=own_redis_server.url)) as redis_server:
        player = await WireClient.open(redis_server.url)
        again = await player.hello(token=welcome.token)
        assert (again.player_id, again.name) == (welcome.player_id, "ann"), "the same token logs the same player in"
        assert [game.game_id for game in again.games] == [live], "the live game is still live"
        position = await player.wait_for(lambda m: m.type == "snapshot" and m.game_id == live)
        assert position.seq == 1
        records = await player.request(ts.Records)
        assert records.type == "records" and [(r.games, r.wins) for r in records.records] == [(1, 0)]
        replay = await player.request(ts.Replay, game_id=over)
        assert replay.type == "replay" and replay.last_seq == 2, "the finished game replays"
        await player.close()
    redis_store = RedisStore(own_redis_server.url)
    try:
        entries = await redis_store.leaderboard(BOARD)
        assert [(e.player_id, e.display_name, e.time_ms, e.moves) for e in entries] == [
            (welcome.player_id, "ann", 61_000, 90)
        ]
    finally:
        await redis_store.close()


async def fill(store: Store) -> None:
    """One of everything a store keeps, lifetimes included."""
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 1_000, address="192.0.2.1"))
    await store.create_player(PlayerRecord("p2", "Robo", "hash-2", 2_000, bot=True))
    await store.add_device("p1", Device("d_phone", "phone", 1_500, 1_800, "hash-3"), limit=10)
    await store.rename_device("p1", "d_hash-1", "laptop")
    await store.device_by_token_hash("hash-1", 1_700)
    await store.rotate_device_token("p2", "d_hash-2", "hash-4")
    for won, moves, time_ms, score in ((True, 90, 61_000, 300), (False, 12, 4_000, None), (True, 80, 70_000, 250)):
        result = GameResult(won, moves, time_ms, hints=1, undos=2, score=score, counters={"repairs": 1})
        await store.add_result("p1", "broken-deck/relaxed", result)
    await store.add_vegas("p1", -52)
    await store.submit(BOARD, "p1", 61_000, 90, DAY_MS, keep_seconds=86_400)
    await store.submit(BOARD, "p2", 50_000, 95, DAY_MS, keep_seconds=86_400)
    await store.setting("secret", "s3cret")
    await store.setting("setting:ranked/p1", "g-done", keep_seconds=3_600)
    await store.stock_push("race-deals", "a")
    await store.stock_push("race-deals", "b")
    await store.put_document("race", "r1", {"host": "p1"}, keep_seconds=7_200)
    await store.put_document("daily", "d1", {"commitment": "c"})
    await store.index_document("race", "of:p1", "r1", 5.0)
    await store.create_session(SessionHeader("g-live", "klondike", 8, {"draw": 1}, "p1", 3_000))
    await store.append("g-live", 0, Action("move", "a", 4_000))
    done = SessionHeader("g-done", "klondike", 7, {"draw": 1}, "p1", 1_000)
    await store.create_session(done)
    await store.append("g-done", 0, Action("move", "b", 2_000))
    await store.append("g-done", 1, Action("resign", "", 2_500), ends=True)
    finished = SessionHeader("g-done", "klondike", 7, {"draw": 1}, "p1", 1_000, status="lost", finished_ms=2_500)
    await store.settle_finish(Finish(finished, 600, ResultEntry("p1", "klondike/draw-1", GameResult(False, 1, 1_500))))
    await store.create_session(SessionHeader("g-open", "klondike", 9, {"draw": 1}, "p2", 4_000))
    await store.append("g-open", 0, Action("resign", "", 5_000), ends=True)
    await store.put_presence("process-a", "p1", None, 5_500)
    await store.hide_presence("p2", 4_500)


async def exported(store: Store, now_ms: int) -> str:
    out = io.StringIO()
    await export_store(store, out, now_ms, no_progress)
    return out.getvalue()


async def test_a_copy_through_the_file_changes_nothing(tmp_path: Path) -> None:
    clock = ManualClock()
    memory = MemoryStore(clock.ms)
    await fill(memory)
    first = await exported(memory, clock.ms())
    sqlite = SqliteStore(tmp_path / "copy.db", clock=clock.ms)
    try:
        await import_store(sqlite, read_export(first.splitlines(keepends=True)), clock.ms(), no_progress)
        assert await exported(sqlite, clock.ms()) == first
        assert await sqlite.open_finishes() == ["g-open"], "an end still to settle stays so"
        assert (await sqlite.records("p1")) == (await memory.records("p1"))
        assert (await sqlite.devices("p1")) == (await memory.devices("p1"))
        assert await sqlite.player_by_token_hash("hash-2") is None, "a rotated-away token stays refused"
        assert (await sqlite.player_by_token_hash("hash-4")) == (await memory.get_player("p2"))
        assert await sqlite.presence(["p1", "p2"], 6_000) == await memory.presence(["p1", "p2"], 6_000)
    finally:
        await sqlite.close()
    header = next(read_export(first.splitlines()))
    counts = {"player": 2, "setting": 2, "stock": 1, "document": 2, "index": 1, "board": 1, "session": 3}
    assert header["counts"] == counts and first.count("\n") == 1 + sum(counts.values()), "a line per item"


async def test_a_record_replays_as_games_that_sum_to_it() -> None:
    store = MemoryStore()
    for won, moves, time_ms, score in ((False, 30, 9_000, None), (True, 95, 80_000, 10), (True, 90, 99_000, None)):
        await store.add_result("p1", "k", GameResult(won, moves, time_ms, hints=3, score=score, counters={"c": 2}))
    record = (await store.records("p1"))["k"]
    copy = MemoryStore()
    for result in record_results(record):
        await copy.add_result("p1", "k", result)
    assert (await copy.records("p1"))["k"] == record


async def test_a_cut_file_or_a_used_target_is_refused_with_nothing_written(tmp_path: Path) -> None:
    source, database = tmp_path / "source.db", tmp_path / "target.db"
    filled = SqliteStore(source)
    await fill(filled)
    await filled.close()
    export, cut = tmp_path / "all.ndjson", tmp_path / "cut.ndjson"
    assert (await arena("export", str(export), "--store", f"sqlite://{source}"))[0] == EXIT_OK
    cut.write_text("".join(export.read_text().splitlines(keepends=True)[:-1]))
    refused, error = await arena("import", str(cut), "--store", f"sqlite://{database}")
    assert refused == EXIT_USAGE and "incomplete" in error
    target = SqliteStore(database)
    try:
        assert [await target.held(space) for space in HELD_SPACES] == [[] for _ in HELD_SPACES]
    finally:
        await target.close()
    refused, error = await arena("import", str(export), "--store", f"sqlite://{source}")
    assert refused == EXIT_USAGE and "not empty" in error
