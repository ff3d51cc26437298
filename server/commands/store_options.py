"""The store options of ``arena serve`` for the commands that open the
same store without serving it (``export``, ``import``,
``prepare-dailies``): ``--store``/``--redis``, ``--memory`` and ``--data``,
with serve's default, the SQLite database of the data directory
(``server.commands.serve.with_default_store``).  A SQLite database opens
in one process at a time, so these commands are refused while a server
holds it.
"""

from __future__ import annotations

import argparse
import os
from typing import Any, Callable, Mapping

from server.runtime.data_dir import DATABASE_FILE, with_default_data_dir
from server.runtime.settings import Settings
from server.runtime.settings import env_name
from server.storage import MEMORY_URL, SQLITE_SCHEME


def add_store_options(
    parser: Any,
    *,
    store_help: str = "sqlite:///PATH.db, redis://...; a SQLite database held by a running server is refused",
    data_help: str = "the server's data directory (as arena serve's)",
) -> None:
    """The store options of ``arena serve`` and of the commands that open
    the same store (``export``, ``import``, ``prepare-dailies``,
    ``backup``): one declaration, so they cannot drift apart."""
    store = parser.add_mutually_exclusive_group()
    store.add_argument(
        "--store", "--redis", dest="redis_url", metavar="URL",
        help=f"store URL: {store_help} or {MEMORY_URL} (default: {DATABASE_FILE} in the data directory)",
    )
    store.add_argument("--memory", dest="redis_url", action="store_const", const=MEMORY_URL,
                       help="keep everything in memory: empty at start, gone at exit (for tries, tests and benchmarks)")
    parser.add_argument("--data", dest="data_dir", metavar="DIR", help=data_help)


def store_settings(args: argparse.Namespace) -> Callable[[], Settings]:
    """The settings of the store ``arena serve`` would open with ``args``."""
    return lambda: with_default_store(
        with_default_data_dir(Settings.from_env(redis_url=args.redis_url, data_dir=args.data_dir))
    )


def with_default_store(settings: Settings, environ: Mapping[str, str] | None = None) -> Settings:
    """``settings`` with the data directory's database as the store when
    neither a flag nor ``ARENA_REDIS_URL`` chose one (``ARENA_REDIS_URL=none``
    chooses memory).  Without a data directory the store stays in memory:
    ``_main`` warns that a restart loses everything."""
    source = os.environ if environ is None else environ
    if settings.redis_url is not None:
        return settings
    if env_name("redis_url") in source:
        return settings.model_copy(update={"redis_url": MEMORY_URL})
    if settings.data_dir is None:
        return settings
    database = (settings.data_dir / DATABASE_FILE).absolute()
    return settings.model_copy(update={"redis_url": f"{SQLITE_SCHEME}{database}"})
