"""The ``arena`` command: one parser, subcommands contributed by modules.

Each module named in ``COMMAND_MODULES`` has ``register(subparsers)``,
which adds its subcommands and sets ``handler`` on them; the handler
returns the exit code.  Library code raises; only handlers decide exit
codes.  Modules are imported by name so that the server, the solver and
the client each own their commands without importing each other.

``main`` is the one place that turns the ends a user causes into exit
codes rather than tracebacks: Ctrl-C (130) and a reader that stopped
reading (``arena solve … | head -1``: 141, as for a shell's SIGPIPE).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Sequence

from server.runtime.version import arena_version

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
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141

EXIT_CODES = f"""exit codes:
  {EXIT_OK}    done (arena solve: a win or a proof that there is none)
  {EXIT_FAILURE}    failed: the server or store could not be reached, a refusal, arena solve's
       budget ran out (result: unknown), deals verify short of its count, a check failed
  {EXIT_USAGE}    bad command line or setting
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C)
  {EXIT_BROKEN_PIPE}  the reader of the output went away (e.g. | head)"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Solitaire Arena: server, tools and clients.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"arena {arena_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
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
