"""``/metrics`` through ``prometheus_client``.

Each ``Hub`` has its own ``CollectorRegistry``: tests start many hubs in
one process, and the library's global registry would mix their counts
and refuse a second metric of the same name.  Counters and histograms
are bumped by the core as things happen; the gauges that are
cheaper to read than to track (connections, live games, watchers, send
queues, races by phase) are read from the hub at each scrape by
``HubGauges``, so they are never stale.  Every labelled child is created
up front, so a series exists at 0 before its first event and ``rate()``
sees that first event.

No ``*_created`` series: the library would add one per counter and
histogram (the time it was made), which the text format exposes as
extra gauge families that dashboards do not use and that double what a
scrape carries.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter as Tally
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from itertools import accumulate

from prometheus_client import CollectorRegistry, Counter, Histogram, Info, ProcessCollector, disable_created_metrics
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from protocol import ErrorCode
from server.model.race_phases import COUNTDOWN, EXPIRED, FINISHED, LOBBY, RUNNING
from server.runtime.version import arena_version

disable_created_metrics()

RACE_EVENTS = ("created", "started", "finished")
CATCH_UP_CAUSES = ("gap", "audit", "watch")
RACE_PHASES = (LOBBY, EXPIRED, COUNTDOWN, RUNNING, FINISHED)
# Handling an action or a broadcast takes tens of microseconds to a few
# milliseconds; the library's default buckets start at 5 ms and would put
# nearly every observation in the first one.
FAST_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
# Lag is measured on the millisecond wall clock and may cross processes.
LAG_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# Solver work runs from milliseconds to its budget of several seconds.
SEARCH_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


def labelled_counter(
    name: str, documentation: str, label: str, values: Iterable[str], registry: CollectorRegistry
) -> Counter:
    """A counter by one label, every value of which is exported at 0 from
    the start: a rate over a series that appears only at its first event
    reads as missing data, not as none."""
    counter = Counter(name, documentation, [label], registry=registry)
    for value in values:
        counter.labels(value)
    return counter


@dataclass(frozen=True)
class Gauges:
    """What the hub holds at the moment of a scrape; ``races`` counts its
    races by phase."""

    connections: int
    live_games: int
    watchers: int
    backlog: int
    races: Tally[str]


class HubGauges(Collector):
    """Reads the hub's gauges when the registry is collected, instead of
    keeping copies that every connect, watch and send would have to update."""

    def __init__(self, read: Callable[[], Gauges]) -> None:
        self.read = read

    def collect(self) -> Iterator[Metric]:
        now = self.read()
        yield GaugeMetricFamily("arena_connections", "Open WebSocket connections.", value=now.connections)
        yield GaugeMetricFamily(
            "arena_live_games", "Games held in this process that are not finished.", value=now.live_games
        )
        yield GaugeMetricFamily(
            "arena_watchers", "Connections watching a game (a player counts for each game).", value=now.watchers
        )
        yield GaugeMetricFamily(
            "arena_send_queue_frames", "Frames waiting in connections' send queues.", value=now.backlog
        )
        races = GaugeMetricFamily("arena_races", "Races held in this process, by phase.", labels=["phase"])
        for phase in RACE_PHASES:
            races.add_metric([phase], now.races[phase])
        yield races


class LoopCounter(Collector):
    """A counter bumped on the event loop's thread only, exported as
    ``prometheus_client.Counter`` would export it.  The library's counter
    takes a lock on every ``inc`` for threads the hot path never uses;
    this one is a plain addition, about a fifth of the cost, once or more
    per action."""

    def __init__(self, name: str, documentation: str, registry: CollectorRegistry) -> None:
        self._name = name
        self._documentation = documentation
        self.value = 0.0
        registry.register(self)

    def inc(self, amount: float = 1.0) -> None:
        self.value += amount

    def collect(self) -> Iterator[Metric]:
        yield CounterMetricFamily(self._name, self._documentation, value=self.value)


class LoopHistogram(Collector):
    """A histogram observed on the event loop's thread only (``LoopCounter``
    says why), exported as ``prometheus_client.Histogram`` would export it."""

    def __init__(self, name: str, documentation: str, buckets: Iterable[float], registry: CollectorRegistry) -> None:
        self._name = name
        self._documentation = documentation
        self._bounds = [*buckets, math.inf]
        self._counts = [0] * len(self._bounds)
        self._sum = 0.0
        registry.register(self)

    def observe(self, amount: float) -> None:
        self._counts[bisect_left(self._bounds, amount)] += 1
        self._sum += amount

    def collect(self) -> Iterator[Metric]:
        cumulative = zip(map(floatToGoString, self._bounds), accumulate(self._counts))
        yield HistogramMetricFamily(self._name, self._documentation, buckets=list(cumulative), sum_value=self._sum)


class Metrics:
    """One hub's metrics and the registry that renders them."""

    def __init__(self, gauges: Callable[[], Gauges]) -> None:
        self.registry = CollectorRegistry()
        registry = self.registry
        ProcessCollector(registry=registry)
        Info("arena_build", "The running release.", registry=registry).info({"version": arena_version()})
        registry.register(HubGauges(gauges))
        fast = partial(LoopHistogram, registry=registry, buckets=FAST_BUCKETS)
        search = partial(Histogram, registry=registry, buckets=SEARCH_BUCKETS)
        self.actions = LoopCounter("arena_actions", "Actions accepted and persisted.", registry=registry)
        self.action_seconds = fast(
            "arena_action_seconds",
            "Time from starting an accepted action to its diff handed to every local watcher "
            "(engine, store append, broadcast).",
        )
        self.errors = labelled_counter(
            "arena_errors", "Error messages sent, by code.", "code", [code.value for code in ErrorCode], registry
        )
        self.overflows = Counter(
            "arena_send_queue_overflows", "Slow connections whose queue overflowed.", registry=registry
        )
        self.race_events = labelled_counter(
            "arena_race_events", "Races created, started and finished by this process.", "event", RACE_EVENTS, registry
        )
        self.broadcast = fast("arena_broadcast_seconds", "Time to hand one diff to every local watcher of a game.")
        self.relay_lag = LoopHistogram(
            "arena_broadcast_lag_seconds",
            "From an action's timestamp to its diff reaching this process's watchers (includes relay).",
            registry=registry,
            buckets=LAG_BUCKETS,
        )
        self.catch_ups = labelled_counter(
            "arena_room_catch_ups",
            "Games reloaded because the store had entries this process had not applied, by who noticed: "
            "gap (a later relayed entry), audit (the periodic check of stored lengths), watch (watch or hello).",
            "cause",
            CATCH_UP_CAUSES,
            registry,
        )
        self.finish_searches = search(
            "arena_finish_search_seconds",
            "Solver searches for a safe automatic finish (worker threads, off the event loop).",
        )
        self.analyses = search("arena_analysis_seconds", "Post-game analyses (worker threads, one slot each).")

    def action(self, seconds: float) -> None:
        """Count one accepted action and how long handling it took."""
        self.actions.inc()
        self.action_seconds.observe(seconds)

    def render(self) -> str:
        """The exposition text, served as ``prometheus_client.CONTENT_TYPE_LATEST``."""
        return generate_latest(self.registry).decode()

