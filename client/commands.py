"""``arena play`` and ``arena watch``: the terminal client's commands.

The server URL comes from ``--server``, else ``ARENA_SERVER``, else the
local default; the token from ``--token``, else ``ARENA_TOKEN``.  Game
options have flags for the common ones (``--draw``, ``--scoring``,
``--difficulty``) and ``--option NAME=VALUE`` for any other; the server
checks them all and its sentence explains a refusal.

``arena race`` and ``arena leaderboard`` are not here yet: they need the
race and leaderboard messages of issue 6, which the protocol does not
have.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from protocol import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL

from .connection import DEFAULT_URL
from .terminal import Console, PlayRequest, play, run, watch

DEAL_KINDS = ("random", "winnable", "daily")


def deal_choice(text: str) -> int | str:
    """``--deal``: a number or one of the deal kinds."""
    if text.isdigit():
        return int(text)
    if text in DEAL_KINDS:
        return text
    raise argparse.ArgumentTypeError(f"{text!r} is not a deal: give a number or one of {', '.join(DEAL_KINDS)}")


def option_value(text: str) -> Any:
    """An option value as typed: numbers, true/false, none, else words."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    return int(text) if text.lstrip("-").isdigit() else text


def option_pair(text: str) -> tuple[str, Any]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"{text!r}: write an option as NAME=VALUE")
    return name, option_value(value)


def _connection_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server",
        default=os.environ.get("ARENA_SERVER", DEFAULT_URL),
        metavar="URL",
        help=f"the server's WebSocket URL (default: $ARENA_SERVER or {DEFAULT_URL})",
    )
    parser.add_argument("--json", action="store_true", help="speak arena.v1.json instead of MessagePack")


def register(subparsers: Any) -> None:
    play_parser = subparsers.add_parser(
        "play", help="play a game in the terminal", description="Play a game; type help at the prompt."
    )
    play_parser.add_argument("game", help="klondike, broken-deck, laras-game or chequers")
    play_parser.add_argument(
        "--deal", type=deal_choice, default="random", metavar="N|daily|random|winnable", help="which deal"
    )
    play_parser.add_argument("--draw", type=int, choices=(1, 3), help="WordLink: cards per draw")
    play_parser.add_argument("--scoring", choices=("standard", "vegas"), help="WordLink: scoring")
    play_parser.add_argument("--difficulty", choices=("relaxed", "standard", "challenge"), help="Broken Deck")
    play_parser.add_argument(
        "--option", type=option_pair, action="append", default=[], metavar="NAME=VALUE", help="any game option"
    )
    play_parser.add_argument("--practice", action="store_true", help="a practice game (records nothing)")
    play_parser.add_argument("--name", help="your display name")
    play_parser.add_argument("--token", default=os.environ.get("ARENA_TOKEN"), help="play as this player")
    play_parser.add_argument("--resume", metavar="GAME_ID", help="continue a live game of --token's player")
    _connection_flags(play_parser)
    play_parser.set_defaults(handler=_play)

    watch_parser = subparsers.add_parser(
        "watch", help="watch a game move by move", description="Watch a game; without GAME_ID, list live games."
    )
    watch_parser.add_argument("game_id", nargs="?", metavar="GAME_ID")
    _connection_flags(watch_parser)
    watch_parser.set_defaults(handler=_watch)


def _subprotocol(args: argparse.Namespace) -> str:
    return JSON_SUBPROTOCOL if args.json else MSGPACK_SUBPROTOCOL


def _play(args: argparse.Namespace) -> int:
    options = dict(args.option)
    for name in ("draw", "scoring", "difficulty"):
        if getattr(args, name) is not None:
            options[name] = getattr(args, name)
    request = PlayRequest(
        url=args.server,
        game=args.game,
        deal=args.deal,
        options=options,
        subprotocol=_subprotocol(args),
        token=args.token,
        name=args.name,
        resume=args.resume,
        practice=args.practice,
    )
    return run(play(request, Console(sys.stdout), sys.stdin, sys.stdin.isatty()))


def _watch(args: argparse.Namespace) -> int:
    return run(watch(args.server, args.game_id, _subprotocol(args), Console(sys.stdout)))
