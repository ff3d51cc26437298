"""The terminal client's friends: ``arena friends`` (the list with each
state), ``arena friends add CODE``, ``arena friends code [--reissue]``,
``arena friends accept|decline|remove|block|unblock NAME_OR_ID`` and
``arena challenge NAME_OR_ID [--game GAME]``.

Decisions made here, and why:
- A friend is named by player id or by display name, as ``arena
  friends`` lists them; a name two of them share is refused with both
  ids, so a command never acts on the wrong player.
- ``arena challenge`` creates the race and prints its invite code and
  the command that opens its lobby (``arena race join CODE``: joining a
  race one hosts just follows it), rather than holding the terminal while
  the friend decides; the friend's terminal shows the challenge with the
  same command (``client.notices``).
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Callable, get_args

from protocol import friends as pf
from protocol.to_server import OptionValue, RaceDealKind

from .connection import ArenaClient
from .errors import ArenaError
from .identity import Identity, signed_in
from .notices import notification_line
from .console import Console
from .terminal import EXIT_FAILURE, run

if TYPE_CHECKING:
    Subcommands = argparse._SubParsersAction[argparse.ArgumentParser]

ParserFlags = Callable[[argparse.ArgumentParser], None]
CHANGES = get_args(pf.FriendAction)
STATES = {"friend": "friend", "request_sent": "request sent", "request_received": "asks to be your friend",
          "blocked": "blocked", "none": "no longer linked"}


def friend_lines(listing: pf.FriendList) -> list[str]:
    """Your code, then one line per player: name, id and state."""
    lines = [f"your friend code: {listing.code} (invite link: the web client's address with #friend={listing.code})"]
    lines += [f"{entry.name:<20} {entry.player_id:<16} {STATES[entry.state]}" for entry in listing.friends]
    return lines if listing.friends else [*lines, "no friends yet: arena friends add CODE"]


async def _named(client: ArenaClient, name_or_id: str) -> str:
    """The player id of a listed player named ``name_or_id`` (or that id)."""
    listing = await client.friends()
    matches = [entry for entry in listing.friends if entry.player_id == name_or_id]
    matches = matches or [entry for entry in listing.friends if entry.name.casefold() == name_or_id.casefold()]
    if len(matches) > 1:
        raise LookupError(f"{len(matches)} players are called {name_or_id}: use an id ({', '.join(m.player_id for m in matches)})")
    return matches[0].player_id if matches else name_or_id


async def friends(url: str, action: str, target: str | None, reissue: bool, identity: Identity, subprotocol: str,
                  console: Console) -> int:
    """Run ``arena friends [ACTION]``; the exit code."""
    async with signed_in(url, identity, subprotocol=subprotocol) as client:
        try:
            if action == "list":
                lines = friend_lines(await client.friends())
            elif action == "code":
                lines = [f"your friend code: {await client.friend_code(reissue=reissue)}"]
            elif action == "add":
                lines = [_reply_line(await client.add_friend(target or ""))]
            else:
                player_id = await _named(client, target or "")
                lines = [_reply_line(await client.change_friend(player_id, action))]  # type: ignore[arg-type]
        except (ArenaError, LookupError) as error:
            console.say(f"error: {error}")
            return EXIT_FAILURE
        for entry in client.notifications.values():
            console.say(notification_line(entry))
    for line in lines:
        console.say(line)
    return 0


def _reply_line(reply: pf.FriendReply) -> str:
    return f"{reply.name} ({reply.player_id}): {STATES[reply.state]}"


async def challenge(url: str, target: str, game: str, options: dict[str, OptionValue], deal: int | RaceDealKind,
                    identity: Identity, subprotocol: str, console: Console) -> int:
    """Run ``arena challenge NAME_OR_ID``; the exit code."""
    async with signed_in(url, identity, subprotocol=subprotocol) as client:
        try:
            race = await client.challenge(await _named(client, target), game, options, deal)
        except (ArenaError, LookupError) as error:
            console.say(f"error: {error}")
            return EXIT_FAILURE
    console.say(f"challenged {target} to a {game} race, invite code {race.code}; its lobby: arena race join {race.code}")
    return 0


def register(subparsers: Subcommands, connection_flags: ParserFlags, identity: Callable[[argparse.Namespace], Identity],
             subprotocol: Callable[[argparse.Namespace], str], option_flags: ParserFlags,
             options: Callable[[argparse.Namespace], dict[str, OptionValue]], deal_choice: Callable[[str], int | str]) -> None:
    """Add ``arena friends`` and ``arena challenge``; the flag helpers are
    the other commands' (``client.commands``)."""
    parser = subparsers.add_parser(
        "friends", help="your friends: list, add by code, your code, accept, decline, remove, block, unblock",
        description="Without an action, your friend code and everyone you are linked to, with the state of each.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    add = actions.add_parser(
        "add", help="ask the holder of a friend code to be friends",
        description="Ask the holder of a friend code to be friends; if they had asked you, you are friends now.",
    )
    add.add_argument("target", metavar="CODE", help="a friend code, e.g. 7KQ2-M9XD")
    code = actions.add_parser(
        "code", help="your friend code", description="Print your friend code, to share; --reissue replaces it."
    )
    code.add_argument("--reissue", action="store_true", help="draw a new code; the old one stops working")
    for change in CHANGES:
        said = f"{change} a player (by name or id, as arena friends lists them)"
        changing = actions.add_parser(change, help=said, description=said[0].upper() + said[1:] + ".")
        changing.add_argument("target", metavar="NAME_OR_ID")
    for each in (parser, *actions.choices.values()):
        each.add_argument("--token", default=os.environ.get("ARENA_TOKEN"), help="act as this player")
        connection_flags(each)

    def handle(args: argparse.Namespace) -> int:
        return run(lambda console: friends(args.server, args.action or "list", getattr(args, "target", None),
                                           getattr(args, "reissue", False), identity(args), subprotocol(args), console))

    parser.set_defaults(handler=handle)
    challenging = subparsers.add_parser(
        "challenge", help="challenge a friend to a race",
        description="Create a race and invite a friend who is online to it (they get a notification).",
    )
    challenging.add_argument("target", metavar="NAME_OR_ID", help="a friend, by name or id")
    challenging.add_argument("--game", default="klondike", help="the game (default klondike)")
    challenging.add_argument(
        "--deal", type=deal_choice, default="daily", metavar="daily|winnable|N", help="which deal (default daily)"
    )
    option_flags(challenging)
    challenging.add_argument("--token", default=os.environ.get("ARENA_TOKEN"), help="act as this player")
    connection_flags(challenging)

    def handle_challenge(args: argparse.Namespace) -> int:
        return run(lambda console: challenge(args.server, args.target, args.game, options(args), args.deal,
                                             identity(args), subprotocol(args), console))

    challenging.set_defaults(handler=handle_challenge)
