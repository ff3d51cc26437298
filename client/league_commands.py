"""The terminal client's leagues: ``arena league create NAME --game GAME
[options]``, ``arena league join CODE``, ``arena league leave ID``,
``arena league list``, ``arena league code ID`` (the owner re-issues the
invite code), ``arena league board ID [--game GAME options] [--date
YYYY-MM-DD]``, ``arena league standings ID [--week YYYY-Www]`` and
``arena league remove ID PLAYER``.

Decisions made here, and why:
- A league is named by its id, as ``arena league list`` prints it: names
  are the owner's choice and two leagues may share one.
- ``remove`` takes a member by player id or by display name, as the
  league lists them; a name two members share is refused with both ids,
  so a command never removes the wrong player.
- ``create`` plays one daily variant, picked by ``--game`` and the usual
  option flags; the protocol takes up to eight, which the web client
  offers.
"""

from __future__ import annotations

import argparse
import os
from datetime import date
from typing import TYPE_CHECKING, Any, Callable

from protocol import leagues as pl
from protocol.to_server import OptionValue, Request

from .connection import ArenaClient
from .errors import ArenaError
from .identity import Identity, signed_in
from .race_text import board_row_lines
from .requests import Reply, expect
from .console import Console
from .terminal import EXIT_FAILURE, run

if TYPE_CHECKING:
    Subcommands = argparse._SubParsersAction[argparse.ArgumentParser]

ParserFlags = Callable[[argparse.ArgumentParser], None]


def league_lines(league: pl.LeagueInfo) -> list[str]:
    """A league: its id, owner, variants and invite code, then its members."""
    variants = ", ".join(f"{variant.game} {variant.variant}" for variant in league.variants)
    lines = [f"{league.name} ({league.league_id}), owned by {league.owner.name}: plays {variants}",
             f"  invite code {league.code} (link: the web client's address with #league={league.code})"]
    return lines + [f"  {member.player.name:<20} {member.player.player_id}" for member in league.members]


def standings_lines(reply: pl.LeagueStandingsReply) -> list[str]:
    """A week's standings, then the kept weeks' winners."""
    state = "final" if reply.final else "so far"
    lines = [f"{reply.name}: week {reply.week} (from Monday {reply.first_day}), {state}"]
    lines += [f"  {row.place:>3}. {row.player.name:<20} {row.points:>4} points  {row.wins} won, {row.played} played"
              for row in reply.rows]
    for week in reply.weeks:
        winners = ", ".join(winner.name for winner in week.winners) or "nobody scored"
        lines.append(f"  {week.week}: {winners}")
    return lines


async def _ask(client: ArenaClient, request: Request, kind: type[Reply]) -> Reply:
    return expect(await client.request(request), kind)


async def _member_id(client: ArenaClient, league_id: str, name_or_id: str) -> str:
    listing = await _ask(client, pl.Leagues(), pl.LeagueList)
    members = [member.player for league in listing.leagues if league.league_id == league_id for member in league.members]
    matches = [player for player in members if player.player_id == name_or_id]
    matches = matches or [player for player in members if player.name.casefold() == name_or_id.casefold()]
    if len(matches) > 1:
        raise LookupError(f"{len(matches)} members are called {name_or_id}: use an id ({', '.join(m.player_id for m in matches)})")
    return matches[0].player_id if matches else name_or_id


