"""The log of ``arena serve``: records on standard error, each with its
time (UTC), level and logger, as text or as one JSON object per line.

Without this, only warnings reached the operator, through Python's
last-resort handler, without a time or a source.  Standard output stays
for the ``listening on`` and ``stopped`` lines that scripts wait for; in
JSON mode they are JSON objects too (``stdout_line``), so that every line
on every stream parses.

Every logger of the server is named under ``arena.`` (websockets' own
too, ``arena.websockets``, which speaks per handshake and is kept at
warning unless the level is debug, so that INFO is one line per
connection).  A record may carry structured fields (``FIELDS``, given as
``extra``): the JSON lines carry them as keys, the text lines only in the
message, so a collector filters on ``connection`` or ``error_code``
without parsing sentences.

``--log-config FILE`` hands the whole configuration to
``logging.config.dictConfig`` (a JSON file), for operators with their
own handlers; the level and format flags are then not used.  Unless the
file says otherwise it leaves the server's loggers on
(``disable_existing_loggers`` false): they exist before it is read, and
logging's own default would silence every one of them.
"""

from __future__ import annotations

import json
import logging
import logging.config
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from server.runtime.settings import SettingsError

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
WEBSOCKETS_LOGGER = "arena.websockets"
"""The logger websockets is given for the server's connections."""

FIELDS = (
    "connection", "peer", "player", "game", "race", "close_code", "error_code",
    "method", "path", "status", "duration_ms", "url", "store", "version",
)
"""The structured fields a record may carry (``extra``), by the names the
JSON lines use: one connection id (``connection``) on every record about
a connection, its opening, its errors and its close alike."""


class UTCFormatter(logging.Formatter):
    """Text lines with an ISO 8601 UTC time, so lines of several processes sort together."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802 (logging's name)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        return f"{stamp}.{int(record.msecs):03d}Z"


class JSONFormatter(UTCFormatter):
    """One JSON object per record, for log collectors, with the record's structured fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                entry[name] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def configure_logging(
    level: str, log_format: str = "text", stream: TextIO | None = None, config_file: Path | None = None
) -> None:
    """Send every record at ``level`` or above to ``stream`` (standard
    error by default), replacing handlers a previous call installed; or
    configure logging from ``config_file`` alone."""
    if config_file is not None:
        try:
            config = json.loads(config_file.read_text())
            config.setdefault("disable_existing_loggers", False)
            logging.config.dictConfig(config)
        except (OSError, ValueError, TypeError, AttributeError) as error:
            raise SettingsError(f"log_config {config_file}: {error}") from error
        return
    handler = logging.StreamHandler(sys.stderr if stream is None else stream)
    handler.setFormatter(JSONFormatter() if log_format == "json" else UTCFormatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    logging.getLogger(WEBSOCKETS_LOGGER).setLevel(logging.DEBUG if level.lower() == "debug" else logging.WARNING)


def stdout_line(log_format: str, logger: str, message: str, **fields: Any) -> str:
    """A line for standard output: ``arena: message`` as text, which
    scripts wait for, or a JSON object like a log record's, whose
    ``fields`` (the URL) a script reads without parsing the message."""
    if log_format != "json":
        return f"arena: {message}"
    record = logging.makeLogRecord({"name": logger, "levelno": logging.INFO, "levelname": "INFO", "msg": message, **fields})
    return JSONFormatter().format(record)
