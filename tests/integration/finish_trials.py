"""Kill ``arena serve`` with ``kill -9`` right after it acknowledged the
ends of games, start it again, and count the ends that never reached the
players' records (or, for a ranked daily win, its leaderboard).

A game's end is one step in the store (the append of its last action
opens the game's outbox) and every start settles the open outboxes before
it listens, so after the restart every game whose log ends must be in its
owner's record, the acknowledged ones first of all.  Used by
``test_finish_atomic.py`` (a few trials) and ``bench/finish_crash.py``
(100 trials).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, datetime, timezone

from tests.integration.arena_processes import ServerProcess, WireClient
from tests.integration.stored_state import reading

import engine
from protocol import leagues as pl
from protocol import to_server as ts
from server.model.fair_play import board_name
from server.model.league_weeks import week_of
from server.model.session import RESIGNED
from server.deals.variants import record_key, variant_label

DAILY_OPTIONS: dict[str, ts.OptionValue] = {"draw": 3}
PROOF_SECONDS = 600.0
"""Bounds a hang only, while the first daily game waits for the server to
prove its deal: 120 s ran out at load 12 (``bench/stress_suite.py``)."""


@dataclass
class TrialCount:
    """Finished games over trials: ``acknowledged`` ends the player heard,
    ``ended`` ends in the log (acknowledged or in flight at the kill), and
    the ends of each that the records (or the board) do not show."""

    acknowledged: int = 0
    ended: int = 0
    lost_acknowledged: int = 0
    lost: int = 0
    lost_games: list[str] = field(default_factory=list)

    def add(self, other: TrialCount) -> None:
        self.acknowledged += other.acknowledged
        self.ended += other.ended
        self.lost_acknowledged += other.lost_acknowledged
        self.lost += other.lost
        self.lost_games += other.lost_games


async def _player(server: ServerProcess) -> WireClient:
    client = await WireClient.open(server.url)
    await client.hello()
    return client


async def resign_trial(server: ServerProcess, store_url: str, players: int = 3) -> TrialCount:
    """Each player starts a game and makes a move; all resign at once, and
    the server is killed the moment the first resignation is acknowledged."""
    clients = [await _player(server) for _ in range(players)]
    games = []
    try:
        for client in clients:
            started, snapshot = await client.new_game(deal=7, options={"draw": 3})
            assert snapshot.legal, "the owner's snapshot lists the legal moves"
            await client.request(ts.Move, game_id=started.game_id, move=snapshot.legal[0])
            games.append(started.game_id)
        ids = {}
        for client, game_id in zip(clients, games):
            ids[game_id] = client.next_id()
            await client.send(ts.Resign(id=ids[game_id], game_id=game_id))
        await clients[0].wait_for(lambda m: m.id == ids[games[0]])
        server.kill()
        for client in clients:
            await client.closed()
    finally:
        for client in clients:
            await client.close()
    acknowledged = {
        game_id for client, game_id in zip(clients, games)
        if any(m.id == ids[game_id] and m.type == "diff" for m in client.received)
    }
    await server.start()
    owners = {game_id: client.player_id for client, game_id in zip(clients, games)}
    return await _count(store_url, owners, acknowledged)


async def _count(store_url: str, owners: dict[str, str], acknowledged: set[str]) -> TrialCount:
    """Which ends the store shows: a settled header and a record per game."""
    count = TrialCount(acknowledged=len(acknowledged))
    async with reading(store_url) as store:
        for game_id, owner in owners.items():
            loaded = await store.load_session(game_id)
            assert loaded is not None, f"{game_id} is not stored"
            header, log = loaded
            if not log or log[-1].kind != "resign":
                assert game_id not in acknowledged, f"the acknowledged resignation of {game_id} is not in its log"
                continue
            count.ended += 1
            key = record_key(engine.game_class(header.game), header.options)
            record = (await store.records(owner)).get(key)
            if header.status != RESIGNED or record is None or record.games != 1:
                count.lost += 1
                count.lost_acknowledged += game_id in acknowledged
                count.lost_games.append(game_id)
    return count


async def daily_win_trial(server: ServerProcess, store_url: str) -> TrialCount:
    """A declared bot wins today's ranked daily deal with the server's own
    winning line; the server is killed the moment the winning move is
    acknowledged.  The win must be on the day's bots' board after the
    restart (a bot's board whatever the fair-play rules make of a new
    identity replaying a line at once: docs/protocol.md, fair play), and
    in the player's days once: the restarted server's ``stats`` count it
    in the streak exactly once, and the league the bot made before playing
    scores it in the week's standings (10 points, one win)."""
    client = await WireClient.open(server.url)
    await client.hello(bot=True)
    try:
        league = await client.request(pl.CreateLeague, name="bots", variants=[{"game": "klondike", "options": DAILY_OPTIONS}])
        assert isinstance(league, pl.League), league
        request_id = client.next_id()
        await client.send(ts.NewGame(id=request_id, game="klondike", deal="daily", options=DAILY_OPTIONS))
        started = await client.wait_for(lambda m: m.id == request_id, PROOF_SECONDS)
        assert started.type == "game_started" and started.ranked, started
        line = await _daily_line(store_url)
        for move in line[:-1]:
            reply = await client.request(ts.Move, game_id=started.game_id, move=move)
            assert reply.type == "diff", reply
        last = await client.request(ts.Move, game_id=started.game_id, move=line[-1])
        server.kill()
        assert last.type == "diff" and last.status == "won", last
        await client.closed()
    finally:
        await client.close()
    await server.start()
    count = TrialCount(acknowledged=1, ended=1)
    async with reading(store_url) as store:
        board = board_name("klondike", _daily_variant(), _today(), bot=True)
        days = await store.days(client.player_id)
        if await store.rank(board, client.player_id) is None or [(d.key, d.won) for d in days] != [
            (f"klondike/{_daily_variant()}/{_today()}", True)
        ]:
            count.lost = count.lost_acknowledged = 1
            count.lost_games.append(started.game_id)
    await _stats_count_the_win_once(server, client.token)
    await _league_scores_the_win_once(server, client.token, league.league.league_id)
    return count


