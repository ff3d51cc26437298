"""Whom a ``wss://`` connection trusts.

By default the system's certificate authorities, as any TLS client.  A
server with a private or self-signed certificate (a LAN tournament, a
test) is trusted by naming its CA's PEM file: ``ca`` on ``ArenaClient``
(in addition to the system's, so one client reaches both kinds), or a
whole ``ssl.SSLContext`` for anything else (client certificates, pinning).

The terminal client's ``--ca`` (or ``ARENA_CA``) is one choice for the
whole process, which every connection its command opens then uses:
``use_for_process``.  A ``ws://`` URL never uses TLS, whatever is trusted.
"""

from __future__ import annotations

import argparse
import os
import ssl
from typing import Callable

CaFile = str | os.PathLike[str]

_process_context: ssl.SSLContext | None = None


def client_context(ca: CaFile | None = None) -> ssl.SSLContext:
    """A verifying client context trusting the system's CAs and those in
    ``ca``; ``OSError`` or ``ssl.SSLError`` when ``ca`` cannot be read."""
    context = ssl.create_default_context()
    if ca is not None:
        context.load_verify_locations(cafile=ca)
    return context


def use_for_process(context: ssl.SSLContext | None) -> None:
    """Make ``context`` what connections given none trust (None: the
    system's CAs, as before)."""
    global _process_context
    _process_context = context


def context_for(url: str, context: ssl.SSLContext | None) -> ssl.SSLContext | None:
    """The context a connection to ``url`` uses: ``context``, else the
    process's; never one for a ``ws://`` URL, which websockets refuses to
    combine with one."""
    if not url.lower().startswith("wss:"):
        return None
    return context if context is not None else _process_context


def ca_option(text: str) -> ssl.SSLContext:
    """``--ca FILE`` (or ``ARENA_CA``) as argparse reads it: a file that
    cannot be read is a usage error (exit 2) before anything connects."""
    try:
        return client_context(text)
    except ssl.SSLError as error:
        raise argparse.ArgumentTypeError(f"{text} holds no PEM certificate ({error.reason or error})") from None
    except OSError as error:
        raise argparse.ArgumentTypeError(f"cannot read {text}: {error.strerror or error}") from None


def add_ca_flag(parser: argparse.ArgumentParser) -> None:
    """``--ca FILE`` on a command that connects (see ``trust_before_handlers``)."""
    parser.add_argument(
        "--ca", type=ca_option, default=os.environ.get("ARENA_CA"), metavar="FILE",
        help="trust a wss:// server whose certificate this PEM file signs, besides the system's CAs (default: $ARENA_CA)",
    )


def trust_before_handlers(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Have every command with ``--ca`` make it the process's trust before
    it runs: its connections are opened deep in code that takes a URL,
    and one trust serves them all, as a command talks to one server."""
    seen: set[int] = set()
    pending = list(subparsers.choices.values())
    while pending:
        parser = pending.pop()
        if id(parser) in seen:
            continue
        seen.add(id(parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                pending += action.choices.values()
        handler = parser.get_default("handler")
        if handler is not None and any(action.dest == "ca" for action in parser._actions):
            parser.set_defaults(handler=_trusting(handler))


def _trusting(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        use_for_process(args.ca)
        return handler(args)

    return run
