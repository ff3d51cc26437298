"""Streaks and stats of the daily, and a result to share: the request and
the reply.

Everything here counts a player's ranked daily attempts and the times on
a day's public board: never a card, a pile or a move, so a reply tells
nothing about a deal still secret.  A share text is given only for an
attempt that has ended, so it cannot time-stamp progress.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .parts import Event, Part
from .request import GameName, Request

DayText = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="a UTC date, YYYY-MM-DD")]
VariantLabel = Annotated[
    str, Field(min_length=1, max_length=100, description="a daily variant as `daily` names it, e.g. draw=1,scoring=standard")
]
CalendarMark = Literal["won", "played", "missed", "open"]


class Stats(Request):
    """Your streaks and stats per daily variant (of ``game``, of one
    ``variant``: all of them when not named), with the finishing times of
    ``date`` (today when not named).  ``share`` asks for the share text of
    your ranked attempt of that date, which needs ``game`` and ``variant``
    and an attempt that has ended."""

    type: Literal["stats"] = "stats"
    game: GameName | None = None
    variant: VariantLabel | None = None
    date: DayText | None = None
    share: bool = False


class DayLine(Part):
    """One day's ranked attempt: ``won`` only before the day's reveal."""

    date: str
    won: bool
    time_ms: int
    actions: int


class Histogram(Part):
    """The day's finishing times on the public board (wins only): ``counts[i]``
    finished below ``edges_ms[i]`` and at or above the edge before it, the
    last count an hour or longer.  ``place`` and ``top_percent`` are yours
    when your win is on that board (``top_percent``: the smallest whole p
    with your place within the top p percent of ``finishers``)."""

    date: str
    edges_ms: list[int]
    counts: list[int]
    finishers: int
    place: int | None = None
    top_percent: int | None = None
    time_ms: int | None = None


class VariantStats(Part):
    """One daily variant's counts, calendar, history and histogram
    (docs/protocol.md, "Streaks and stats", for the rules)."""

    game: str
    title: str
    variant: str
    played: int
    won: int
    current_streak: int
    longest_streak: int
    best_time_ms: int | None
    median_time_ms: int | None
    calendar_start: str = Field(description="the first day of `calendar`, 83 days before today")
    calendar: list[CalendarMark] = Field(description="the last 84 days, oldest first")
    history: list[DayLine] = Field(description="every day played, newest first (at most 366)")
    histogram: Histogram


class ShareText(Part):
    """A result to share: no card, no move, nothing of the deal."""

    game: str
    variant: str
    date: str
    won: bool
    time_ms: int
    actions: int
    streak: int
    place: int | None
    top_percent: int | None
    link: str = Field(description="the web client's address of that daily, relative to the server: /#daily=GAME/VARIANT/DATE")
    text: str


class StatsReply(Event):
    """The answer to ``stats``."""

    type: Literal["stats_reply"] = "stats_reply"
    today: str
    variants: list[VariantStats]
    share: ShareText | None = None
