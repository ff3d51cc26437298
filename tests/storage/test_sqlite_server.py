"""A server on the SQLite store loses nothing on restart: the player and
its token, its record, its finished game's replay and its live game are
all there when a new server opens the same file."""

from __future__ import annotations

from pathlib import Path

from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WireClient

from protocol import to_server as ts
from server.transport.app import ArenaServer


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
