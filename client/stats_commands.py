"""The terminal client's ``arena stats [--game GAME] [--variant VARIANT]
[--date YYYY-MM-DD] [--share]``: your daily streaks and stats as text
charts (``client.stats_text``), or the share text of a day's ranked
attempt, to paste anywhere.

``--share`` needs one daily variant: ``--game`` alone picks the game's
first daily variant (WordLink draw 1), as ``arena play --daily`` does
without options, so the common case needs no variant typed.
"""

from __future__ import annotations

import argparse
import os
from datetime import date
from typing import TYPE_CHECKING, Callable

from .errors import ArenaError
from .identity import Identity, signed_in
from .standings import YOUR_TOKEN
from .stats_text import share_lines, stats_lines
from .console import Console
from .terminal import EXIT_FAILURE, EXIT_USAGE, run

if TYPE_CHECKING:
    Subcommands = argparse._SubParsersAction[argparse.ArgumentParser]

ParserFlags = Callable[[argparse.ArgumentParser], None]


async def stats(
    url: str, game: str | None, variant: str | None, day: date | None, share: bool, identity: Identity,
    subprotocol: str, console: Console,
) -> int:
    """Run ``arena stats``; the exit code."""
    if identity.token(url) is None:
        console.say(f"error: arena stats needs {YOUR_TOKEN}: your stats are yours")
        return EXIT_USAGE
    async with signed_in(url, identity, subprotocol=subprotocol, create=False) as client:
        try:
            if share and variant is None:
                listed = await client.stats(game=game or "klondike")
                variant = listed.variants[0].variant
                game = listed.variants[0].game
            reply = await client.stats(game, variant, None if day is None else day.isoformat(), share)
        except ArenaError as error:
            console.say(f"error: {error}")
            return EXIT_FAILURE
    lines = share_lines(reply.share, url) if reply.share is not None else stats_lines(reply)
    for line in lines:
        console.say(line)
    return 0


def register(subparsers: Subcommands, connection_flags: ParserFlags, identity: Callable[[argparse.Namespace], Identity],
             subprotocol: Callable[[argparse.Namespace], str], day_choice: Callable[[str], date]) -> None:
    """Add ``arena stats``; the flag helpers are the other commands' (``client.commands``)."""
    parser = subparsers.add_parser(
        "stats", help="your daily streaks and stats, or a result to share",
        description="Your streaks, a calendar of the last 12 weeks and the day's finishing times per daily "
        "variant; with --share, the share text of that day's ranked attempt (once it has ended).",
    )
    parser.add_argument("--game", help="only this game's daily variants")
    parser.add_argument("--variant", help="one daily variant, as arena daily names it (e.g. draw=1,scoring=standard)")
    parser.add_argument("--date", type=day_choice, metavar="YYYY-MM-DD", help="the day of the histogram and share (default today)")
    parser.add_argument("--share", action="store_true", help="print the share text instead (no card, no move)")
    parser.add_argument("--token", default=os.environ.get("ARENA_TOKEN"), help="your identity")
    connection_flags(parser)
    parser.set_defaults(handler=lambda args: run(lambda console: stats(
        args.server, args.game, args.variant, args.date, args.share, identity(args), subprotocol(args), console
    )))
