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
from typing import Any, Callable

from server.commands.serve import with_default_store
from server.runtime.data_dir import DATABASE_FILE, with_default_data_dir
from server.runtime.settings import Settings
from server.storage import MEMORY_URL


def add_store_options(parser: Any) -> None:
    """The store options of ``arena serve``, for the commands that open
    the same store (``export``, ``import``, ``prepare-dailies``)."""
    store = parser.add_mutually_exclusive_group()
    store.add_argument(
        "--store", "--redis", dest="redis_url", metavar="URL",
        help=f"store URL: sqlite:///PATH.db, redis://... or {MEMORY_URL} (default: {DATABASE_FILE} in the data "
        "directory, as arena serve); a SQLite database held by a running server is refused",
    )
    store.add_argument("--memory", dest="redis_url", action="store_const", const=MEMORY_URL,
                       help="the in-memory store: empty at start, gone at exit")
    parser.add_argument("--data", dest="data_dir", metavar="DIR", help="the server's data directory (as arena serve's)")


def store_settings(args: argparse.Namespace) -> Callable[[], Settings]:
    """The settings of the store ``arena serve`` would open with ``args``."""
    return lambda: with_default_store(
        with_default_data_dir(Settings.from_env(redis_url=args.redis_url, data_dir=args.data_dir))
    )
