"""The ``arena`` command: one parser, subcommands contributed by modules.

Each module named in ``COMMAND_MODULES`` has ``register(subparsers)``,
which adds its subcommands and sets ``handler`` on them; the handler
returns the exit code.  Library code raises; only handlers decide exit
codes.  Modules are imported by name so that the server, the solver and
the client each own their commands without importing each other.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

COMMAND_MODULES = (
    "server.commands.serve",
    "server.commands.schema",
    "server.commands.solve",
    "server.commands.prepare",
    "client.commands",
)

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arena", description="Solitaire Arena: server, tools and clients.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_USAGE
    return int(handler(args))


if __name__ == "__main__":
    sys.exit(main())
