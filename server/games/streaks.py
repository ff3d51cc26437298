"""Streaks and stats of the daily, derived from a player's days
(``Store.days``) and a day's leaderboard, never stored apart: whatever
settled a game's end (``server.games.records``) is all they count.

The rules (docs/protocol.md, "Streaks and stats"):
- A day is the deal's UTC day, whenever the attempt finished.  It is
  *won* when its ranked attempt is won before the day's reveal (the end
  of the day plus ``daily_grace_seconds``), *played* when the attempt
  ended otherwise (lost, resigned, or won after the reveal), *missed*
  when no ranked attempt of it ended before the reveal.
- A day still *open* (today, and yesterday during the grace period) with
  no won attempt neither counts nor breaks a streak: a player who wins
  yesterday's deal at 00:30 UTC keeps the streak.
- The current streak is the run of won days back from today, open days
  skipped; the longest is the longest run ever kept.
- Best and median time are over won days.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from datetime import date, timedelta
from statistics import median_low
from typing import Iterable

from protocol.stats import CalendarMark
from server.model.records import DayResult

CALENDAR_DAYS = 84
"""The calendar shows the last 12 weeks, today included."""
HISTOGRAM_EDGES_MS = (60_000, 120_000, 180_000, 300_000, 600_000, 1_200_000, 1_800_000, 3_600_000)
"""Upper ends of the histogram's buckets of finishing times (1, 2, 3, 5,
10, 20, 30 and 60 minutes), each exclusive, and one more for an hour or
longer."""
HISTORY_DAYS = 366
"""The newest days a reply lists one by one."""


@dataclass(frozen=True)
class Streak:
    """One variant's counts."""

    played: int
    won: int
    current: int
    longest: int
    best_time_ms: int | None
    median_time_ms: int | None


def day_of(result: DayResult) -> date:
    return date.fromisoformat(result.key.rsplit("/", 1)[1])


def open_days_of(days: Iterable[DayResult], today: date, grace_open: bool) -> set[date]:
    """The days not played yet that may still be: today, and yesterday
    while its grace period lasts (``grace_open``)."""
    played = {day_of(result) for result in days}
    candidates = {today, today - timedelta(days=1)} if grace_open else {today}
    return candidates - played


def streak_of(days: Iterable[DayResult], today: date, open_days: set[date]) -> Streak:
    """The counts of one variant's days; ``open_days`` may still be won."""
    results = list(days)
    won = {day_of(result) for result in results if result.won}
    times = sorted(result.time_ms for result in results if result.won)
    day = today
    current = 0
    while day in won or day in open_days:
        current += day in won
        day -= timedelta(days=1)
    longest = run = 0
    previous: date | None = None
    for day in sorted(won):
        run = run + 1 if previous is not None and day - previous == timedelta(days=1) else 1
        longest = max(longest, run)
        previous = day
    return Streak(
        played=len(results), won=len(won), current=current, longest=max(longest, current),
        best_time_ms=times[0] if times else None, median_time_ms=median_low(times) if times else None,
    )


def calendar_of(days: Iterable[DayResult], today: date, open_days: set[date]) -> list[CalendarMark]:
    """Each of the last ``CALENDAR_DAYS`` days, oldest first: ``won``,
    ``played``, ``missed``, or ``open`` (not played yet, still playable)."""
    by_day = {day_of(result): result for result in days}
    marks: list[CalendarMark] = []
    for back in range(CALENDAR_DAYS - 1, -1, -1):
        day = today - timedelta(days=back)
        result = by_day.get(day)
        if result is not None:
            marks.append("won" if result.won else "played")
        else:
            marks.append("open" if day in open_days else "missed")
    return marks


def histogram_of(times_ms: Iterable[int]) -> list[int]:
    """How many finishing times fall in each bucket (``HISTOGRAM_EDGES_MS``)."""
    counts = [0] * (len(HISTOGRAM_EDGES_MS) + 1)
    for time_ms in times_ms:
        counts[bisect_right(HISTOGRAM_EDGES_MS, time_ms)] += 1
    return counts


def top_percent(place: int, finishers: int) -> int:
    """The smallest whole ``p`` such that ``place`` is within the top ``p``
    percent of ``finishers`` (1st of 1: 100; 3rd of 200: 2)."""
    return math.ceil(100 * place / finishers)