async def _lines(client: ArenaClient, args: argparse.Namespace, options: dict[str, OptionValue]) -> list[str]:
    """The printout of one ``arena league`` action."""
    action = args.action or "list"
    if action == "list":
        listing = await _ask(client, pl.Leagues(), pl.LeagueList)
        return [line for league in listing.leagues for line in league_lines(league)] or [
            "no leagues yet: arena league create NAME --game GAME, or arena league join CODE"]
    if action == "leave":
        await _ask(client, pl.LeaveLeague(league_id=args.league), pl.LeagueList)
        return [f"you left {args.league}"]
    if action == "board":
        day = None if args.date is None else args.date.isoformat()
        board = await _ask(client, pl.LeagueBoard(league_id=args.league, game=args.game, options=options, date=day),
                           pl.LeagueBoardReply)
        return [f"{board.name}: {board.title} {board.variant}, {board.date}", *board_row_lines(board.rows)]
    if action == "standings":
        return standings_lines(await _ask(client, pl.LeagueStandings(league_id=args.league, week=args.week),
                                          pl.LeagueStandingsReply))
    request: Any
    if action == "create":
        request = pl.CreateLeague(name=args.name, variants=[pl.VariantChoice(game=args.game, options=options)])
    elif action == "join":
        request = pl.JoinLeague(code=args.code)
    elif action == "code":
        request = pl.LeagueCode(league_id=args.league)
    else:
        player_id = await _member_id(client, args.league, args.player)
        request = pl.RemoveLeagueMember(league_id=args.league, player_id=player_id)
    return league_lines((await _ask(client, request, pl.League)).league)


async def league(args: argparse.Namespace, options: dict[str, OptionValue], identity: Identity, subprotocol: str,
                 console: Console) -> int:
    """Run ``arena league [ACTION]``; the exit code."""
    async with signed_in(args.server, identity, subprotocol=subprotocol) as client:
        try:
            lines = await _lines(client, args, options)
        except (ArenaError, LookupError) as error:
            console.say(f"error: {error}")
            return EXIT_FAILURE
    for line in lines:
        console.say(line)
    return 0


def register(subparsers: Subcommands, connection_flags: ParserFlags, identity: Callable[[argparse.Namespace], Identity],
             subprotocol: Callable[[argparse.Namespace], str], option_flags: ParserFlags,
             options: Callable[[argparse.Namespace], dict[str, OptionValue]], day_choice: Callable[[str], date]) -> None:
    """Add ``arena league``; the flag helpers are the other commands' (``client.commands``)."""
    parser = subparsers.add_parser(
        "league", help="your leagues: create, join, leave, list, code, board, standings, remove",
        description="Without an action, the leagues you are in, with their ids, invite codes and members.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    create = actions.add_parser("create", help="create a league that plays a daily variant",
                                description="Create a league you own; it plays the daily variant --game and the "
                                "option flags pick (e.g. --game klondike --draw 1).")
    create.add_argument("name", metavar="NAME")
    create.add_argument("--game", required=True, help="the game whose daily the league plays")
    option_flags(create)
    join = actions.add_parser("join", help="join a league by its invite code", description="Join a league by its invite code.")
    join.add_argument("code", metavar="CODE", help="an invite code, e.g. 7KQ2-M9XD")
    actions.add_parser("list", help="the leagues you are in", description="The leagues you are in.")
    for name, said in (("leave", "leave a league"), ("code", "a new invite code for a league (its owner)"),
                       ("board", "a league's daily board"), ("standings", "a league's weekly standings"),
                       ("remove", "remove a member (the league's owner)")):
        each = actions.add_parser(name, help=said, description=said[0].upper() + said[1:] + ".")
        each.add_argument("league", metavar="ID", help="a league id, as arena league list prints it")
    actions.choices["remove"].add_argument("player", metavar="PLAYER", help="a member, by name or id")
    board = actions.choices["board"]
    board.add_argument("--game", help="one of the league's games (default its first variant)")
    option_flags(board)
    board.add_argument("--date", type=day_choice, metavar="YYYY-MM-DD", help="the UTC day (default today)")
    actions.choices["standings"].add_argument("--week", metavar="YYYY-Www", help="an ISO week (default this week)")
    for each in (parser, *actions.choices.values()):
        each.add_argument("--token", default=os.environ.get("ARENA_TOKEN"), help="act as this player")
        connection_flags(each)

    def handle(args: argparse.Namespace) -> int:
        chosen = options(args) if hasattr(args, "option") else {}
        return run(lambda console: league(args, chosen, identity(args), subprotocol(args), console))

    parser.set_defaults(handler=handle)
