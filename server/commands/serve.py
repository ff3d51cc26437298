"""``arena serve``: run the game server until SIGTERM or Ctrl-C.

Flags override ``ARENA_*`` variables, which override the defaults (see
``server.settings``).  Once listening it prints one line with the
WebSocket URL (with the real port when ``--port 0`` asked for any free
one), which scripts and tests wait for.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
from typing import Any

from server.cli import EXIT_OK
from server.commands import run_with_settings
from server.settings import Settings, env_name


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
    parser.add_argument("--redis", dest="redis_url", metavar="URL", help="Redis URL (default: in-memory store)")
    parser.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:
    return run_with_settings(
        "serve", lambda: Settings.from_env(host=args.host, port=args.port, redis_url=args.redis_url), _main
    )


async def _main(settings: Settings) -> int:
    from server.app import ArenaServer, run

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)

    def announce(server: ArenaServer) -> None:
        print(f"arena: listening on {server.url}", flush=True)

    await run(settings, stop, announce)
    print("arena: stopped", flush=True)
    return EXIT_OK
