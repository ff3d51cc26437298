"""The terminal client's commands: ``arena play``, ``arena watch``,
``arena analyse``, ``arena race create|join|rematch|watch``, ``arena leaderboard``, ``arena daily``,
``arena records``, ``arena login`` and ``arena logout``; ``arena devices``
is ``client.device_commands``'s, ``arena friends`` and ``arena challenge``
``client.friend_commands``', ``arena stats`` ``client.stats_commands``'s, ``arena league``
``client.league_commands``'.

The server URL comes from ``--server``, else ``ARENA_SERVER``, else the
local default (``--ca`` or ``ARENA_CA`` names a CA to trust for
``wss://``, ``client.tls``); the token from ``--token``, else ``ARENA_TOKEN``, else the
player kept for that server (``client.identity``: the first run that
makes a player keeps it; ``login`` keeps a token given, ``logout``
forgets it).  Game
options have flags for the common ones (``--draw``, ``--scoring``,
``--difficulty``) and ``--option NAME=VALUE`` for any other; the server
checks them all and its sentence explains a refusal.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import date
from typing import TYPE_CHECKING, Callable, get_args

import engine
from protocol import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL
from protocol.to_server import DealKind, OptionValue, RaceDealKind

from . import device_commands
from .connection import DEFAULT_URL
from .device_commands import default_device_name, keep_linked
from .friend_commands import register as register_friends
from .stats_commands import register as register_stats
from .league_commands import register as register_leagues
from .identity import Identity, KeptPlayer, Players, server_flag, server_key, signed_in
from .race_terminal import RaceRequest, race, watch_race
from .standings import LeaderboardRequest, daily, leaderboard, records
from .console import Console
from .tls import add_ca_flag, trust_before_handlers
from .terminal import EXIT_FAILURE, PlayRequest, analyse, play, run, watch

_GAME_IDS = ", ".join(engine.GAMES)
"""The games the help names: the registry's (a server may offer fewer)."""

if TYPE_CHECKING:
    # argparse's subparsers type is generic only in the type stubs.
    Subcommands = argparse._SubParsersAction[argparse.ArgumentParser]

OPTION_FLAGS = ("draw", "scoring", "difficulty")


def _deal_type(kinds: tuple[str, ...], what: str) -> Callable[[str], int | str]:
    """An argparse type for ``--deal``: a number or one of ``kinds`` (the
    protocol's own list, so the two cannot drift apart)."""

    def choice(text: str) -> int | str:
        if text.isdigit():
            return int(text)
        if text in kinds:
            return text
        raise argparse.ArgumentTypeError(f"{text!r} is not a {what}: give a number or one of {', '.join(kinds)}")

    return choice


deal_choice = _deal_type(get_args(DealKind), "deal")
race_deal_choice = _deal_type(get_args(RaceDealKind), "race deal")


