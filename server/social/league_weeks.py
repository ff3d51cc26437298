"""A league's weekly standings (``server.model.league_weeks`` scores them).

While a week runs its standings are derived on each read from the
members' stored days (``Store.days``: what a ranked daily attempt's end
settles with its record, through the finish outbox), so a finish counts
as soon as the store took it, on every process, and survives a crash
right after it.  Once a week is over, the first read of the league's
standings, or a leave or a removal (before it changes who is a member),
settles it: computed once from the members then and kept as a
``league_week`` document for ``league_weeks_kept`` weeks after its end.
Two processes settling the same week at once write the same standings,
as both read the same days.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Callable

from protocol import ErrorCode
from protocol import leagues as pl
from server.deals.daily import day_start_ms, utc_day
from server.games.owners import owners_of
from server.model import league_weeks as scoring
from server.model.refusal import Refusal
from server.runtime.settings import Settings
from server.storage.base import Store
from server.storage.leagues import LeagueRecords

WEEK = timedelta(days=scoring.WEEK_DAYS)
WEEK_SECONDS = scoring.WEEK_DAYS * 86400


class LeagueWeeks:
    """Derives a league's standings and settles its finished weeks."""

    def __init__(self, settings: Settings, store: Store, clock: Callable[[], int], records: LeagueRecords) -> None:
        self._settings = settings
        self._store = store
        self._now = clock
        self._records = records

    async def reply(self, request_id: Any, league: dict[str, Any], members: list[dict[str, Any]],
                    week: str | None) -> pl.LeagueStandingsReply:
        """The standings of ``week`` (this one by default) and the kept weeks."""
        now = self._now()
        this_week = scoring.week_of(utc_day(now))
        chosen = week or this_week
        try:
            monday = scoring.monday_of(chosen)
        except ValueError:
            raise Refusal(ErrorCode.BAD_OPTION, f"{chosen!r} is no ISO week (YYYY-Www)") from None
        if chosen > this_week:
            raise Refusal(ErrorCode.BAD_OPTION, f"the week {chosen} has not begun")
        await self.settle(league, members)
        kept = await self._records.weeks(str(league["league_id"]), self._settings.league_weeks_kept)
        if chosen == this_week:
            rows = await self._rows(league, members, monday, utc_day(now))
        else:
            settled = next((found for found in kept if found["week"] == chosen), None)
            rows = [pl.StandingRow.model_validate(row) for row in settled["rows"]] if settled else []
        summaries = [pl.WeekSummary(week=found["week"], winners=found["winners"]) for found in kept]
        return pl.LeagueStandingsReply(
            id=request_id, league_id=league["league_id"], name=league["name"], week=chosen,
            first_day=monday.isoformat(), final=chosen != this_week, rows=rows, weeks=summaries, server_time=now,
        )

    async def settle(self, league: dict[str, Any], members: list[dict[str, Any]]) -> None:
        """Keep every finished week not kept yet, since the league's first
        week or the oldest week still kept, whichever is later."""
        league_id = str(league["league_id"])
        now = self._now()
        this_monday = scoring.monday_of(scoring.week_of(utc_day(now)))
        kept_weeks = self._settings.league_weeks_kept
        first = max(scoring.monday_of(scoring.week_of(utc_day(int(league["created_ms"])))),
                    this_monday - kept_weeks * WEEK)
        kept = {found["week"] for found in await self._records.weeks(league_id, kept_weeks)}
        monday = first
        while monday < this_monday:
            week = scoring.week_of(monday)
            if week not in kept:
                rows = await self._rows(league, members, monday, monday + WEEK - timedelta(days=1))
                winners = [row.player for row in rows if row.place == 1 and row.points > 0]
                document = {"week": week, "rows": [row.model_dump() for row in rows],
                            "winners": [winner.model_dump() for winner in winners]}
                ends_ms = day_start_ms(monday + WEEK)
                keep = max(1, (ends_ms - now) // 1000 + kept_weeks * WEEK_SECONDS)
                await self._records.put_week(league_id, week, day_start_ms(monday), document, keep)
            monday += WEEK

    async def _rows(self, league: dict[str, Any], members: list[dict[str, Any]], monday: date,
                    last_day: date) -> list[pl.StandingRow]:
        """The standings of the members who had joined by ``last_day``'s end."""
        ends_ms = day_start_ms(last_day + timedelta(days=1))
        present = [member for member in members if int(member["joined_ms"]) < ends_ms]
        days = await self._store.days_of([str(member["player_id"]) for member in present])
        scored = [scoring.Member(str(member["player_id"]), int(member["joined_ms"]), days[str(member["player_id"])])
                  for member in present]
        variants = [f"{game}/{variant}" for game, variant in league["variants"]]
        standings = scoring.week_standings(variants, scored, monday, last_day)
        names = await owners_of(self._store, [row.player_id for row in standings])
        return [pl.StandingRow(player=owner, place=row.place, points=row.points, wins=row.wins, played=row.played)
                for row, owner in zip(standings, names)]
