"""How late an event loop runs what is due: the waits it imposes on every
callback, measured from inside (``python bench/server.py --scale``).

A round trip measured by a load generator adds the server's queue to the
generator's own: a generator whose loop stalls reads a reply late, and
then sends every move that fell due meanwhile at once, which the server
queues.  ``LoopLag`` tells the two apart.  Attached to a loop, it asks
to be called every ``PROBE_SECONDS`` and notes how late each call comes,
on ``time.perf_counter``: a loop busy with one long callback (a slow
pass over every game, a collection) or a burst of short ones runs it
late by as much.  uvloop's timers have a resolution of a millisecond, so
lags under one millisecond are noise.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bench.server import percentile

PROBE_SECONDS = 0.005


class LoopLag:
    """The lags of one loop's probe since the last ``report``."""

    def __init__(self) -> None:
        self._lags: list[float] = []
        self._due = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None

    def attach(self, loop: asyncio.AbstractEventLoop) -> asyncio.AbstractEventLoop:
        """Start probing ``loop`` once it runs (returned, for a loop factory)."""
        self._loop = loop
        loop.call_soon(self._start)
        return loop

    def _start(self) -> None:
        self._due = time.perf_counter()
        self._tick()

    def _tick(self) -> None:
        assert self._loop is not None
        now = time.perf_counter()
        self._lags.append(max(0.0, now - self._due))
        self._due = now + PROBE_SECONDS
        self._timer = self._loop.call_later(PROBE_SECONDS, self._tick)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def report(self) -> dict[str, Any]:
        """The lags so far, in milliseconds (then starts again): how many
        probes ran, their 99th percentile and the longest."""
        lags, self._lags = self._lags, []
        return {
            "probes": len(lags),
            "p99_ms": round(percentile(lags, 0.99) * 1000, 2) if lags else 0.0,
            "max_ms": round(max(lags, default=0.0) * 1000, 2),
        }