async def _league_scores_the_win_once(server: ServerProcess, token: str | None, league_id: str) -> None:
    again = await WireClient.open(server.url)
    try:
        await again.hello(token=token)
        week = week_of(date.fromisoformat(_today()))
        reply = await again.request(pl.LeagueStandings, league_id=league_id, week=week)
        assert isinstance(reply, pl.LeagueStandingsReply), reply
        assert [(row.points, row.wins, row.played) for row in reply.rows] == [(10, 1, 1)], reply
    finally:
        await again.close()


async def _stats_count_the_win_once(server: ServerProcess, token: str | None) -> None:
    again = await WireClient.open(server.url)
    try:
        await again.hello(token=token)
        reply = await again.request(ts.Stats, game="klondike", variant=_daily_variant())
        assert reply.type == "stats_reply", reply
        (stats,) = reply.variants
        assert (stats.played, stats.won, stats.current_streak, stats.longest_streak) == (1, 1, 1, 1), stats
        assert stats.calendar[-1] == "won" and [line.date for line in stats.history] == [_today()]
    finally:
        await again.close()


def _daily_variant() -> str:
    return variant_label(engine.game_class("klondike"), DAILY_OPTIONS)


def _today() -> str:
    return datetime.now(timezone.utc).date().isoformat()


async def _daily_line(store_url: str) -> list[str]:
    """Today's winning line, as the server fixed it in the store."""
    async with reading(store_url) as store:
        stored = await store.get_setting(f"ranked_daily/klondike/{_daily_variant()}/{_today()}")
    assert stored is not None, "the daily record is not in the store"
    return list(json.loads(stored)["line"])
