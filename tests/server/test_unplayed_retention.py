"""How long finished games stay for replays: a game that ended before its
first action (abandoned for the next one, resigned at once) goes after
``unplayed_retention_seconds``, so starting games in a loop leaves little
behind; a played game, a ranked daily attempt and a race's game stay
``finished_retention_seconds``."""

from __future__ import annotations

from tests.server.arena_clock import FakeClock
from tests.server.arena_memory import MemoryArena
from tests.server.arena_servers import make_settings
from tests.server.test_friends import player
from tests.server.test_friends_board import KLONDIKE

from protocol import ErrorCode
from protocol import to_server as ts
from server.storage.memory import MemoryStore

UNPLAYED_S, FINISHED_S = 60, 3600


async def test_a_game_ended_before_its_first_action_goes_sooner_than_a_played_or_ranked_one() -> None:
    clock = FakeClock()
    store = MemoryStore(clock)
    settings = make_settings(max_live_games=1, unplayed_retention_seconds=UNPLAYED_S, finished_retention_seconds=FINISHED_S)
    async with MemoryArena(settings, store, clock=clock) as arena:
        ann = await player(arena, "ann")
        abandoned, _ = await ann.new_game(deal=1, **KLONDIKE)
        played, _ = await ann.new_game(deal=2, **KLONDIKE)
        await ann.request(ts.Move, game_id=played.game_id, move="draw")
        await ann.request(ts.Resign, game_id=played.game_id)
        resigned_at_once, _ = await ann.new_game(deal=3, **KLONDIKE)
        await ann.request(ts.Resign, game_id=resigned_at_once.game_id)
        ranked, _ = await ann.new_game(deal="daily", **KLONDIKE)
        assert ranked.ranked
        await ann.request(ts.Resign, game_id=ranked.game_id)
        games = [abandoned.game_id, played.game_id, resigned_at_once.game_id, ranked.game_id]
        for game_id in games:
            loaded = await store.load_session(game_id)
            assert loaded is not None and loaded[0].status in ("abandoned", "resigned"), game_id

        clock.ms += UNPLAYED_S * 1000
        kept = [game_id for game_id in games if await store.load_session(game_id) is not None]
        assert kept == [played.game_id, ranked.game_id], "the two games ended before their first action went"
        records = await ann.request(ts.Records)
        assert records.type == "records" and sum(record.games for record in records.records) == 4, "all four still count"

        await ann.close()
        bob = await player(arena, "bob")
        gone = await bob.request(ts.Replay, game_id=abandoned.game_id)
        assert gone.type == "error" and gone.code == ErrorCode.GAME_NOT_FOUND, gone
        kept_replay = await bob.request(ts.Replay, game_id=played.game_id)
        assert kept_replay.type == "replay" and kept_replay.last_seq == 2, kept_replay

        clock.ms += (FINISHED_S - UNPLAYED_S) * 1000
        assert [game_id for game_id in games if await store.load_session(game_id) is not None] == []
