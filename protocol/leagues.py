"""Leagues: a named circle of players who play the same daily variants,
with a daily board per variant and weekly standings.

A league is joined by its invite code (8 Crockford base32 characters,
shown ``XXXX-XXXX``, read back whatever its case, dashes or spaces; as a
link, the web client's address with ``#league=CODE``).  Every member
sees the code; only the owner re-issues it, and the old one stops
working at once.  Only members read a league: to anyone else every
league id is ``league_not_found``.

A league's daily board is the friends' board's rows (``FriendsBoardRow``:
counts only, never a card, a pile or a move) for its members.  Weekly
standings add up points per variant and day from the places among the
members who finished their ranked attempt (docs/social.md, "Leagues").
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .friends_board import FriendsBoardRow, IsoDay
from .parts import Event, Owner, Part
from .request import GameName, Options, PlayerId, Request

LeagueId = Annotated[str, Field(min_length=1, max_length=64, description="a league id, from league or leagues")]
LeagueName = Annotated[str, Field(min_length=1, max_length=40, description="the league's name")]
LeagueCodeText = Annotated[str, Field(min_length=1, max_length=20, description="a league invite code, e.g. 7KQ2-M9XD")]
IsoWeek = Annotated[str, Field(pattern=r"^\d{4}-W\d{2}$", description="an ISO week, YYYY-Www (Monday to Sunday, UTC)")]


class VariantChoice(Part):
    game: GameName
    options: Options = Field(default_factory=dict)


# ---------------------------------------------------------------- requests


class CreateLeague(Request):
    """Create a league you own and are the first member of; ``variants``
    are the daily variants it plays (each a game and the options that pick
    its daily variant, as for ``leaderboard``)."""

    type: Literal["create_league"] = "create_league"
    name: LeagueName
    variants: list[VariantChoice] = Field(min_length=1, max_length=8)


class LeagueCode(Request):
    """The owner draws a new invite code; the old one stops working."""

    type: Literal["league_code"] = "league_code"
    league_id: LeagueId


class JoinLeague(Request):
    """Join the league whose invite code this is (joining one you are in
    just answers with it)."""

    type: Literal["join_league"] = "join_league"
    code: LeagueCodeText


class LeaveLeague(Request):
    """Leave a league.  When its owner leaves, the member who joined
    earliest owns it; when its last member leaves, it is gone."""

    type: Literal["leave_league"] = "leave_league"
    league_id: LeagueId


class RemoveLeagueMember(Request):
    """The owner removes a member (who may join again with the code until
    the owner re-issues it)."""

    type: Literal["remove_league_member"] = "remove_league_member"
    league_id: LeagueId
    player_id: PlayerId


class Leagues(Request):
    """Every league you are in."""

    type: Literal["leagues"] = "leagues"


class LeagueBoard(Request):
    """A league's daily board of one of its variants (``game`` and
    ``options`` pick it; without ``game``, the league's first) on a day
    (default today)."""

    type: Literal["league_board"] = "league_board"
    league_id: LeagueId
    game: GameName | None = None
    options: Options = Field(default_factory=dict)
    date: IsoDay | None = None


class LeagueStandings(Request):
    """A league's standings of a week (default this week) and its kept
    weeks with their winners."""

    type: Literal["league_standings"] = "league_standings"
    league_id: LeagueId
    week: IsoWeek | None = None


# ---------------------------------------------------------------- replies


class LeagueVariant(Part):
    game: str
    variant: str = Field(description="the daily variant, as daily and leaderboard name it")


class LeagueMember(Part):
    player: Owner
    joined_ms: int


class LeagueInfo(Part):
    league_id: str
    name: str
    owner: Owner
    variants: list[LeagueVariant]
    code: str = Field(description="the invite code, XXXX-XXXX")
    link: str = Field(description="the invite link's fragment, /#league=CODE")
    members: list[LeagueMember] = Field(description="earliest joined first")


class League(Event):
    """Reply to ``create_league``, ``league_code``, ``join_league`` and
    ``remove_league_member``: the league as it is now."""

    type: Literal["league"] = "league"
    league: LeagueInfo


class LeagueList(Event):
    """Reply to ``leagues`` and ``leave_league``: the leagues you are in,
    the one joined last first."""

    type: Literal["leagues"] = "leagues"
    leagues: list[LeagueInfo]


class LeagueBoardReply(Event):
    """Reply to ``league_board``: the members' rows in the friends' board's
    order (winners by place, those playing, the other finishers, those not
    started); ``place`` is among the members who won."""

    type: Literal["league_board"] = "league_board"
    league_id: str
    name: str
    game: str
    title: str
    variant: str
    date: str
    rows: list[FriendsBoardRow]
    server_time: int


class StandingRow(Part):
    player: Owner
    place: int = Field(description="1 is best; equal points share a place")
    points: int
    wins: int = Field(description="days won (a ranked win before the reveal), over all the league's variants")
    played: int = Field(description="days finished, won or not")


class WeekSummary(Part):
    week: str
    winners: list[Owner] = Field(description="the members with the most points (none when nobody scored)")


class LeagueStandingsReply(Event):
    """Reply to ``league_standings``: ``final`` once the week is over (its
    standings are then kept as they were settled); ``weeks`` are the kept
    past weeks, newest first."""

    type: Literal["league_standings"] = "league_standings"
    league_id: str
    name: str
    week: str
    first_day: str = Field(description="the week's Monday, YYYY-MM-DD")
    final: bool
    rows: list[StandingRow]
    weeks: list[WeekSummary]
    server_time: int
