"""Subcommands of ``arena``; see ``server.cli``, which imports them.

A command may import every part, the core and ``server.transport``, never
``server.cli``: the exit codes its handler returns are
``server.runtime.exits`` (docs/architecture.md, "The server's folders").
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, Callable, Coroutine

from server.runtime.exits import EXIT_FAILURE, EXIT_USAGE
from server.runtime.settings import Settings, SettingsError
from server.storage import StorageError, UnknownStorageURL


LoopFactory = Callable[[], asyncio.AbstractEventLoop]


def run_with_settings(
    command: str,
    read_settings: Callable[[], Settings],
    main: Callable[[Settings], Coroutine[Any, Any, int]],
    loop_for: Callable[[Settings], LoopFactory | None] = lambda settings: None,
) -> int:
    """Run a command that needs the server's settings and store: a bad
    setting or storage URL is a usage error (exit 2), an unreachable store
    or port a failure (exit 1), each one line on standard error, never a
    traceback.  ``loop_for`` may choose the event loop by the settings
    (None: asyncio's own)."""
    try:
        settings = read_settings()
    except SettingsError as error:
        print(f"arena {command}: bad setting: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        with asyncio.Runner(loop_factory=loop_for(settings)) as runner:
            return runner.run(main(settings))
    except (UnknownStorageURL, SettingsError) as error:
        print(f"arena {command}: bad setting: {error}", file=sys.stderr)
        return EXIT_USAGE
    except (StorageError, OSError) as error:
        print(f"arena {command}: {error}", file=sys.stderr)
        return EXIT_FAILURE
