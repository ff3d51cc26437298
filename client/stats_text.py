"""A daily variant's streaks and stats as text charts, for the terminal:
the counts, a calendar of the last 12 weeks (a row per weekday, a column
per week, as on a wall calendar turned on its side) and the day's
histogram of finishing times, with a mark on your bucket.

Example::

    WordLink draw=1,scoring=standard: played 13, won 12, streak 8 (longest 8), best 2:40, median 3:25
          Sep 09                                      Dec 02
      Mon  .  .  .  .  .  .  .  .  .  #  #  #
      ...
    2026-12-01: 106 finishers, you #9 (top 9%)
      < 1:00     |                                        0
      < 2:00     |###                                     3
      < 3:00     |###########                            11 <- you
"""

from __future__ import annotations

from datetime import date, timedelta
from urllib.parse import urlsplit

from protocol import to_client as tc

from .board import clock_text, counted

MARKS = {"won": "#", "played": "x", "missed": ".", "open": " "}
"""A calendar day: won, played and not won, missed, still to play."""
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
BAR_WIDTH = 40


def _time(time_ms: int | None) -> str:
    return "-" if time_ms is None else clock_text(time_ms)


def summary_line(stats: tc.VariantStats) -> str:
    return (
        f"{stats.title} {stats.variant}: played {stats.played}, won {stats.won}, streak {stats.current_streak} "
        f"(longest {stats.longest_streak}), best {_time(stats.best_time_ms)}, median {_time(stats.median_time_ms)}"
    )


def calendar_lines(stats: tc.VariantStats) -> list[str]:
    """The calendar: a row per weekday, a column per week, oldest left."""
    start = date.fromisoformat(stats.calendar_start)
    monday = start - timedelta(days=start.weekday())
    weeks = (len(stats.calendar) + start.weekday() + 6) // 7
    grid = [[" "] * weeks for _ in WEEKDAYS]
    for offset, mark in enumerate(stats.calendar):
        column, row = divmod(offset + start.weekday(), 7)
        grid[row][column] = MARKS[mark]
    last = start + timedelta(days=len(stats.calendar) - 1)
    header = f"      {monday:%b %d}".ljust(6 + 3 * weeks - 6) + f"{last:%b %d}"
    rows = [f"  {name}  " + "  ".join(cells) for name, cells in zip(WEEKDAYS, grid)]
    legend = "  # won   x played, not won   . missed"
    return [header, *rows, legend]


def histogram_lines(histogram: tc.Histogram) -> list[str]:
    """A bar per bucket, scaled to the fullest, your bucket marked."""
    if not histogram.finishers:
        return [f"{histogram.date}: nobody has finished yet"]
    place = "" if histogram.place is None else f", you #{histogram.place} (top {histogram.top_percent}%)"
    lines = [f"{histogram.date}: {counted(histogram.finishers, 'finisher')}{place}"]
    fullest = max(histogram.counts) or 1
    labels = [f"< {clock_text(edge)}" for edge in histogram.edges_ms] + [f">= {clock_text(histogram.edges_ms[-1])}"]
    yours = None
    if histogram.time_ms is not None:
        yours = sum(histogram.time_ms >= edge for edge in histogram.edges_ms)
    for index, (label, count) in enumerate(zip(labels, histogram.counts)):
        bar = "#" * round(BAR_WIDTH * count / fullest)
        lines.append(f"  {label:<10} |{bar:<{BAR_WIDTH}} {count:>3}" + (" <- you" if index == yours else ""))
    return lines


def stats_lines(reply: tc.StatsReply) -> list[str]:
    """Every variant's summary, calendar and histogram, blank-line apart."""
    lines: list[str] = []
    for stats in reply.variants:
        if lines:
            lines.append("")
        lines += [summary_line(stats), *calendar_lines(stats), *histogram_lines(stats.histogram)]
    return lines


def share_lines(share: tc.ShareText, server_url: str) -> list[str]:
    """The share text with its link made absolute: the web client is served
    at the HTTP address of the server's WebSocket URL."""
    parts = urlsplit(server_url)
    scheme = "https" if parts.scheme == "wss" else "http"
    return share.text.replace(share.link, f"{scheme}://{parts.netloc}{share.link}").splitlines()
