"""A server on the SQLite store loses nothing on restart: the player and
its token, its record, its finished game's replay and its live game are
all there when a new server opens the same file, even after ``kill -9``
the moment a game's end was acknowledged.  And a database that
takes no writes is ``storage_unavailable`` and ``/healthz`` 503, with
the games still shown, until it takes writes again."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WireClient, http_exchange
from tests.storage_backends import SERVE_ENVIRONMENT, on_connection, serve_on_sqlite

from protocol import ErrorCode
from protocol import to_server as ts
from server.storage import SqliteStore
from server.transport.app import ArenaServer

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 120.0
"""Bounds a hang only: a server process's start on a loaded machine."""


async def test_a_server_restarted_on_the_same_database_finds_the_player_record_and_games(tmp_path: Path) -> None:
    settings = make_settings(redis_url=f"sqlite://{tmp_path / 'arena.db'}")
    async with ArenaServer(settings) as first:
        player = await WireClient.open(first.url)
        welcome = await player.hello(name="ann")
        over, snapshot = await player.new_game(deal=7, options={"draw": 1})
        assert snapshot.legal
        assert (await player.request(ts.Move, game_id=over.game_id, move=snapshot.legal[0])).type == "diff"
        assert (await player.request(ts.Resign, game_id=over.game_id)).type == "diff"
        live, snapshot = await player.new_game(deal=8, options={"draw": 1})
        assert snapshot.legal
        assert (await player.request(ts.Move, game_id=live.game_id, move=snapshot.legal[0])).type == "diff"
        await player.close()

    async with ArenaServer(settings) as second:
        player = await WireClient.open(second.url)
        again = await player.hello(token=welcome.token)
        assert (again.player_id, again.name) == (welcome.player_id, "ann"), "the token still names the player"
        assert [game.game_id for game in again.games] == [live.game_id], "the live game is still live"
        position = await player.wait_for(lambda m: m.type == "snapshot" and m.game_id == live.game_id)
        assert position.seq == 1, "with the move played before the restart"
        records = await player.request(ts.Records)
        assert records.type == "records" and [(r.games, r.wins) for r in records.records] == [(1, 0)]
        replay = await player.request(ts.Replay, game_id=over.game_id)
        assert replay.type == "replay" and replay.last_seq == 2, "the finished game replays, move and resignation"
        await player.close()


async def test_a_game_ended_the_moment_before_kill_9_is_in_its_owners_record_after_the_restart(tmp_path: Path) -> None:
    database = tmp_path / "arena.db"
    command = serve_on_sqlite(database, tmp_path / "data")
    process = await asyncio.create_subprocess_exec(
        *command, cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, **SERVE_ENVIRONMENT},
    )
    assert process.stdout is not None
    listening = (await asyncio.wait_for(process.stdout.readline(), START_SECONDS)).decode()
    player = await WireClient.open(listening.removeprefix("arena: listening on ").strip())
    try:
        welcome = await player.hello(name="ann")
        started, snapshot = await player.new_game(deal=7, options={"draw": 1})
        assert snapshot.legal
        assert (await player.request(ts.Move, game_id=started.game_id, move=snapshot.legal[0])).type == "diff"
        assert (await player.request(ts.Resign, game_id=started.game_id)).type == "diff"
    finally:
        process.kill()
        await process.wait()
        await player.close()

    async with ArenaServer(make_settings(redis_url=f"sqlite://{database}")) as restarted:
        player = await WireClient.open(restarted.url)
        await player.hello(token=welcome.token)
        records = await player.request(ts.Records)
        assert records.type == "records" and [(r.games, r.wins) for r in records.records] == [(1, 0)]
        await player.close()

async def test_a_database_that_takes_no_writes_is_storage_unavailable_and_healthz_503_until_it_does(
    tmp_path: Path,
) -> None:
    store = SqliteStore(tmp_path / "arena.db")
    try:
        async with ArenaServer(make_settings(), store=store) as server:
            player = await WireClient.open(server.url)
            await player.hello()
            started, _ = await player.new_game(deal=7, options={"draw": 3})
            assert (await player.request(ts.Move, game_id=started.game_id, move="draw")).type == "diff"

            await on_connection(store, "PRAGMA query_only = 1")
            refused: list[Any] = [await player.request(ts.Move, game_id=started.game_id, move="draw") for _ in range(3)]
            refused.append(await player.request(ts.NewGame, game="klondike", deal=3))
            assert {(reply.type, reply.code) for reply in refused} == {("error", ErrorCode.STORAGE_UNAVAILABLE)}
            shown = await player.request(ts.Resync, game_id=started.game_id)
            assert shown.type == "snapshot" and shown.seq == 1, "the game is still shown, as stored"
            status, _, body = await http_exchange(server.port, "GET /healthz HTTP/1.1")
            assert (status, body) == (503, b"storage cannot write: READONLY\n")

            await on_connection(store, "PRAGMA query_only = 0")
            moved = await player.request(ts.Move, game_id=started.game_id, move="draw")
            assert moved.type == "diff" and moved.seq == 2, "nothing refused was written"
            status, _, body = await http_exchange(server.port, "GET /healthz HTTP/1.1")
            assert (status, body) == (200, b"ok\n")
            await player.close()
    finally:
        await store.close()
