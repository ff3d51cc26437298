"""Progress of long commands (``arena solve``, ``arena deals verify``,
``arena prepare-dailies``) and of the benchmarks under ``bench/`` on
standard error, with an ETA.

On a terminal it is one line rewritten in place, at most ten times a
second; otherwise (a pipe, a log file, CI) plain lines, at most one per
``every`` seconds, because a log must not fill with carriage returns or
with a line per solver step.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

LIVE_INTERVAL = 0.1
"""Seconds between two rewrites of the terminal line."""


def duration(seconds: float) -> str:
    """``42 s``, ``3 min 20 s``, ``2 h 05 min``: short enough for one line."""
    whole = int(round(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


class ProgressLine:
    """Reports ``done`` of ``total`` with the elapsed time and an ETA.

    ``start`` is the count already done before this run (a resumed build),
    so the rate and the ETA measure this run only.  The last report
    (``done >= total``) is always written; ``finish`` ends a terminal line
    that stopped short (an interrupted or unsuccessful run).  ``stream``
    defaults to the standard error of the moment it is made.  ``keep``
    writes plain lines on a terminal too, for reports that each carry the
    figures of a finished unit (a benchmark's run) worth keeping on screen.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        monotonic: Callable[[], float] = time.monotonic,
        *,
        every: float = 0.0,
        start: int = 0,
        eta_label: str = "ETA",
        keep: bool = False,
    ) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.monotonic = monotonic
        self.started = monotonic()
        self.live = self.stream.isatty() and not keep
        self.every = LIVE_INTERVAL if self.live else every
        self.start = start
        self.eta_label = eta_label
        self._shown: float | None = None
        self._open = False

    def __call__(self, done: int, total: int, what: str) -> None:
        now = self.monotonic()
        final = done >= total
        if not final and self._shown is not None and now - self._shown < self.every:
            return
        self._shown = now
        elapsed = now - self.started
        ran = done - self.start
        text = f"{done}/{total} {what}  {duration(elapsed)}"
        if not final:
            text += f", {self.eta_label} {duration(elapsed / ran * (total - done)) if ran > 0 else '?'}"
        if self.live:
            self.stream.write("\r\x1b[K" + text + ("\n" if final else ""))
            self._open = not final
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def finish(self) -> None:
        """End the terminal line if a report left it open."""
        if self._open:
            self.stream.write("\n")
            self.stream.flush()
            self._open = False
