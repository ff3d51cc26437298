"""Leagues on the memory harness, on an injected clock: creating, joining
by code, leaving and removing; the league's daily board; the weekly
standings scored as docs/social.md says, through a week's end; and what
an attacker gets: no league read without being a member, no code found
by guessing, no way back in after the owner re-issues the code, nothing
for a player the owner blocked, and no card, pile or move on any league
frame while the deal is secret.  And over real sockets, in both codecs,
on two servers sharing one Redis: a finish on one scores in the
standings read on the other.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from typing import Any

import msgpack
import pytest
from tests.races.arena_races import (
    DAY, PUBLIC_BOARD_RULES_OFF, noon_arena, noon_clock, person, pin_daily_deal, player, redis_arenas,
)
from tests.server.arena_clock import FakeClock
from tests.server.arena_leaks import assert_counts_only
from tests.server.arena_memory import MemoryArena, MemoryClient
from tests.server.arena_servers import make_settings
from tests.server.test_daily_stats import at, pin_days, play_daily
from tests.server.test_friends import ask, refused

from protocol import JSON_SUBPROTOCOL, ErrorCode
from protocol import friends as pf
from protocol import leagues as pl
from protocol import to_server as ts
from server.model.league_weeks import PLACE_POINTS, place_points
from server.runtime.settings import Settings
from server.transport.app import ArenaServer

__all__ = ["noon_arena", "noon_clock", "redis_arenas"]

KLONDIKE: dict[str, Any] = {"game": "klondike", "options": {"draw": 1}}
WEEK = "2026-W11"
"""The ISO week of ``DAY`` (Saturday 14 March 2026)."""


@pytest.fixture
def arena_settings() -> Settings:
    return make_settings(**PUBLIC_BOARD_RULES_OFF, daily_grace_seconds=3600, league_lookup_failures_per_hour=3,
                         league_lookup_failures_per_address=5, leagues_per_player=2, league_members_limit=3)


async def create(client: MemoryClient, name: str = "Lunch") -> pl.LeagueInfo:
    reply = await ask(client, pl.CreateLeague, name=name, variants=[KLONDIKE])
    assert isinstance(reply, pl.League), reply
    return reply.league


async def join(client: MemoryClient, code: str) -> pl.LeagueInfo:
    reply = await ask(client, pl.JoinLeague, code=code)
    assert isinstance(reply, pl.League), reply
    return reply.league


async def standings(client: MemoryClient, league_id: str, week: str | None = None) -> pl.LeagueStandingsReply:
    reply = await ask(client, pl.LeagueStandings, league_id=league_id, week=week)
    assert isinstance(reply, pl.LeagueStandingsReply), reply
    return reply


def points(reply: pl.LeagueStandingsReply) -> dict[str, int]:
    return {row.player.name: row.points for row in reply.rows}


async def test_a_league_is_created_joined_by_its_code_and_read_by_its_members_only(
    arena: MemoryArena, clock: FakeClock
) -> None:
    ann, bob, eve = [await person(arena, clock, name) for name in ("ann", "bob", "eve")]
    league = await create(ann)
    assert league.owner.name == "ann" and [v.variant for v in league.variants] == ["draw=1,scoring=standard"]
    assert re.fullmatch(r"[0-9A-Z]{4}-[0-9A-Z]{4}", league.code) and league.link == f"/#league={league.code}"
    joined = await join(bob, league.code.lower().replace("-", " "))
    assert [member.player.name for member in joined.members] == ["ann", "bob"]
    listed = await ask(bob, pl.Leagues)
    assert isinstance(listed, pl.LeagueList) and [entry.league_id for entry in listed.leagues] == [league.league_id]
    board = await ask(bob, pl.LeagueBoard, league_id=league.league_id)
    assert isinstance(board, pl.LeagueBoardReply) and {row.state for row in board.rows} == {"not_started"}
    assert {row.player.name: row.me for row in board.rows} == {"ann": False, "bob": True}
    for kind, fields in ((pl.LeagueBoard, {}), (pl.LeagueStandings, {}), (pl.LeagueCode, {}), (pl.LeaveLeague, {}),
                         (pl.RemoveLeagueMember, {"player_id": bob.player_id})):
        theirs = await ask(eve, kind, league_id=league.league_id, **fields)
        unknown = await ask(eve, kind, league_id="l_nosuchleague", **fields)
        assert refused(theirs, ErrorCode.LEAGUE_NOT_FOUND) and refused(unknown, ErrorCode.LEAGUE_NOT_FOUND)
        assert theirs.message == unknown.message, "a league one is not in reads as one that does not exist"
    other = await ask(bob, pl.LeagueBoard, league_id=league.league_id, game="klondike", options={"draw": 3})
    assert refused(other, ErrorCode.BAD_OPTION), "a variant the league does not play"


async def test_standings_score_places_and_finishes_and_a_finished_week_is_kept(
    arena: MemoryArena, clock: FakeClock
) -> None:
    await pin_days(arena, DAY, 3)
    ann, bob, cat, dan = [await person(arena, clock, name) for name in ("ann", "bob", "cat", "dan")]
    league = await create(ann)
    for member in (bob, cat):
        await join(member, league.code)
    await play_daily(ann, clock, finish_at=at(DAY, 12.5))
    await play_daily(bob, clock, finish_at=at(DAY, 15))
    await play_daily(cat, clock, win=False)
    await play_daily(dan, clock, finish_at=at(DAY, 15.5))
    saturday = await standings(cat, league.league_id)
    assert points(saturday) == {"ann": 10, "bob": 8, "cat": 1} and not saturday.final
    assert [(row.player.name, row.place, row.wins, row.played) for row in saturday.rows] == [
        ("ann", 1, 1, 1), ("bob", 2, 1, 1), ("cat", 3, 0, 1)]
    assert saturday.week == WEEK and saturday.first_day == (DAY - timedelta(days=5)).isoformat()

    clock.ms = at(DAY + timedelta(days=1), 10)
    members = await ask(dan, pl.JoinLeague, code=league.code)
    assert refused(members, ErrorCode.LEAGUE_LIMIT) and members.reason == "members"
    await ask(ann, pl.RemoveLeagueMember, league_id=league.league_id, player_id=cat.player_id)
    await join(dan, league.code)
    await play_daily(bob, clock, finish_at=at(DAY + timedelta(days=1), 11))
    await play_daily(ann, clock, win=False)
    await play_daily(dan, clock, finish_at=at(DAY + timedelta(days=1), 13))
    sunday = await standings(ann, league.league_id)
    assert points(sunday) == {"bob": 18, "ann": 11, "dan": 8}, "dan's Saturday, before he joined, does not count; cat was removed"
    assert [row.place for row in sunday.rows] == [1, 2, 3]

    clock.ms = at(DAY + timedelta(days=2), 12)
    monday = await standings(ann, league.league_id)
    assert monday.week == "2026-W12" and not monday.final and set(points(monday).values()) == {0}
    assert [(week.week, [winner.name for winner in week.winners]) for week in monday.weeks] == [(WEEK, ["bob"])]
    await ask(ann, pl.RemoveLeagueMember, league_id=league.league_id, player_id=bob.player_id)
    past = await standings(dan, league.league_id, WEEK)
    assert past.final and points(past) == {"bob": 18, "ann": 11, "dan": 8}, "a settled week keeps a member removed since"
    assert refused(await ask(ann, pl.LeagueStandings, league_id=league.league_id, week="2026-W13"),
                   ErrorCode.BAD_OPTION)


def test_places_score_as_documented() -> None:
    assert [place_points(place) for place in range(1, 11)] == [*PLACE_POINTS, 1, 1]
    assert PLACE_POINTS == (10, 8, 6, 5, 4, 3, 2, 1)


async def test_codes_cannot_be_enumerated_per_player_or_per_address(arena: MemoryArena, clock: FakeClock) -> None:
    ann = await person(arena, clock, "ann")
    league = await create(ann)
    eve = await person(arena, clock, "eve", address="203.0.113.9")
    for guess in ("AAAA-AAAA", "BBBB-BBBB", "not a code"):
        assert refused(await ask(eve, pl.JoinLeague, code=guess), ErrorCode.LEAGUE_CODE_UNKNOWN)
    limited = await ask(eve, pl.JoinLeague, code=league.code)
    assert refused(limited, ErrorCode.LEAGUE_LOOKUPS_LIMITED), "past the limit even the right code is refused"
    mallory = await person(arena, clock, "mallory", address="203.0.113.9")
    for guess in ("CCCC-CCCC", "DDDD-DDDD"):
        assert refused(await ask(mallory, pl.JoinLeague, code=guess), ErrorCode.LEAGUE_CODE_UNKNOWN)
    assert refused(await ask(mallory, pl.JoinLeague, code=league.code), ErrorCode.LEAGUE_LOOKUPS_LIMITED)
    clock.ms += 3_600_001
    assert (await ask(eve, pl.JoinLeague, code=league.code)).type == "league", "the hour passed"


async def test_the_owner_removes_a_member_and_a_reissued_code_keeps_them_out(arena: MemoryArena, clock: FakeClock) -> None:
    ann, bob, cat = [await person(arena, clock, name) for name in ("ann", "bob", "cat")]
    league = await create(ann)
    await join(bob, league.code)
    await join(cat, league.code)
    assert refused(await ask(bob, pl.RemoveLeagueMember, league_id=league.league_id, player_id=cat.player_id),
                   ErrorCode.NOT_LEAGUE_OWNER)
    assert refused(await ask(bob, pl.LeagueCode, league_id=league.league_id), ErrorCode.NOT_LEAGUE_OWNER)
    removed = await ask(ann, pl.RemoveLeagueMember, league_id=league.league_id, player_id=bob.player_id)
    assert isinstance(removed, pl.League) and [m.player.name for m in removed.league.members] == ["ann", "cat"]
    assert refused(await ask(bob, pl.LeagueBoard, league_id=league.league_id), ErrorCode.LEAGUE_NOT_FOUND)
    assert (await ask(bob, pl.Leagues)).leagues == []
    await join(bob, league.code)
    await ask(ann, pl.RemoveLeagueMember, league_id=league.league_id, player_id=bob.player_id)
    reissued = await ask(ann, pl.LeagueCode, league_id=league.league_id)
    assert isinstance(reissued, pl.League) and reissued.league.code != league.code
    assert refused(await ask(bob, pl.JoinLeague, code=league.code), ErrorCode.LEAGUE_CODE_UNKNOWN)
    assert refused(await ask(ann, pl.RemoveLeagueMember, league_id=league.league_id, player_id=ann.player_id),
                   ErrorCode.NOT_LEAGUE_OWNER), "the owner leaves instead"


async def test_a_player_the_owner_blocked_is_told_the_code_names_no_league(arena: MemoryArena, clock: FakeClock) -> None:
    ann, eve = await person(arena, clock, "ann"), await person(arena, clock, "eve")
    league = await create(ann)
    assert (await ask(ann, pf.FriendChange, player_id=eve.player_id, action="block")).type == "friend"
    blocked = await ask(eve, pl.JoinLeague, code=league.code)
    assert refused(blocked, ErrorCode.LEAGUE_CODE_UNKNOWN)
    assert refused(await ask(eve, pl.JoinLeague, code="ZZZZ-ZZZZ"), ErrorCode.LEAGUE_CODE_UNKNOWN)
    assert blocked.message.replace(league.code, "") == (await ask(eve, pl.JoinLeague, code="ZZZZ-ZZZZ")).message.replace(
        "ZZZZ-ZZZZ", ""), "the same answer as a code that names nothing"


async def test_leagues_per_player_are_limited(arena: MemoryArena, clock: FakeClock) -> None:
    ann, bob = await person(arena, clock, "ann"), await person(arena, clock, "bob")
    await create(ann, "one")
    second = await create(bob, "two")
    await join(ann, second.code)
    third = await ask(ann, pl.CreateLeague, name="three", variants=[KLONDIKE])
    assert refused(third, ErrorCode.LEAGUE_LIMIT) and third.reason == "leagues"
    assert len((await ask(ann, pl.Leagues)).leagues) == 2


async def test_the_owner_leaving_hands_the_league_on_and_the_last_member_ends_it(arena: MemoryArena, clock: FakeClock) -> None:
    ann, bob, cat = [await person(arena, clock, name) for name in ("ann", "bob", "cat")]
    league = await create(ann)
    await join(bob, league.code)
    left = await ask(ann, pl.LeaveLeague, league_id=league.league_id)
    assert isinstance(left, pl.LeagueList) and left.leagues == []
    (kept,) = (await ask(bob, pl.Leagues)).leagues
    assert kept.owner.name == "bob" and [m.player.name for m in kept.members] == ["bob"]
    assert (await ask(bob, pl.LeaveLeague, league_id=league.league_id)).leagues == []
    assert refused(await ask(cat, pl.JoinLeague, code=league.code), ErrorCode.LEAGUE_CODE_UNKNOWN)


@pytest.mark.parametrize("subprotocol", ["arena.v1.json", "arena.v1.msgpack"])
async def test_no_league_frame_names_a_card_a_pile_or_a_move(
    arena: MemoryArena, clock: FakeClock, subprotocol: str
) -> None:
    await pin_days(arena, DAY, 1)
    ann = await person(arena, clock, "ann")
    bob = await person(arena, clock, "bob", subprotocol=subprotocol)
    league = await create(ann)
    await join(bob, league.code)
    started, snapshot = await ann.new_game(deal="daily", **KLONDIKE)
    piles, played, legal = set(snapshot.view.piles), set(), snapshot.legal or []
    for _ in range(12):
        move = next((text for text in legal if text != "draw"), "draw")
        clock.ms += 500
        diff = await ann.request(ts.Move, game_id=started.game_id, move=move)
        assert diff.type == "diff", diff
        played.add(move)
        legal = diff.legal or []
        await ask(bob, pl.LeagueBoard, league_id=league.league_id)
        await ask(bob, pl.LeagueStandings, league_id=league.league_id)
    await ann.request(ts.Resign, game_id=started.game_id)
    await ask(bob, pl.LeagueBoard, league_id=league.league_id)
    await ask(bob, pl.Leagues)
    frames = [json.loads(frame) if isinstance(frame, str) else msgpack.unpackb(frame, raw=False) for frame in bob.raw]
    league_frames = [frame for frame in frames if frame["type"].startswith("league")]
    assert len(league_frames) >= 26
    assert any(row["state"] == "playing" for frame in league_frames for row in frame.get("rows", []) if "state" in row)
    assert_counts_only(league_frames, piles, played)


async def test_over_sockets_a_finish_on_one_process_scores_in_standings_read_on_another(
    redis_arenas: tuple[ArenaServer, ArenaServer],
) -> None:
    """Real WebSocket clients, both codecs, two servers on one Redis: the
    league made and joined on different processes, the resignation on
    one, its point read on the other."""
    first, second = redis_arenas
    await pin_daily_deal(first.store, datetime.now(timezone.utc).date())
    ann, bob = await player(first.url, "ann"), await player(second.url, "bob", JSON_SUBPROTOCOL)
    league = (await ask(ann, pl.CreateLeague, name="Lunch", variants=[KLONDIKE])).league
    assert (await ask(bob, pl.JoinLeague, code=league.code)).type == "league"
    started, _ = await ann.new_game(deal="daily", **KLONDIKE)
    await ann.request(ts.Resign, game_id=started.game_id)
    await ann.wait_for(lambda m: m.type == "game_over")
    here = await ask(ann, pl.LeagueStandings, league_id=league.league_id)
    there = await ask(bob, pl.LeagueStandings, league_id=league.league_id)
    assert [(row.player.name, row.points, row.played) for row in there.rows] == [("ann", 1, 1), ("bob", 0, 0)]
    assert here.rows == there.rows
    board = await ask(bob, pl.LeagueBoard, league_id=league.league_id)
    assert {row.player.name: row.result for row in board.rows} == {"ann": "resigned", "bob": None}
    await ann.close()
    await bob.close()
