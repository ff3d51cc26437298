"""Streaks, stats and the share text of the daily, on an injected clock in
memory: a day counts for the deal's day, a win inside the grace period
after midnight keeps the streak, one after it does not, a missed day
breaks it; the day's histogram places a player among the finishers; a
share text is refused while the attempt runs and holds no card or move.
And two processes on one Redis answer alike."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from typing import Any

import pytest
from tests.races.arena_races import (
    DAY,
    DEAL_1_DRAW_1_WIN,
    KLONDIKE_DRAW_1,
    NOON,
    PUBLIC_BOARD_RULES_OFF,
    noon_arena,
    noon_clock,
    person,
    pin_daily_deal,
    play_paced,
    player,
    redis_arenas,
)
from tests.server.arena_clock import FakeClock
from tests.server.arena_memory import MemoryArena, MemoryClient
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WireClient

from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts
from server.deals.daily import DAY_MS, day_start_ms
from server.games.streaks import CALENDAR_DAYS, HISTOGRAM_EDGES_MS
from server.runtime.settings import Settings
from server.transport.app import ArenaServer

__all__ = ["noon_arena", "noon_clock", "redis_arenas"]

GRACE_MS = 3_600_000
KLONDIKE = {"draw": 1}


@pytest.fixture
def arena_settings() -> Settings:
    return make_settings(**PUBLIC_BOARD_RULES_OFF, daily_grace_seconds=GRACE_MS // 1000)


async def pin_days(arena: MemoryArena, first: date, count: int) -> None:
    for back in range(count):
        await pin_daily_deal(arena.store, first + timedelta(days=back))


async def play_daily(client: MemoryClient, clock: FakeClock, *, finish_at: int | None = None, win: bool = True) -> str:
    """Start today's ranked daily and win it (the last move at ``finish_at``
    if given), or resign it; the game id."""
    started, _ = await client.new_game("klondike", deal="daily", options=KLONDIKE)
    assert started.ranked
    if win:
        await play_paced(client, clock, started.game_id, DEAL_1_DRAW_1_WIN, last_at=finish_at)
    else:
        await client.request(ts.Resign, game_id=started.game_id)
    await client.wait_for(lambda m: m.type == "game_over" and m.game_id == started.game_id)
    return started.game_id


async def stats(client: MemoryClient, **fields: Any) -> tc.StatsReply:
    reply = await client.request(ts.Stats, game="klondike", variant=KLONDIKE_DRAW_1, **fields)
    assert reply.type == "stats_reply", reply
    return reply


async def klondike_stats(client: MemoryClient, **fields: Any) -> tc.VariantStats:
    (variant,) = (await stats(client, **fields)).variants
    return variant


def at(day: date, hours: float) -> int:
    return day_start_ms(day) + round(hours * 3_600_000)


async def test_a_win_inside_the_grace_period_keeps_the_streak_and_a_missed_day_breaks_it(
    arena: MemoryArena, clock: FakeClock
) -> None:
    await pin_days(arena, DAY, 5)
    ada = await person(arena, clock, "ada")
    await play_daily(ada, clock)
    first = await klondike_stats(ada)
    assert (first.played, first.won, first.current_streak, first.longest_streak) == (1, 1, 1, 1)
    assert first.calendar[-1] == "won" and len(first.calendar) == CALENDAR_DAYS
    assert first.calendar_start == (DAY - timedelta(days=CALENDAR_DAYS - 1)).isoformat()

    clock.ms = at(DAY + timedelta(days=1), 23.9)
    before_midnight = await klondike_stats(ada)
    assert before_midnight.current_streak == 1 and before_midnight.calendar[-2:] == ["won", "open"]
    await play_daily(ada, clock, finish_at=at(DAY + timedelta(days=2), 0.5))
    clock.ms = at(DAY + timedelta(days=2), 0.75)
    after_midnight = await klondike_stats(ada)
    assert after_midnight.calendar[-3:] == ["won", "won", "open"], "the win after midnight is the deal's day's"
    assert (after_midnight.current_streak, after_midnight.longest_streak) == (2, 2)
    assert [line.date for line in after_midnight.history] == [
        (DAY + timedelta(days=1)).isoformat(), DAY.isoformat()
    ], "newest first"

    clock.ms = at(DAY + timedelta(days=3), 0.5)
    in_grace = await klondike_stats(ada)
    assert in_grace.current_streak == 2, "yesterday may still be played inside its grace period"
    assert in_grace.calendar[-2:] == ["open", "open"]
    clock.ms = at(DAY + timedelta(days=3), 1.5)
    missed = await klondike_stats(ada)
    assert missed.calendar[-2:] == ["missed", "open"]
    assert (missed.current_streak, missed.longest_streak, missed.played, missed.won) == (0, 2, 2, 2)


async def test_a_win_after_the_grace_period_is_played_not_won(arena: MemoryArena, clock: FakeClock) -> None:
    await pin_days(arena, DAY, 2)
    clock.ms = at(DAY, 23.9)
    ada = await person(arena, clock, "ada")
    await play_daily(ada, clock, finish_at=at(DAY + timedelta(days=1), 1.5))
    after = await klondike_stats(ada)
    assert (after.played, after.won, after.current_streak) == (1, 0, 0)
    assert after.calendar[-2:] == ["played", "open"]
    assert after.best_time_ms is None and after.history[0].won is False


async def test_a_resigned_attempt_breaks_the_streak_at_once(arena: MemoryArena, clock: FakeClock) -> None:
    await pin_days(arena, DAY, 2)
    ada = await person(arena, clock, "ada")
    await play_daily(ada, clock)
    clock.ms += DAY_MS
    assert (await klondike_stats(ada)).current_streak == 1
    await play_daily(ada, clock, win=False)
    after = await klondike_stats(ada)
    assert (after.current_streak, after.longest_streak, after.played, after.won) == (0, 1, 2, 1)


async def test_the_days_histogram_places_each_finisher(arena: MemoryArena, clock: FakeClock) -> None:
    await pin_days(arena, DAY, 1)
    players = [await person(arena, clock, name) for name in ("ada", "bob", "cy")]
    for number, player in enumerate(players):
        clock.ms = NOON + number * 60_000
        await play_daily(player, clock, finish_at=clock.ms + (2 + 4 * number) * 60_000)
    watcher = await person(arena, clock, "dee")
    histograms = [(await klondike_stats(player)).histogram for player in [*players, watcher]]
    assert histograms[0].edges_ms == list(HISTOGRAM_EDGES_MS)
    assert histograms[0].counts == [0, 0, 1, 0, 1, 1, 0, 0, 0], "2, 6 and 10 minutes and a bit"
    assert [(h.finishers, h.place, h.top_percent) for h in histograms] == [
        (3, 1, 34), (3, 2, 67), (3, 3, 100), (3, None, None)
    ]
    assert histograms[1].time_ms is not None and 6 * 60_000 <= histograms[1].time_ms < 7 * 60_000


async def test_a_share_text_is_refused_while_the_attempt_runs_and_tells_nothing_of_the_deal(
    arena: MemoryArena, clock: FakeClock
) -> None:
    await pin_days(arena, DAY, 1)
    ada = await person(arena, clock, "ada")
    refused = await ada.request(ts.Stats, game="klondike", variant=KLONDIKE_DRAW_1, share=True)
    assert refused.type == "error" and refused.reason == "not_played"
    started, _ = await ada.new_game("klondike", deal="daily", options=KLONDIKE)
    await play_paced(ada, clock, started.game_id, DEAL_1_DRAW_1_WIN[:5])
    running = await ada.request(ts.Stats, game="klondike", variant=KLONDIKE_DRAW_1, share=True)
    assert running.type == "error" and running.code == ErrorCode.UNAVAILABLE and running.reason == "attempt_running"
    await play_paced(ada, clock, started.game_id, DEAL_1_DRAW_1_WIN[5:])
    share = (await stats(ada, share=True)).share
    assert share is not None and share.won and share.streak == 1 and share.place == 1 and share.top_percent == 100
    assert share.link == f"/#daily=klondike/{KLONDIKE_DRAW_1}/{DAY.isoformat()}"
    assert share.text.endswith(share.link) and "Won in " in share.text and DAY.isoformat() in share.text
    words = set(re.findall(r"[\w-]+", share.text.replace(share.link, "")))
    assert not words & (set(DEAL_1_DRAW_1_WIN) - {"draw"}), "no move (draw is also the variant's name)"
    assert not [word for word in words if re.fullmatch(r"(10|[2-9AJQK])[SHDC]", word, re.IGNORECASE)], "no card"


async def test_stats_name_a_daily_variant_and_a_share_names_one(arena: MemoryArena, clock: FakeClock) -> None:
    ada = await person(arena, clock, "ada")
    every = await ada.request(ts.Stats)
    assert every.type == "stats_reply" and len(every.variants) > 2
    assert all(v.played == 0 and v.calendar[-1] == "open" for v in every.variants)
    vague = await ada.request(ts.Stats, game="klondike", share=True)
    assert vague.type == "error" and vague.code == ErrorCode.BAD_OPTION
    unknown = await ada.request(ts.Stats, game="klondike", variant="draw=7")
    assert unknown.type == "error" and unknown.code == ErrorCode.BAD_OPTION
    ahead = await ada.request(ts.Stats, date=(DAY + timedelta(days=2)).isoformat())
    assert ahead.type == "error" and ahead.code == ErrorCode.BAD_OPTION
    anonymous = await arena.client()
    refused = await anonymous.request(ts.Stats)
    assert refused.type == "error" and refused.code == ErrorCode.HELLO_REQUIRED


@pytest.mark.redis
async def test_two_processes_on_one_redis_give_the_same_stats(redis_arenas: tuple[ArenaServer, ArenaServer]) -> None:
    """Stats derive from the store alone.  The stats request on the finishing
    connection is handled after its resignation's end is settled (a
    connection's frames are handled in order), so the other process is
    asked only once the day is stored."""
    first, second = redis_arenas
    today = datetime.now(timezone.utc).date()
    await pin_daily_deal(first.store, today)
    ann = await player(first.url, "ann")
    started, _ = await ann.new_game(deal="daily", options=KLONDIKE)
    await ann.request(ts.Resign, game_id=started.game_id)
    here = await ann.request(ts.Stats, game="klondike", variant=KLONDIKE_DRAW_1)
    again = await WireClient.open(second.url)
    await again.hello(token=ann.token)
    there = await again.request(ts.Stats, game="klondike", variant=KLONDIKE_DRAW_1)
    assert here.type == there.type == "stats_reply", (here, there)
    assert here.variants == there.variants and here.variants[0].played == 1
    await ann.close()
    await again.close()
