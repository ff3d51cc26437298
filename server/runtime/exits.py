"""The exit codes of ``arena``: the handlers of ``server.commands`` return
them and ``server.cli`` prints their meaning in its help.

They sit here, below both, so that a command need not import the CLI
that imports it, and so that a process importing ``server.cli`` (every
worker ``arena serve`` spawns does) loads nothing but them and the
version to get them.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141
