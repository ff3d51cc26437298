"""The HTTP API read as an attacker would: no path, query or parameter,
well-formed or not, reaches today's daily deal, a game still played, a
finished game whose deal is still secret (a daily before its reveal, a
race still running), or anything of a player but the public profile.

A real server on a real socket, its clock a ``FakeClock`` at noon of
``DAY``, with the day's WordLink deals pinned (deal 1, whose winning line
the tests know) so that no deal is proven; every answer is collected and
searched for the secrets the server holds."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import AsyncIterator

import pytest
from tests.races.arena_races import DAY, DEAL_1_DRAW_1_WIN, noon_clock, play_line, player, race_event, race_settings
from tests.races.arena_races import racer_games
from tests.server.api_http import BOARD, DRAW_3, NONCE, REVEALED_MS, Reply, api, day_server
from tests.server.arena_clock import FakeClock
from tests.server.arena_wire import WireClient

from protocol import to_server as ts
from server.storage.memory import MemoryStore
from server.transport.app import ArenaServer

__all__ = ["day_server", "noon_clock"]

def _probes(players: list[str], games: list[str]) -> list[str]:
    """Every endpoint with the ids the test knows and with malformed,
    huge, negative and encoded parameters."""
    day = DAY.isoformat()
    paths = [
        "/daily/today?game=klondike", f"/daily/{day}?game=klondike", f"/daily/{DAY + timedelta(days=1)}?game=klondike",
        f"/daily/{day}?game=klondike&game=klondike", "/daily/9999-12-31", "/daily/0001-01-01?game=klondike",
        f"/daily/{day}?game=" + "k" * 500, "/daily/2026-13-01", "/daily/tomorrow", "/daily/", "/daily",
    ]
    for board in (BOARD, f"/leaderboards/klondike/{DRAW_3}"):
        paths += [
            f"{board}/today", f"{board}/{day}?playing=true", f"{board}/{day}?board=bots&playing=true",
            f"{board}/{day}?offset=1000000&limit=100", f"{board}/{day}?offset=-1", f"{board}/{day}?limit=100000000000000000000",
            f"{board}/{day}?limit=1e3", f"{board}/{day}?playing=yes", f"{board}/{day}?board=secret", f"{board}/{day}?around_me=true",
            f"{board}/{DAY + timedelta(days=1)}", f"{board}/{day}?offset=0%00",
        ]
    for player_id in [*players, "p_nobody", "..", "%2e%2e", "p_" + "x" * 900, "%00", "%ff%fe"]:
        paths += [f"/players/{player_id}", f"/players/{player_id}/games", f"/players/{player_id}/games?limit=100",
                  f"/players/{player_id}/games?limit=0", f"/players/{player_id}/devices", f"/players/{player_id}/friends"]
    for game_id in [*games, "g_nothing", "..%2F..%2Fsecret", "%2F", "g_" + "y" * 900]:
        paths += [f"/games/{game_id}", f"/games/{game_id}?seq=0", f"/games/{game_id}/replay"]
    return paths + ["", "/", "/games", "/players", "/leaderboards", "/openapi.json", "//daily/today", "/daily/today/../.."]


async def _probe(port: int, paths: list[str], secrets: list[str]) -> list[tuple[str, Reply]]:
    """Each path asked: never a 500, an error always the API's error body,
    and no secret in any answer."""
    replies = []
    for path in paths:
        reply = await api(port, path)
        assert reply.status in (200, 400, 404), (path, reply)
        if reply.status != 200:
            assert reply.error_code, path
        text = reply.body.decode()
        leaked = [secret for secret in secrets if secret in text]
        assert not leaked, f"{path} tells {leaked}"
        replies.append((path, reply))
    return replies


async def test_no_path_reaches_a_secret_deal_an_unfinished_game_or_a_players_private_data(
    day_server: ArenaServer, clock: FakeClock
) -> None:
    port = day_server.port
    winner = await player(day_server.url, "ann")
    attempt = (await winner.new_game(deal="daily", options={"draw": 1}))[0].game_id
    await play_line(winner, attempt, DEAL_1_DRAW_1_WIN)
    practice = (await winner.new_game(deal="daily", options={"draw": 1}, practice=True))[0].game_id
    await winner.request(ts.Move, game_id=practice, move="draw")
    await winner.request(ts.Resign, game_id=practice)
    playing = await player(day_server.url, "bob")
    live = (await playing.new_game(deal="daily", options={"draw": 1}))[0].game_id
    await play_line(playing, live, DEAL_1_DRAW_1_WIN[:3])
    loser = await player(day_server.url, "cat")
    lost = (await loser.new_game(deal="daily", options={"draw": 3}))[0].game_id
    await loser.request(ts.Resign, game_id=lost)
    casual = (await loser.new_game(deal=3))[0].game_id
    await loser.request(ts.Move, game_id=casual, move="draw")
    await loser.request(ts.Resign, game_id=casual)
    unfinished = (await loser.new_game(deal=4))[0].game_id
    link = await winner.request(ts.LinkDevice)
    assert link.type == "link_code", link
    secret_games = [attempt, practice, live, lost, unfinished]
    players = [winner.player_id, playing.player_id, loser.player_id]
    private = [str(client.token) for client in (winner, playing, loser)] + [link.code, "127.0.0.1"]
    line = json.dumps(list(DEAL_1_DRAW_1_WIN[:12]))[1:-1]
    await _probe(port, _probes(players, [*secret_games, casual]), [NONCE, line, *secret_games, *private])

    profile = (await api(port, f"/players/{winner.player_id}")).json()
    assert set(profile) == {"player_id", "name", "bot", "records", "vegas_earnings"}
    exported = (await api(port, f"/players/{loser.player_id}/games")).lines()
    assert [game["game_id"] for game in exported] == [casual], "the public game is there: the export works"
    assert (await api(port, f"/games/{casual}")).json() == exported[0]
    board = (await api(port, f"{BOARD}/today")).json()
    assert [entry["name"] for entry in board["entries"]] == ["ann"] and not board["closed"]

    clock.ms = REVEALED_MS - 1
    await _probe(port, _probes(players, secret_games), [NONCE, line, *secret_games, *private])
    clock.ms = REVEALED_MS
    await _probe(port, _probes(players, secret_games), [live, unfinished, *private])
    deals = (await api(port, f"/daily/{DAY}?game=klondike")).json()["deals"]
    assert {deal["nonce"] for deal in deals} == {NONCE}
    assert (await api(port, f"/games/{live}")).error_code == "game_not_found", "still being played"
    revealed = {game["game_id"]: game for game in (await api(port, f"/players/{winner.player_id}/games")).lines()}
    assert set(revealed) == {attempt, practice}
    assert [action["move"] for action in revealed[attempt]["actions"]] == list(DEAL_1_DRAW_1_WIN)
    assert revealed[attempt]["result"] == "won" and revealed[attempt]["seed"] == f"{1:016x}"
    assert {game["game_id"] for game in (await api(port, f"/players/{loser.player_id}/games")).lines()} == {casual, lost}
    for client in (winner, playing, loser):
        await client.close()


@pytest.fixture
async def race_server() -> AsyncIterator[ArenaServer]:
    async with ArenaServer(race_settings(), store=MemoryStore()) as running:
        yield running


async def test_a_race_game_is_exported_only_once_the_race_is_over(race_server: ArenaServer) -> None:
    """The first racer's game ended, the race goes on: rivals still play
    the same deal, so that game is nowhere in the API until the race ends."""
    host, friend = await player(race_server.url, "ann"), await player(race_server.url, "bob")
    created = await host.request(ts.CreateRace, game="klondike", deal=7)
    assert created.type == "race", created
    joined = await friend.request(ts.JoinRace, code=created.race.code)
    assert joined.type == "race", joined
    started = await host.request(ts.StartRace, race_id=created.race.race_id)
    assert started.type == "race", started
    games = racer_games(started.race)
    for client in (host, friend):
        await client.wait_for(lambda m, c=client: m.type == "snapshot" and m.game_id == games[c.player_id])
    await host.request(ts.Move, game_id=games[host.player_id], move="draw")
    await host.request(ts.Resign, game_id=games[host.player_id])
    port = race_server.port
    assert (await api(port, f"/players/{host.player_id}/games")).lines() == []
    assert (await api(port, f"/games/{games[host.player_id]}")).error_code == "game_not_found"
    await friend.request(ts.Resign, game_id=games[friend.player_id])
    await race_event(host, "finished", created.race.race_id)
    exported = (await api(port, f"/players/{host.player_id}/games")).lines()
    assert [(game["game_id"], game["race_id"], game["deal"]) for game in exported] == [
        (games[host.player_id], created.race.race_id, 7)
    ]
    assert [action["kind"] for action in exported[0]["actions"]] == ["move", "resign"]
    for client in (host, friend):
        assert isinstance(client, WireClient)
        await client.close()
