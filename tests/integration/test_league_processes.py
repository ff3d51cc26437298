"""A league on two ``arena serve`` processes sharing one Redis (and a
Redis Cluster, where a league, its members and their mirrors are in
different slots): ann creates it on the first, bob joins by its code on
the second; ann wins the daily on the first (the day's winning line, read
from the store, standing in for a solve); the league's board and this
week's standings bob then reads on his process, which never held her
game, show her win, placed and scored, read from the store.
"""

from __future__ import annotations

from datetime import date

import pytest
from tests.integration.arena_processes import ClientOpener, ServerStarter
from tests.integration.test_fair_rank_processes import PROOF_SECONDS
from tests.integration.test_friends_board_processes import KLONDIKE, win_the_daily
from tests.integration.test_friends_processes import ask, shared_redis_url, signed

from protocol import leagues as pl
from protocol import to_server as ts
from server.model.league_weeks import PLACE_POINTS, week_of

pytestmark = pytest.mark.redis

__all__ = ["shared_redis_url"]


async def test_a_win_on_one_process_is_on_the_league_board_and_standings_on_the_other(
    shared_redis_url: str, arena_processes: ServerStarter, clients: ClientOpener
) -> None:
    a, b = await arena_processes(shared_redis_url), await arena_processes(shared_redis_url)
    ann, bob = await signed(clients, a, "ann"), await signed(clients, b, "bob")
    created = await ask(ann, pl.CreateLeague, name="Lunch", variants=[KLONDIKE])
    assert created.type == "league", created
    league_id = created.league.league_id
    joined = await ask(bob, pl.JoinLeague, code=created.league.code)
    assert joined.type == "league" and [m.player.name for m in joined.league.members] == ["ann", "bob"], joined
    started = await ann.request(ts.NewGame, PROOF_SECONDS, deal="daily", **KLONDIKE)
    assert started.type == "game_started" and started.ranked, started
    playing = await ask(bob, pl.LeagueBoard, league_id=league_id)
    assert {row.player.name: row.state for row in playing.rows} == {"ann": "playing", "bob": "not_started"}, playing
    line, won = await win_the_daily(ann, started.game_id, shared_redis_url)
    await ann.wait_for(lambda m: m.type == "game_over")
    board = await ask(bob, pl.LeagueBoard, league_id=league_id)
    row = {row.player.name: row for row in board.rows}["ann"]
    assert (row.state, row.result, row.place, row.actions) == ("finished", "won", 1, len(line)), row
    assert row.time_ms == won.clock.elapsed_ms
    week = week_of(date.fromisoformat(board.date))
    standings = await ask(bob, pl.LeagueStandings, league_id=league_id, week=week)
    assert [(r.player.name, r.points, r.wins) for r in standings.rows] == [("ann", PLACE_POINTS[0], 1), ("bob", 0, 0)]
    again = await ask(ann, pl.LeagueStandings, league_id=league_id, week=week)
    assert again.rows == standings.rows, "both processes derive the same standings"
