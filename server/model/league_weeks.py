"""A league's weekly scoring, as a pure rule over the members' stored
ranked daily results (``DayResult``), so every process that reads the
same days computes the same standings.

Per league variant and day: the members who won their ranked attempt
(before the day's reveal, as the daily's board counts a win) are placed
by time, then actions, then who finished first; places 1 to 8 score 10,
8, 6, 5, 4, 3, 2 and 1 points, and any other finish (a loss, a
resignation, a win below 8th, a win after the reveal) scores 1.  A
member scores only attempts at days from the UTC day they joined on and
finished after they joined, so joining a league after finishing today
adds nothing for today.  A week is an ISO week, Monday to Sunday UTC.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

from server.model.records import DayResult

PLACE_POINTS = (10, 8, 6, 5, 4, 3, 2, 1)
FINISH_POINTS = 1
WEEK_DAYS = 7


@dataclass
class Standing:
    """A member's week: points, days won and days finished."""

    player_id: str
    points: int = 0
    wins: int = 0
    played: int = 0
    place: int = 0


@dataclass(frozen=True)
class Member:
    player_id: str
    joined_ms: int
    days: list[DayResult] = field(default_factory=list)


def week_of(day: date) -> str:
    """The ISO week of ``day``, ``YYYY-Www``."""
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def monday_of(week: str) -> date:
    """The Monday of an ISO week ``YYYY-Www`` (``ValueError`` if it is none)."""
    return date.fromisocalendar(int(week[:4]), int(week[6:]), 1)


def place_points(place: int) -> int:
    return PLACE_POINTS[place - 1] if place <= len(PLACE_POINTS) else FINISH_POINTS


def _counts(member: Member, result: DayResult, day: date) -> bool:
    return day >= _utc_date(member.joined_ms) and result.finished_ms >= member.joined_ms


def _utc_date(at_ms: int) -> date:
    return date(1970, 1, 1) + timedelta(milliseconds=at_ms)


def week_standings(variants: list[str], members: list[Member], monday: date, last_day: date) -> list[Standing]:
    """Every member's standing from ``monday`` to ``last_day`` (inclusive,
    at most the Sunday), placed: most points first, equal points sharing
    a place (then most wins, then the earliest to join, for the order)."""
    standings = {member.player_id: Standing(member.player_id) for member in members}
    days = [monday + timedelta(days=offset) for offset in range(WEEK_DAYS) if monday + timedelta(days=offset) <= last_day]
    for variant in variants:
        for day in days:
            key = f"{variant}/{day.isoformat()}"
            finished = [(member, result) for member in members for result in member.days
                        if result.key == key and _counts(member, result, day)]
            winners = sorted((pair for pair in finished if pair[1].won),
                             key=lambda pair: (pair[1].time_ms, pair[1].actions, pair[1].finished_ms))
            for place, (member, _) in enumerate(winners, start=1):
                standings[member.player_id].points += place_points(place)
                standings[member.player_id].wins += 1
            for member, result in finished:
                standings[member.player_id].played += 1
                if not result.won:
                    standings[member.player_id].points += FINISH_POINTS
    joined = {member.player_id: member.joined_ms for member in members}
    ordered = sorted(standings.values(), key=lambda row: (-row.points, -row.wins, joined[row.player_id]))
    for index, row in enumerate(ordered):
        row.place = ordered[index - 1].place if index and ordered[index - 1].points == row.points else index + 1
    return ordered

