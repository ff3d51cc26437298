"""The streak rules on days alone (``server.games.streaks``): runs of won
days, open days that neither count nor break, a played or missed day
that breaks, the calendar's marks and the histogram's buckets."""

from __future__ import annotations

from datetime import date, timedelta

from server.games.streaks import CALENDAR_DAYS, calendar_of, histogram_of, open_days_of, streak_of, top_percent
from server.model.records import DayResult

TODAY = date(2026, 12, 2)


def day(back: int, won: bool = True, time_ms: int = 100_000) -> DayResult:
    return DayResult(f"klondike/draw=1,scoring=standard/{TODAY - timedelta(days=back)}", won, time_ms, 90, 0)


def test_a_run_ending_yesterday_stands_while_today_is_open_and_a_loss_today_ends_it() -> None:
    days = [day(3), day(2), day(1)]
    assert streak_of(days, TODAY, open_days_of(days, TODAY, grace_open=False)).current == 3
    lost_today = [*days, day(0, won=False)]
    counts = streak_of(lost_today, TODAY, open_days_of(lost_today, TODAY, grace_open=False))
    assert (counts.current, counts.longest, counts.played, counts.won) == (0, 3, 4, 3)


def test_yesterday_in_its_grace_period_neither_counts_nor_breaks_and_after_it_breaks() -> None:
    days = [day(4), day(3), day(2), day(0)]
    across = streak_of(days, TODAY, open_days_of(days, TODAY, grace_open=True))
    assert (across.current, across.longest) == (4, 4), "won today, yesterday still open"
    assert streak_of(days[:3], TODAY, open_days_of(days[:3], TODAY, grace_open=True)).current == 3
    assert streak_of(days[:3], TODAY, open_days_of(days[:3], TODAY, grace_open=False)).current == 0
    assert streak_of(days[:3], TODAY, set()).longest == 3


def test_the_longest_run_best_and_median_count_won_days_only() -> None:
    days = [day(9, time_ms=50_000), day(8, won=False, time_ms=10_000), day(7, time_ms=70_000), day(6, time_ms=90_000),
            day(5, time_ms=80_000)]
    counts = streak_of(days, TODAY, set())
    assert (counts.longest, counts.current, counts.best_time_ms, counts.median_time_ms) == (3, 0, 50_000, 70_000)
    assert streak_of([], TODAY, {TODAY}) == streak_of([], TODAY, set())


def test_the_calendar_marks_each_of_the_last_twelve_weeks() -> None:
    days = [day(CALENDAR_DAYS), day(CALENDAR_DAYS - 1), day(2, won=False)]
    marks = calendar_of(days, TODAY, {TODAY, TODAY - timedelta(days=1)})
    assert len(marks) == CALENDAR_DAYS and marks[0] == "won", "a day older than the calendar is left out"
    assert marks[-3:] == ["played", "open", "open"] and marks.count("missed") == CALENDAR_DAYS - 4


def test_histogram_buckets_are_closed_below_and_open_above_and_the_percentile_rounds_up() -> None:
    assert histogram_of([0, 59_999, 60_000, 3_599_999, 3_600_000, 10**9]) == [2, 1, 0, 0, 0, 0, 0, 1, 2]
    assert [top_percent(1, 1), top_percent(3, 200), top_percent(1, 3), top_percent(200, 200)] == [100, 2, 34, 100]
