"""A whole race through the protocol, on two server processes sharing a
real Redis: three racers on separate connections, two spectators (one of
them following a board's progress: the deal is secret), a racer disconnecting and coming
back through the other process, a win, a resignation, then the results,
the daily leaderboard, the records, the race history and a rematch.

The race is on the daily deal, which the test fixes to WordLink deal 1's
layout
before anyone asks for it (``pin_daily_deal``: the first value stored
wins), because the server tests carry a certificate for that deal: a
winning line of 128 moves that the racers play.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

from tests.races.arena_races import (
    DEAL_1_DRAW_1_WIN,
    KLONDIKE_DRAW_1,
    WireClient,
    pin_daily_deal,
    play_line,
    player,
    progress,
    race_event,
    racer_games,
    redis_arenas,
)

from protocol import to_client as tc
from protocol import to_server as ts
from server.transport.app import ArenaServer

__all__ = ["redis_arenas"]

OPENING = 10


async def _board(client: WireClient, game_id: str) -> tc.Snapshot:
    return await client.wait_for(lambda m: m.type == "snapshot" and m.game_id == game_id)


async def test_a_full_race_between_three_friends_on_two_processes(
    redis_arenas: tuple[ArenaServer, ArenaServer],
) -> None:
    a, b = redis_arenas
    today = datetime.now(timezone.utc).date()
    await pin_daily_deal(a.store, today)

    ann = await player(a.url, "ann")
    bob = await player(b.url, "bob", "arena.v1.json")
    cat = await player(a.url, "cat")

    # cat plays the daily deal alone first: that was her ranked attempt.
    solo, _ = await cat.new_game(deal="daily", options={"draw": 1})
    assert solo.ranked and not solo.practice
    await cat.request(ts.Resign, game_id=solo.game_id)

    created = await ann.request(ts.CreateRace, game="klondike", options={"draw": 1}, deal="daily")
    assert created.type == "race" and created.event == "created" and created.race.phase == "lobby"
    race_id, code = created.race.race_id, created.race.code
    assert code is not None and len(code) == 8
    joined = await bob.request(ts.JoinRace, code=f"{code[:4]}-{code[4:]}".lower())
    assert joined.type == "race" and joined.event == "joined" and joined.race.code == code
    await cat.request(ts.JoinRace, code=code)

    ted = await WireClient.open(a.url)
    followed = await ted.request(ts.WatchRace, race_id=race_id)
    assert followed.type == "race" and followed.race.code is None and [r.name for r in followed.race.racers] == ["ann", "bob", "cat"]
    sue = await player(b.url, "sue")
    await sue.request(ts.WatchRace, race_id=race_id)

    started = await ann.request(ts.StartRace, race_id=race_id)
    assert started.type == "race" and started.event == "started" and started.race.deal is None
    assert started.race.starts_at is not None and 0 < started.race.starts_at - started.server_time <= 1000
    assert {r.state for r in started.race.racers} == {"waiting"}
    heard = await race_event(bob, "started", race_id)
    assert heard.race.starts_at == started.race.starts_at
    games = racer_games(started.race)
    ranked = {r.name: (r.ranked, r.apart) for r in started.race.racers}
    assert ranked == {"ann": (True, None), "bob": (True, None), "cat": (False, "deal_seen")}

    boards = {client.player_id: await _board(client, games[client.player_id]) for client in (ann, bob, cat)}
    assert all(board.seq == 0 and board.view == boards[ann.player_id].view for board in boards.values())
    assert boards[bob.player_id].clock.started_ms == started.race.starts_at

    # Fairness: the deal is the day's secret one, so nobody but its player
    # sees a racer's board: a rival is refused (race_progress tells how the
    # others do); a spectator and a rival's second, anonymous connection
    # follow counts, never cards.
    refused = await bob.request(ts.Watch, game_id=games[ann.player_id])
    assert refused.type == "error" and refused.code == "forbidden"
    followed_board = await sue.request(ts.Watch, game_id=games[ann.player_id])
    assert followed_board.type == "progress" and followed_board.seq == 0 and followed_board.cards_home == 0
    anonymous = await WireClient.open(a.url)
    assert (await anonymous.request(ts.Watch, game_id=games[ann.player_id])).type == "progress"

    await play_line(ann, games[ann.player_id], DEAL_1_DRAW_1_WIN[:OPENING])
    seen = await progress(bob, ann.player_id, moves=OPENING)
    assert seen.racer.state == "playing" and seen.racer.game_id == games[ann.player_id]
    assert (await progress(ted, ann.player_id, moves=OPENING)).racer.foundation == seen.racer.foundation
    for seq in range(1, OPENING + 1):
        told = await sue.wait_for(lambda m, n=seq: m.type == "progress" and m.game_id == games[ann.player_id] and m.seq == n)
        assert told.actions == seq and told.status == "playing"

    # bob resigns; his game_over keeps the shared deal secret while others play.
    await bob.request(ts.Resign, game_id=games[bob.player_id])
    over = await bob.wait_for(lambda m: m.type == "game_over" and m.game_id == games[bob.player_id])
    assert over.result == "resigned" and over.deal is None
    assert (await progress(ted, bob.player_id, state="resigned")).racer.state == "resigned"

    # cat drops; everyone sees it; she comes back through the other process.
    await play_line(cat, games[cat.player_id], DEAL_1_DRAW_1_WIN[:3])
    await progress(ted, cat.player_id, state="playing", moves=3)
    await cat.close()
    assert (await progress(ted, cat.player_id, state="disconnected")).racer.moves == 3
    await progress(ann, cat.player_id, state="disconnected")
    back = await WireClient.open(b.url)
    welcome = await back.hello(token=cat.token)
    assert [g.game_id for g in welcome.games] == [games[cat.player_id]]
    resumed = await _board(back, games[cat.player_id])
    assert resumed.seq == 3 and resumed.clock.started_ms == started.race.starts_at
    assert (await race_event(back, "snapshot", race_id)).race.code == code
    await progress(ted, cat.player_id, state="playing", moves=3)

    # ann wins first, then cat, one move after her: both processes then
    # settle the race at once, and the one that loses the append must still
    # tell its followers "finished" (it takes the finish in by reloading).
    await play_line(back, games[cat.player_id], DEAL_1_DRAW_1_WIN[3:-1])
    await play_line(ann, games[ann.player_id], DEAL_1_DRAW_1_WIN[OPENING:])
    won = await ann.wait_for(lambda m: m.type == "game_over" and m.game_id == games[ann.player_id])
    assert won.result == "won" and won.deal is None
    await play_line(back, games[cat.player_id], DEAL_1_DRAW_1_WIN[-1:])

    finished = await race_event(ted, "finished", race_id)
    race = finished.race
    assert race.phase == "finished" and race.deal is None and race.finished_ms is not None and race.results is not None
    assert race.ranked and race.seed is None, "a daily race's deal is revealed with the day's"
    daily = await ann.request(ts.Daily, game="klondike")
    assert daily.type == "daily_info" and race.commitment == daily.deals[0].commitment
    # cat had seen the deal in her own daily attempt: she won, but apart,
    # below everyone who raced it fresh.
    table = [(row.place, row.name, row.result, row.moves, row.apart) for row in race.results]
    assert table == [
        (1, "ann", "won", len(DEAL_1_DRAW_1_WIN), None),
        (None, "bob", "resigned", 0, None),
        (None, "cat", "won", len(DEAL_1_DRAW_1_WIN), "deal_seen"),
    ]
    assert race.results[0].time_ms < race.results[2].time_ms
    assert {r.name: r.state for r in race.racers} == {"ann": "won", "bob": "resigned", "cat": "won"}
    for client in (ann, bob, back, sue):
        assert (await race_event(client, "finished", race_id)).race.results == race.results

    # The spectator heard the win, and never a card: the day's deal is
    # still secret after the race.
    end = len(DEAL_1_DRAW_1_WIN)
    await sue.wait_for(lambda m: m.type == "progress" and m.game_id == games[ann.player_id] and m.status == "won")
    for watcher, own_game in ((bob, games[bob.player_id]), (sue, None), (anonymous, None)):
        others = set(games.values()) - {own_game}
        assert not [m for m in watcher.received if m.type in ("snapshot", "diff") and m.game_id in others]

    # Only ranked attempts reach the daily leaderboard; records as usual.
    board = await ted.request(ts.Leaderboard, game="klondike", options={"draw": 1})
    assert board.type == "leaderboard" and board.board == f"klondike/{KLONDIKE_DRAW_1}/{today.isoformat()}"
    assert [(e.rank, e.name, e.actions, e.time_ms) for e in board.entries] == [(1, "ann", end, race.results[0].time_ms)]
    mine = await back.request(ts.Leaderboard, game="klondike", options={"draw": 1}, around_me=True)
    assert mine.type == "leaderboard" and mine.me is None
    records = {client.player_id: (await a.store.records(client.player_id))[f"klondike/{KLONDIKE_DRAW_1}"] for client in (ann, bob, cat)}
    assert (records[ann.player_id].games, records[ann.player_id].wins) == (1, 1)
    assert records[ann.player_id].best_moves == end
    assert (records[bob.player_id].games, records[bob.player_id].wins) == (1, 0)
    assert (records[cat.player_id].games, records[cat.player_id].wins) == (1, 0), "cat's race game was practice"

    history = await bob.request(ts.ListRaces)
    assert history.type == "races" and [(r.race_id, r.phase) for r in history.races] == [(race_id, "finished")]
    assert history.races[0].results == race.results

    # Rematch: same racers, new code, a new (winnable) deal.
    again = await bob.request(ts.Rematch, race_id=race_id)
    assert again.type == "race" and again.event == "created" and again.race.host.name == "bob"
    assert again.race.code != code and again.race.deal_kind == "winnable" and again.race.phase == "lobby"
    assert [r.name for r in again.race.racers] == ["bob", "ann", "cat"]
    assert (await race_event(ted, "rematch", race_id)).race.rematch == again.race.race_id
    for client in (ann, back):
        assert (await race_event(client, "snapshot", again.race.race_id)).race.code == again.race.code
    same = await ann.request(ts.Rematch, race_id=race_id)
    assert same.type == "race" and same.race.race_id == again.race.race_id

    for client in (ann, bob, back, ted, sue, anonymous):
        await client.close()
    await asyncio.sleep(0)