def day_choice(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date: write YYYY-MM-DD") from None


def option_value(text: str) -> OptionValue:
    """An option value as typed: numbers, true/false, none, else words."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    return int(text) if text.lstrip("-").isdigit() else text


def option_pair(text: str) -> tuple[str, OptionValue]:
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
    add_ca_flag(parser)


def _option_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--draw", type=int, choices=(1, 3), help="WordLink: cards per draw")
    parser.add_argument("--scoring", choices=("standard", "vegas"), help="WordLink: scoring")
    parser.add_argument("--difficulty", choices=("relaxed", "standard", "challenge"), help="Broken Deck")
    parser.add_argument(
        "--option", type=option_pair, action="append", default=[], metavar="NAME=VALUE", help="any game option"
    )


def _identity_flags(parser: argparse.ArgumentParser, token_help: str = "play as this player") -> None:
    parser.add_argument("--name", help="your display name")
    parser.add_argument("--token", default=os.environ.get("ARENA_TOKEN"), help=token_help)


def register(subparsers: Subcommands) -> None:
    play_parser = subparsers.add_parser(
        "play", help="play a game in the terminal", description="Play a game; type help at the prompt."
    )
    play_parser.add_argument("game", help=_GAME_IDS)
    play_parser.add_argument(
        "--deal", type=deal_choice, default="random", metavar="N|daily|random|winnable", help="which deal"
    )
    _option_flags(play_parser)
    play_parser.add_argument("--practice", action="store_true", help="a practice game (records nothing)")
    _identity_flags(play_parser)
    play_parser.add_argument("--resume", metavar="GAME_ID", help="continue a live game of your player")
    play_parser.add_argument(
        "--ghost", action="append", default=[], metavar="NAME|leader",
        help="in a ranked daily attempt, race a friend's ghost (name or id) or the day's leader's; repeatable",
    )
    _connection_flags(play_parser)
    play_parser.set_defaults(handler=_play)

    watch_parser = subparsers.add_parser(
        "watch", help="watch a game move by move", description="Watch a game; without GAME_ID, list live games."
    )
    watch_parser.add_argument("game_id", nargs="?", metavar="GAME_ID")
    _connection_flags(watch_parser)
    watch_parser.set_defaults(handler=_watch)

    analyse_parser = subparsers.add_parser(
        "analyse",
        help="where a finished game was lost",
        description="Ask the server's solver where a finished game stopped being winnable.",
    )
    analyse_parser.add_argument("game_id", metavar="GAME_ID")
    _connection_flags(analyse_parser)
    analyse_parser.set_defaults(handler=_analyse)
    _register_race(subparsers)
    _register_standings(subparsers)
    _register_login(subparsers)
    register_friends(subparsers, _connection_flags, _identity, _subprotocol, _option_flags, _game_options, race_deal_choice)
    register_stats(subparsers, _connection_flags, _identity, _subprotocol, day_choice)
    register_leagues(subparsers, _connection_flags, _identity, _subprotocol, _option_flags, _game_options, day_choice)
    trust_before_handlers(subparsers)


def _register_race(subparsers: Subcommands) -> None:
    race_parser = subparsers.add_parser(
        "race", help="race friends on the same deal", description="Host, join or watch a race."
    )
    race_commands = race_parser.add_subparsers(
        dest="race_command", metavar="create|join|rematch|watch", required=True
    )
    create = race_commands.add_parser(
        "create", help="host a race and get its invite code", description="Host a race; type help at the prompt."
    )
    create.add_argument("game", help=_GAME_IDS)
    create.add_argument(
        "--deal", type=race_deal_choice, default="daily", metavar="daily|winnable|N", help="which deal (default daily)"
    )
    _option_flags(create)
    _identity_flags(create, "race as this player")
    _connection_flags(create)
    create.set_defaults(handler=_race)
    join = race_commands.add_parser(
        "join", help="join a race by its invite code", description="Join a race, then play it when it starts."
    )
    join.add_argument("code", metavar="CODE", help="the invite code (case and dashes do not matter)")
    _identity_flags(join, "race as this player (and come back to a race you left)")
    _connection_flags(join)
    join.set_defaults(handler=_race, game=None)
    rematch = race_commands.add_parser(
        "rematch",
        help="race the same friends again",
        description="After a race: a new race with the same racers and a new deal; whoever asks first hosts it.",
    )
    rematch.add_argument("rematch_of", metavar="RACE_ID", help="the race that ended (its results print this command)")
    _identity_flags(rematch, "the racer asking (the token you raced with)")
    _connection_flags(rematch)
    rematch.set_defaults(handler=_race, game=None, code=None)
    spectate = race_commands.add_parser(
        "watch", help="follow a race's progress", description="Follow everyone's progress in a race."
    )
    spectate.add_argument("race_id", metavar="RACE_ID")
    _connection_flags(spectate)
    spectate.set_defaults(handler=_watch_race)


def _register_standings(subparsers: Subcommands) -> None:
    board = subparsers.add_parser(
        "leaderboard", aliases=["board"], help="a day's leaderboard, or with --friends your friends'",
        description="A daily leaderboard of one game and variant; with --friends, you and your friends on it.",
    )
    board.add_argument("game", help=_GAME_IDS)
    board.add_argument("--date", type=day_choice, metavar="YYYY-MM-DD", help="the UTC day (default today)")
    _option_flags(board)
    board.add_argument("--around-me", action="store_true", help="the page around your own entry (needs --token)")
    board.add_argument("--playing", action="store_true", help="also the attempts still being played (counts only)")
    board.add_argument(
        "--friends", action="store_true",
        help="you and your friends: finished (place, time, actions), playing (counts only) or not started (needs --token)",
    )
    board.add_argument("--offset", type=int, default=0, help="start after this many entries")
    board.add_argument("--limit", type=int, default=10, help="entries to show (1-100)")
    board.add_argument("--token", default=os.environ.get("ARENA_TOKEN"), help="show this player's entry")
    _connection_flags(board)
    board.set_defaults(handler=_leaderboard)
    deals = subparsers.add_parser(
        "daily", help="the daily deals' commitments and reveals",
        description="A day's daily deals. Every commitment shown is kept in "
        "$XDG_DATA_HOME/solitaire-arena/commitments/ (default ~/.local/share/...), one file per server, "
        "so that --verify can tell a commitment published before the day from one made at the reveal.",
    )
    deals.add_argument("--date", type=day_choice, metavar="YYYY-MM-DD", help="the UTC day (default today)")
    deals.add_argument("--game", help="only this game")
    deals.add_argument(
        "--verify", action="store_true",
        help="check each revealed deal: variant and options, its commitment against the one this client kept "
        "before the day, the commitment's time, the layout from the seed, the winning line, and the first board "
        "of the day's first ranked attempt (exit 1 if any fails, is not revealed yet, or the day has none)",
    )
    _connection_flags(deals)
    deals.set_defaults(handler=_daily)
    mine = subparsers.add_parser(
        "records", help="a player's records", description="A player's records per game and variant."
    )
    mine.add_argument("--player", metavar="PLAYER_ID", help="someone else's records (default: yours)")
    mine.add_argument("--token", default=os.environ.get("ARENA_TOKEN"), help="your identity")
    _connection_flags(mine)
    mine.set_defaults(handler=_records)


def _register_login(subparsers: Subcommands) -> None:
    login = subparsers.add_parser(
        "login", help="keep a player's token for a server",
        description="Keep the token of a player you have (printed when you leave a game, or by arena logout), so "
        "that the commands play as that player on this server without --token.",
    )
    given = login.add_mutually_exclusive_group(required=True)
    given.add_argument("--token", help="the player's token (write it as --token=TOKEN)")
    given.add_argument("--code", help="a link code from arena devices link (or the web client) on the player's other device")
    login.add_argument("--device", default=default_device_name(), help="this terminal's name in the player's devices")
    _connection_flags(login)
    login.set_defaults(handler=_login)
    device_commands.register(subparsers, _connection_flags, _identity, _subprotocol)
    logout = subparsers.add_parser(
        "logout", help="forget the player kept for a server",
        description="Forget the player kept for a server; the next command that needs one makes a new player. "
        "The forgotten token is printed, so that arena login can bring the player back.",
    )
    _connection_flags(logout)
    logout.set_defaults(handler=_logout)


def _identity(args: argparse.Namespace) -> Identity:
    return Identity(args.token, Players.default())


def _subprotocol(args: argparse.Namespace) -> str:
    return JSON_SUBPROTOCOL if args.json else MSGPACK_SUBPROTOCOL


def _game_options(args: argparse.Namespace) -> dict[str, OptionValue]:
    options: dict[str, OptionValue] = dict(args.option)
    for name in OPTION_FLAGS:
        if getattr(args, name) is not None:
            options[name] = getattr(args, name)
    return options


def _play(args: argparse.Namespace) -> int:
    request = PlayRequest(
        url=args.server,
        game=args.game,
        deal=args.deal,
        options=_game_options(args),
        subprotocol=_subprotocol(args),
        identity=_identity(args),
        name=args.name,
        resume=args.resume,
        practice=args.practice,
        ghosts=args.ghost,
    )
    return run(lambda console: play(request, console, sys.stdin, sys.stdin.isatty()))


def _watch(args: argparse.Namespace) -> int:
    return run(lambda console: watch(args.server, args.game_id, _subprotocol(args), console))


def _analyse(args: argparse.Namespace) -> int:
    return run(lambda console: analyse(args.server, args.game_id, _subprotocol(args), console))


def _race(args: argparse.Namespace) -> int:
    creating = args.game is not None
    request = RaceRequest(
        url=args.server,
        subprotocol=_subprotocol(args),
        identity=_identity(args),
        name=args.name,
        code=None if creating else args.code,
        rematch_of=getattr(args, "rematch_of", None),
        game=args.game,
        options=_game_options(args) if creating else {},
        deal=args.deal if creating else "daily",
    )
    return run(lambda console: race(request, console, sys.stdin, sys.stdin.isatty()))


def _watch_race(args: argparse.Namespace) -> int:
    return run(lambda console: watch_race(args.server, args.race_id, _subprotocol(args), console))


def _leaderboard(args: argparse.Namespace) -> int:
    request = LeaderboardRequest(
        url=args.server,
        game=args.game,
        options=_game_options(args),
        day=args.date,
        offset=args.offset,
        limit=args.limit,
        around_me=args.around_me,
        playing=args.playing,
        friends=args.friends,
        identity=_identity(args),
        subprotocol=_subprotocol(args),
    )
    return run(lambda console: leaderboard(request, console))


def _records(args: argparse.Namespace) -> int:
    return run(lambda console: records(args.server, args.player, _identity(args), _subprotocol(args), console))


def _daily(args: argparse.Namespace) -> int:
    return run(lambda console: daily(args.server, args.date, args.game, _subprotocol(args), console, args.verify))


def _login(args: argparse.Namespace) -> int:
    if args.code is not None:
        return run(lambda console: keep_linked(args.server, args.code, args.device, _subprotocol(args), console))
    return run(lambda console: _keep_token(args.server, args.token, _subprotocol(args), console))


async def _keep_token(url: str, token: str, subprotocol: str, console: Console) -> int:
    """Keep ``token`` once the server says whose it is; never over a kept player."""
    players = Players.default()
    kept = players.get(url)
    if kept is not None and kept.token != token:
        console.say(
            f"error: {kept.name} ({kept.player_id}) is kept for {kept.server} already; "
            f"arena logout{server_flag(url)} forgets it first"
        )
        return EXIT_FAILURE
    async with signed_in(url, Identity(token), subprotocol=subprotocol) as client:
        player = KeptPlayer(server_key(url), token, client.player_id or "", client.name or "")
    if kept is None and not players.keep(player):
        console.say(f"error: another player was kept for {player.server} meanwhile; arena logout{server_flag(url)} first")
        return EXIT_FAILURE
    console.say(f"you are {player.name} ({player.player_id}) on {player.server}, kept in {players.path(url)}")
    return 0


def _logout(args: argparse.Namespace) -> int:
    return run(lambda console: _forget(args.server, console))


async def _forget(url: str, console: Console) -> int:
    players = Players.default()
    kept = players.forget(url)
    if kept is None:
        console.say(f"no player is kept for {server_key(url)}")
        return 0
    console.say(
        f"forgot {kept.name} ({kept.player_id}) on {kept.server}; to be them again: "
        f"arena login{server_flag(url)} --token={kept.token}"
    )
    return 0
