"""The log of ``arena serve``: records on standard error, each with its
time (UTC), level and logger, as text or as one JSON object per line.

Without this, only warnings reached the operator, through Python's
last-resort handler, without a time or a source.  Standard output stays
for the one ``listening on`` line that scripts wait for.  websockets'
own loggers speak per handshake and per HTTP request; they are kept at
warning unless the level is debug, so that INFO is one line per
connection (``arena.app``) rather than three.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import TextIO

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
QUIET_LIBRARIES = ("websockets",)


class UTCFormatter(logging.Formatter):
    """Text lines with an ISO 8601 UTC time, so lines of several processes sort together."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802 (logging's name)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        return f"{stamp}.{int(record.msecs):03d}Z"


class JSONFormatter(UTCFormatter):
    """One JSON object per record, for log collectors."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": self.formatTime(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def configure_logging(level: str, log_format: str = "text", stream: TextIO | None = None) -> logging.Handler:
    """Send every record at ``level`` or above to ``stream`` (standard
    error by default), replacing handlers a previous call installed."""
    handler = logging.StreamHandler(sys.stderr if stream is None else stream)
    handler.setFormatter(JSONFormatter() if log_format == "json" else UTCFormatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    quiet = logging.DEBUG if level == "debug" else logging.WARNING
    for name in QUIET_LIBRARIES:
        logging.getLogger(name).setLevel(quiet)
    return handler
