"""``arena serve``: run the game server until SIGTERM or Ctrl-C.

Flags override ``ARENA_*`` variables, which override the defaults (see
``server.runtime.settings``).  Once listening it prints one line with the
WebSocket URL (with the real port when ``--port 0`` asked for any free
one), which scripts and tests wait for.  The log (``--log-level``,
``--log-format``, ``server.runtime.logs``) goes to standard error: a start-up
line with the version, store and address, then a line per connection.
With ``--ssl-certfile`` (and ``--ssl-keyfile``) the port speaks TLS
only and the URL printed is ``wss://``; a certificate or key that cannot
serve is a bad setting, refused before anything listens
(``server.transport.tls``).

Without a store option the server keeps everything in the SQLite database
``arena.db`` of its data directory (``server.runtime.data_dir``), so a
restart loses nothing; ``--memory`` is the throwaway store.  The default
lives here, not in ``Settings``, so that servers made in process (tests,
benchmarks) stay in memory unless they name a store.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
from pathlib import Path
from typing import Any, get_args
from urllib.parse import urlsplit

from server.commands import LoopFactory, run_with_settings
from server.commands.store_options import add_store_options, with_default_store
from server.runtime.exits import EXIT_OK
from server.runtime.version import arena_version
from server.runtime.data_dir import DATABASE_FILE, open_data_dir, with_default_data_dir
from server.runtime.entropy import SystemEntropy
from server.runtime.logs import configure_logging, stdout_line
from server.runtime.settings import Settings, env_name
from server.storage import MEMORY_URL

log = logging.getLogger("arena.serve")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the game server",
        description="Run the game server. Every setting is also an ARENA_* environment variable: "
        + ", ".join(env_name(name) for name in Settings.model_fields)
        + ".",
    )
    parser.add_argument("--host", help=f"interface to listen on (default {Settings().host})")
    parser.add_argument("--port", type=int, help=f"TCP port, 0 for any free one (default {Settings().port})")
    add_store_options(
        parser,
        store_help="sqlite:///PATH.db (one process, kept on disk), redis://... (several processes)",
        data_help=f"directory keeping the store ({DATABASE_FILE}), the daily secret and records across restarts "
        "(default: $ARENA_DATA_DIR, else $XDG_DATA_HOME/solitaire-arena/server)",
    )
    fields = Settings.model_fields
    parser.add_argument(
        "--log-level", type=str.lower, choices=get_args(fields["log_level"].annotation), help=f"any case; default {Settings().log_level}"
    )
    parser.add_argument(
        "--log-format", type=str.lower, choices=get_args(fields["log_format"].annotation), help=f"default {Settings().log_format}"
    )
    parser.add_argument("--ssl-certfile", metavar="FILE", help=fields["ssl_certfile"].description)
    parser.add_argument("--ssl-keyfile", metavar="FILE", help=fields["ssl_keyfile"].description)
    parser.add_argument("--log-config", metavar="FILE", help=fields["log_config"].description)
    parser.add_argument(
        "--access-log", action="store_const", const=True, help="log one line per HTTP request (arena.access)"
    )
    parser.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:
    return run_with_settings(
        "serve",
        lambda: with_default_store(
            with_default_data_dir(
                Settings.from_env(
                    host=args.host,
                    port=args.port,
                    redis_url=args.redis_url,
                    data_dir=args.data_dir,
                    log_level=args.log_level,
                    log_format=args.log_format,
                    log_config=args.log_config,
                    access_log=args.access_log,
                    ssl_certfile=args.ssl_certfile,
                    ssl_keyfile=args.ssl_keyfile,
                )
            )
        ),
        _main,
        event_loop,
    )


def event_loop(settings: Settings) -> LoopFactory | None:
    """uvloop's loop when the settings allow it and it is installed: its
    transports and callbacks are C, which the send path feels on every
    frame (``docs/architecture.md``, "Where an action's time goes").  The
    server needs nothing of it, so None (asyncio's loop) otherwise."""
    if not settings.uvloop:
        return None
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def store_text(url: str | None) -> str:
    """The store for the start-up line, without a password a URL may hold."""
    if url is None or url == MEMORY_URL:
        return "in memory"
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return f"{parts.scheme}://{host}{parts.path}"


async def _main(settings: Settings) -> int:
    from server.transport.app import ArenaServer, run

    configure_logging(
        settings.log_level, settings.log_format, config_file=None if settings.log_config is None else Path(settings.log_config)
    )
    open_data_dir(settings, SystemEntropy())
    if settings.redis_url is None:
        log.warning(
            "no data directory (%s=none) and no store named: the store is in memory, and a restart loses every "
            "player, record and game (--memory chooses that without this warning)", env_name("data_dir"),
        )

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)

    def announce(server: ArenaServer) -> None:
        version, store, loop_name = arena_version(), store_text(settings.redis_url), type(loop).__module__.split(".")[0]
        fields = {"url": server.url, "store": store, "version": version, "loop": loop_name}
        log.info("arena %s listening on %s, store %s, loop %s", version, server.url, store, loop_name, extra=fields)
        print(stdout_line(settings.log_format, log.name, f"listening on {server.url}", url=server.url), flush=True)

    await run(settings, stop, announce)
    log.info("stopped")
    print(stdout_line(settings.log_format, log.name, "stopped"), flush=True)
    return EXIT_OK
