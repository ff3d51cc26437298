"""Counters for ``/metrics``, rendered as Prometheus text.

The core bumps plain integers and floats (no locks: one event loop);
gauges that are cheaper to read than to track (connections, live games)
are passed in at render time.
"""

from __future__ import annotations

import time
from collections import Counter, deque

RATE_WINDOW_SECONDS = 10


class Summary:
    """Count, sum and maximum of observed durations, in seconds."""

    def __init__(self) -> None:
        self.count = 0
        self.total = 0.0
        self.maximum = 0.0

    def observe(self, seconds: float) -> None:
        self.count += 1
        self.total += seconds
        self.maximum = max(self.maximum, seconds)


class Metrics:
    def __init__(self) -> None:
        self.actions = 0
        self.errors: Counter[str] = Counter()
        self.race_events: Counter[str] = Counter()
        self.overflows = 0
        self.broadcast = Summary()
        self.relay_lag = Summary()
        self.finish_searches = Summary()
        self.analyses = Summary()
        self._recent: deque[float] = deque()

    def action(self, now: float | None = None) -> None:
        """Count one accepted action."""
        moment = time.monotonic() if now is None else now
        self.actions += 1
        self._recent.append(moment)
        self._trim(moment)

    def _trim(self, now: float) -> None:
        cutoff = now - RATE_WINDOW_SECONDS
        while self._recent and self._recent[0] < cutoff:
            self._recent.popleft()

    def actions_per_second(self, now: float | None = None) -> float:
        """Accepted actions per second over the last ten seconds."""
        self._trim(time.monotonic() if now is None else now)
        return len(self._recent) / RATE_WINDOW_SECONDS

    def render(
        self, connections: int, live_games: int, watchers: int, backlog: int, races: Counter[str]
    ) -> str:
        """The Prometheus text; ``races`` counts the races this process
        holds by phase (lobby, countdown, running, finished)."""
        lines = [
            "# HELP arena_connections Open WebSocket connections.",
            "# TYPE arena_connections gauge",
            f"arena_connections {connections}",
            "# HELP arena_live_games Games held in this process that are not finished.",
            "# TYPE arena_live_games gauge",
            f"arena_live_games {live_games}",
            "# HELP arena_watchers Connections watching a game (a player counts for each game).",
            "# TYPE arena_watchers gauge",
            f"arena_watchers {watchers}",
            "# HELP arena_actions_total Actions accepted and persisted.",
            "# TYPE arena_actions_total counter",
            f"arena_actions_total {self.actions}",
            "# HELP arena_actions_per_second Actions accepted per second over the last 10 s.",
            "# TYPE arena_actions_per_second gauge",
            f"arena_actions_per_second {self.actions_per_second():.1f}",
            "# HELP arena_errors_total Error messages sent, by code.",
            "# TYPE arena_errors_total counter",
        ]
        lines += [f'arena_errors_total{{code="{code}"}} {count}' for code, count in sorted(self.errors.items())]
        lines += [
            "# HELP arena_races Races held in this process, by phase.",
            "# TYPE arena_races gauge",
        ]
        lines += [f'arena_races{{phase="{phase}"}} {count}' for phase, count in sorted(races.items())]
        lines += [
            "# HELP arena_race_events_total Races created, started and finished by this process.",
            "# TYPE arena_race_events_total counter",
        ]
        lines += [f'arena_race_events_total{{event="{event}"}} {count}' for event, count in sorted(self.race_events.items())]
        lines += [
            "# HELP arena_send_queue_frames Frames waiting in connections' send queues.",
            "# TYPE arena_send_queue_frames gauge",
            f"arena_send_queue_frames {backlog}",
            "# HELP arena_send_queue_overflows_total Slow connections whose queue overflowed.",
            "# TYPE arena_send_queue_overflows_total counter",
            f"arena_send_queue_overflows_total {self.overflows}",
        ]
        lines += _summary(
            "arena_broadcast_seconds", "Time to hand one message to every local watcher of a game.", self.broadcast
        )
        lines += _summary(
            "arena_broadcast_lag_seconds",
            "From an action's timestamp to its diff reaching this process's watchers (includes relay).",
            self.relay_lag,
        )
        lines += _summary(
            "arena_finish_search_seconds",
            "Solver searches for a safe automatic finish (worker threads, off the event loop).",
            self.finish_searches,
        )
        lines += _summary("arena_analysis_seconds", "Post-game analyses (worker threads, one slot each).", self.analyses)
        return "\n".join(lines) + "\n"


def _summary(name: str, help_text: str, summary: Summary) -> list[str]:
    return [
        f"# HELP {name} {help_text}",
        f"# TYPE {name} summary",
        f"{name}_count {summary.count}",
        f"{name}_sum {summary.total:.6f}",
        f"# HELP {name}_max Largest observation since start.",
        f"# TYPE {name}_max gauge",
        f"{name}_max {summary.maximum:.6f}",
    ]
