"""The ``arena`` command: one parser, subcommands contributed by modules.

Each module of ``command_modules()`` has ``register(subparsers)``, which
adds its subcommands and sets ``handler`` on them; the handler returns
the exit code (``server.runtime.exits``).  Library code raises; only handlers
decide exit codes.  The server's commands and the terminal client's
(``client.commands``) each live beside the code they drive, and this is
the one module that imports both: the one import from ``server`` into
``client``, which ``tests/test_import_graph.py`` names.

``main`` is the one place that turns the ends a user causes into exit
codes rather than tracebacks: Ctrl-C (130) and a reader that stopped
reading (``arena solve … | head -1``: 141, as for a shell's SIGPIPE).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Protocol, Sequence

from server.runtime.exits import EXIT_BROKEN_PIPE, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from server.runtime.version import arena_version

EXIT_CODES = f"""exit codes:
  {EXIT_OK}    done (arena solve: a win or a proof that there is none)
  {EXIT_FAILURE}    failed: the server or store could not be reached, a refusal, arena solve's
       budget ran out (result: unknown), deals verify short of its count, a check failed
  {EXIT_USAGE}    bad command line or setting
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C)
  {EXIT_BROKEN_PIPE}  the reader of the output went away (e.g. | head)"""


class CommandModule(Protocol):
    """A module that contributes subcommands to ``arena``."""

    def register(self, subparsers: Any) -> None: ...


def command_modules() -> tuple[CommandModule, ...]:
    """The modules whose subcommands ``arena`` offers, in help order.

    Imported when the parser is built, not with this module: ``arena
    serve`` starts its worker processes by spawning, and a spawned process
    imports the program's main module again, which is this one.  At the
    top, every command's dependencies (the whole server, the solver, the
    client: some 400 modules, over two seconds where importing this module
    alone takes a few hundredths) would load again in every worker."""
    from client import commands as client_commands
    from server.commands import backup, prepare, schema, serve, solve, transfer

    return (serve, backup, transfer, schema, solve, prepare, client_commands)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Solitaire Arena: server, tools and clients.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"arena {arena_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in command_modules():
        module.register(subparsers)
    from server.commands import completion

    completion.register(subparsers, parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit code (see ``EXIT_CODES``)."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        handler = getattr(args, "handler", None)
        if handler is None:
            parser.print_help()
            return EXIT_USAGE
        code = int(handler(args))
        sys.stdout.flush()
        return code
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last
    flush at exit does not fail on the closed pipe a second time."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
