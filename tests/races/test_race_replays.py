"""Replays of games whose deal was secret: a race's boards once the race
is over (each racer's board opens as a replay), a daily attempt once its
day is revealed, and neither before, not even for the game's own player."""

from __future__ import annotations

from datetime import timedelta

from tests.races.arena_races import (
    DAY,
    DEAL_1_DRAW_1_WIN,
    MemoryArena,
    memory_arena,
    noon_arena,
    noon_clock,
    pin_daily_deal,
    play_line,
    player,
    race_event,
)
from tests.server.arena_clock import FakeClock
from tests.server.arena_wire import Mirror
from tests.races.test_daily import GRACE_SECONDS, arena_settings
from tests.races.test_race_refusals import _lobby, _started

from protocol import ErrorCode
from protocol import to_server as ts
from server.deals.daily import day_start_ms

__all__ = ["arena_settings", "memory_arena", "noon_arena", "noon_clock"]


async def test_each_racers_board_replays_once_the_race_is_over(memory_arena: MemoryArena) -> None:
    (host, friend), created = await _lobby(memory_arena, "ann", "bob")
    race_id = created.race.race_id
    games = await _started(host, friend, race_id)
    await host.request(ts.Move, game_id=games[host.player_id], move="draw")
    await host.request(ts.Resign, game_id=games[host.player_id])
    for asker in (host, friend):
        secret = await asker.request(ts.Replay, game_id=games[host.player_id])
        assert secret.type == "error" and secret.code == ErrorCode.UNAVAILABLE and secret.reason == "deal_secret"
    await friend.request(ts.Resign, game_id=games[friend.player_id])
    await race_event(host, "finished", race_id)
    for racer in (host, friend):
        replay = await friend.request(ts.Replay, game_id=games[racer.player_id])
        assert replay.type == "replay" and replay.result == "resigned"
        mirror = Mirror(replay.start)
        for diff in replay.diffs:
            mirror.apply(diff)
        final = await friend.request(ts.Watch, game_id=games[racer.player_id])
        assert final.type == "snapshot" and mirror.view == final.view.model_dump()
    assert replay.type == "replay" and [d.action.kind for d in replay.diffs] == ["resign"]


async def test_a_daily_attempt_replays_once_its_day_is_revealed(arena: MemoryArena, clock: FakeClock) -> None:
    await pin_daily_deal(arena.store, DAY)
    client = await player(arena, "curious")
    game_id = (await client.new_game(deal="daily", options={"draw": 1}))[0].game_id
    await play_line(client, game_id, DEAL_1_DRAW_1_WIN[:2])
    await client.request(ts.Resign, game_id=game_id)
    revealed = day_start_ms(DAY + timedelta(days=1)) + GRACE_SECONDS * 1000
    replies = []
    for now in (revealed - 1, revealed):
        clock.ms = now
        replies.append(await client.request(ts.Replay, game_id=game_id))
    secret, replay = replies
    assert secret.type == "error" and secret.reason == "deal_secret"
    assert replay.type == "replay" and [d.action.text for d in replay.diffs] == [*DEAL_1_DRAW_1_WIN[:2], ""]
