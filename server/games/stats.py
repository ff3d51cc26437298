"""The ``stats`` request: a player's streaks and stats per daily variant
(``server.games.streaks``), a day's finishing times, and a result to
share.

Read from the player's days and the day's public board only, so every
process answers alike and a crash loses nothing a settled end wrote.  A
share text is refused while the player's ranked attempt of that day is
still being played: it would tell friends the progress of a live
attempt, time-stamped.  It never holds a card or a move.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Callable

import engine
from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts
from server.deals.daily import daily_key, daily_variants, known_game, requested_day, reveals_at, utc_day
from server.deals.variants import variant_label
from server.model.fair_play import board_name
from server.model.records import DayResult, SessionHeader
from server.model.refusal import Refusal
from server.net.outbox import Outbox
from server.net.peer import Peer, require_player
from server.runtime.settings import Settings
from server.storage.base import Store

from .streaks import CALENDAR_DAYS, HISTOGRAM_EDGES_MS, HISTORY_DAYS, Streak, calendar_of, day_of, histogram_of
from .streaks import open_days_of, streak_of, top_percent

HISTOGRAM_SAMPLE = 10_000
"""Finishers a histogram reads at most, fastest first (a place beyond is still exact)."""
BOARD_TIMES_MS = 10_000
"""How long a process reuses a board's finishing times: a flood of
``stats`` requests reads each board at most this often, not once each."""


def clock_text(time_ms: int) -> str:
    """``m:ss``, or ``h:mm:ss`` from an hour."""
    seconds = time_ms // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{seconds:02}" if hours else f"{minutes}:{seconds:02}"


def daily_link(game: str, variant: str, day: str) -> str:
    """Where the web client opens that daily, relative to the server's address."""
    return f"/#daily={game}/{variant}/{day}"


def share_text(title: str, variant: str, day: DayResult, streak: int, histogram: tc.Histogram) -> tc.ShareText:
    """What a player may post about an ended ranked attempt: the outcome,
    its time and actions, the streak and the place; nothing of the deal."""
    game, _, rest = day.key.partition("/")
    when = day_of(day).isoformat()
    outcome = (
        f"Won in {clock_text(day.time_ms)}, {day.actions} actions" if day.won
        else f"Not won ({clock_text(day.time_ms)}, {day.actions} actions)"
    )
    place = f" · #{histogram.place}, top {histogram.top_percent}%" if day.won and histogram.place is not None else ""
    link = daily_link(game, variant, when)
    text = f"Solitaire Arena daily · {title} {variant} · {when}\n{outcome} · streak {streak}{place}\n{link}"
    return tc.ShareText(
        game=game, variant=variant, date=when, won=day.won, time_ms=day.time_ms, actions=day.actions, streak=streak,
        place=histogram.place if day.won else None, top_percent=histogram.top_percent if day.won else None,
        link=link, text=text,
    )


class DailyStats:
    """Answers ``stats``."""

    def __init__(self, settings: Settings, store: Store, clock: Callable[[], int], outbox: Outbox) -> None:
        self._settings = settings
        self._store = store
        self._now = clock
        self._outbox = outbox
        self._counts: dict[str, tuple[int, list[int], int]] = {}

    async def stats(self, peer: Peer, message: ts.Stats) -> None:
        """Yours only: a player's history is theirs (the day's board is public)."""
        player = require_player(peer)
        now = self._now()
        today = utc_day(now)
        day = requested_day(message.date, now)
        if day > today:
            raise Refusal(ErrorCode.BAD_OPTION, f"{day} has not begun: stats are of today and the days before")
        chosen = self._variants(message)
        if message.share and len(chosen) != 1:
            raise Refusal(ErrorCode.BAD_OPTION, "a share text is of one daily: name its game and variant")
        days = await self._store.days(player.player_id)
        grace_open = now < reveals_at(today - timedelta(days=1), self._settings)
        variants = []
        share = None
        for game_id, variant in chosen:
            prefix = f"{game_id}/{variant}/"
            mine = [result for result in days if result.key.startswith(prefix)]
            open_days = open_days_of(mine, today, grace_open)
            streak = streak_of(mine, today, open_days)
            histogram = await self._histogram(game_id, variant, day, player.player_id)
            variants.append(self._variant_stats(game_id, variant, mine, streak, today, open_days, histogram))
            if message.share:
                share = await self._share(player.player_id, game_id, variant, day, mine, streak, histogram)
        self._outbox.send(peer, tc.StatsReply(id=message.id, today=today.isoformat(), variants=variants, share=share))

    def _variants(self, message: ts.Stats) -> list[tuple[str, str]]:
        """(game, variant label) of every daily variant the request names."""
        game = None if message.game is None else known_game(message.game).id
        every = [(game_id, variant_label(engine.game_class(game_id), options)) for game_id, options in daily_variants()]
        chosen = [pair for pair in every if game in (None, pair[0]) and message.variant in (None, pair[1])]
        if not chosen:
            offered = ", ".join(variant for game_id, variant in every if game in (None, game_id))
            raise Refusal(ErrorCode.BAD_OPTION, f"no daily variant {message.variant!r}; daily variants are: {offered}")
        return chosen

    async def _histogram(self, game_id: str, variant: str, day: date, player_id: str) -> tc.Histogram:
        board = board_name(game_id, variant, day.isoformat())
        counts, read = await self._board_counts(board)
        mine = await self._store.rank(board, player_id)
        finishers = max(read, mine.rank if mine is not None else 0)
        return tc.Histogram(
            date=day.isoformat(), edges_ms=list(HISTOGRAM_EDGES_MS), counts=counts,
            finishers=finishers, place=mine.rank if mine else None,
            top_percent=top_percent(mine.rank, finishers) if mine else None, time_ms=mine.time_ms if mine else None,
        )

    async def _board_counts(self, board: str) -> tuple[list[int], int]:
        """The board's histogram and the finishers it counts, read again
        once ``BOARD_TIMES_MS`` old."""
        now = self._now()
        for name in [name for name, (read_at, _, _) in self._counts.items() if read_at + BOARD_TIMES_MS <= now]:
            del self._counts[name]
        if board not in self._counts:
            entries = await self._store.leaderboard(board, 0, HISTOGRAM_SAMPLE)
            self._counts[board] = (now, histogram_of(entry.time_ms for entry in entries), len(entries))
        _, counts, read = self._counts[board]
        return list(counts), read

    @staticmethod
    def _variant_stats(
        game_id: str, variant: str, mine: list[DayResult], streak: Streak, today: date, open_days: set[date],
        histogram: tc.Histogram,
    ) -> tc.VariantStats:
        history = sorted(mine, key=day_of, reverse=True)[:HISTORY_DAYS]
        return tc.VariantStats(
            game=game_id, title=engine.game_class(game_id).title, variant=variant, played=streak.played,
            won=streak.won, current_streak=streak.current, longest_streak=streak.longest,
            best_time_ms=streak.best_time_ms, median_time_ms=streak.median_time_ms,
            calendar_start=(today - timedelta(days=CALENDAR_DAYS - 1)).isoformat(),
            calendar=calendar_of(mine, today, open_days),
            history=[
                tc.DayLine(date=day_of(result).isoformat(), won=result.won, time_ms=result.time_ms, actions=result.actions)
                for result in history
            ],
            histogram=histogram,
        )

    async def _share(
        self, player_id: str, game_id: str, variant: str, day: date, mine: list[DayResult], streak: Streak,
        histogram: tc.Histogram,
    ) -> tc.ShareText:
        key = daily_key(game_id, variant, day.isoformat())
        ended = next((result for result in mine if result.key == key), None)
        if ended is not None:
            return share_text(engine.game_class(game_id).title, variant, ended, streak.current, histogram)
        if any(self._running(header, game_id, variant, day) for header in await self._store.sessions_of(player_id)):
            raise Refusal(
                ErrorCode.UNAVAILABLE, "your ranked attempt at this daily is still being played: share it once it ends",
                reason="attempt_running",
            )
        raise Refusal(ErrorCode.UNAVAILABLE, f"you have no ended ranked attempt at the {day} daily", reason="not_played")

    @staticmethod
    def _running(header: SessionHeader, game_id: str, variant: str, day: date) -> bool:
        return (
            header.ranked and header.daily == day.isoformat() and header.status == "playing"
            and header.game == game_id and variant_label(engine.game_class(game_id), header.options) == variant
        )
