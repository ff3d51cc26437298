"""The terminal client's devices: ``arena devices`` (list), ``arena devices
link`` (a code for another device), ``arena devices revoke ID``, ``arena
devices rotate``, and ``arena login --code CODE``, which makes this
terminal a device of the player who asked for the code and keeps its
token (``client.identity``).

Decisions made here, and why:
- ``login --code`` keeps the new device's token as its ``welcome``
  arrives (the same keeper as a first run's), so Ctrl-C after the code is
  redeemed cannot lose it: a code works once.  It refuses, before using
  the code, when a player is kept for the server already (``arena
  logout`` first), so no code is spent on a terminal that would not keep it.
- ``rotate`` replaces the kept token in its file when the token came from
  there, and prints the new one when it was given (``--token``,
  ``ARENA_TOKEN``): the old one is refused from then on.
"""

from __future__ import annotations

import argparse
import os
import platform
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Callable

from protocol import to_client as tc

from .connection import ArenaClient
from .identity import Identity, KeptPlayer, NewPlayerKeeper, Players, server_flag, server_key, signed_in
from .console import Console
from .terminal import EXIT_FAILURE, EXIT_USAGE, run

if TYPE_CHECKING:
    Subcommands = argparse._SubParsersAction[argparse.ArgumentParser]

ParserFlags = Callable[[argparse.ArgumentParser], None]
DEVICE_NAME_LENGTH = 40
YOUR_PLAYER = "--token (or ARENA_TOKEN, or a player kept for this server by arena play or arena login)"


def default_device_name() -> str:
    """What this terminal calls itself in the player's list of devices."""
    return f"arena on {platform.node() or 'a terminal'}"[:DEVICE_NAME_LENGTH]


def _when(ms: int | None) -> str:
    if ms is None:
        return "never"
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def device_lines(devices: list[tc.DeviceEntry]) -> list[str]:
    """One line per device: id, name, created and last seen, and which is this one."""
    return [
        f"{'*' if entry.current else ' '} {entry.device_id}  {entry.name or '(unnamed)'}  "
        f"created {_when(entry.created)}, last seen {_when(entry.last_seen)}"
        for entry in devices
    ]


async def keep_linked(url: str, code: str, device: str, subprotocol: str, console: Console) -> int:
    """Redeem ``code`` as a new device of its player and keep the token."""
    players = Players.default()
    kept = players.get(url)
    if kept is not None:
        console.say(f"error: {kept.name} ({kept.player_id}) is kept for {kept.server} already; "
                    f"arena logout{server_flag(url)} forgets it first")
        return EXIT_FAILURE
    client = ArenaClient(url, subprotocol=subprotocol, link_code=code, device=device,
                         message_filter=NewPlayerKeeper(url, players))
    try:
        await client.start()
    finally:
        await client.close()
    console.say(f"you are {client.name} ({client.player_id}) on {server_key(url)}, this terminal linked as "
                f"{device!r}, kept in {players.path(url)}")
    return 0


async def devices(url: str, action: str, device_id: str | None, identity: Identity, subprotocol: str,
                  console: Console) -> int:
    """``action``: list, link, revoke (``device_id``) or rotate."""
    if identity.token(url) is None:
        console.say(f"error: arena devices needs {YOUR_PLAYER}")
        return EXIT_USAGE
    async with signed_in(url, identity, subprotocol=subprotocol, create=False) as client:
        if action == "link":
            code = await client.link_device()
            console.say(f"link code {code.code}, valid until {_when(code.expires)}: on the other device, "
                        f"arena login{server_flag(url)} --code {code.code}")
        elif action == "revoke" and device_id is not None:
            own = any(entry.current and entry.device_id == device_id for entry in await client.devices())
            await client.revoke_device(device_id)
            console.say(f"revoked {device_id}" + (
                f"; it was this terminal's: arena logout{server_flag(url)} forgets its token" if own else ""))
        elif action == "rotate":
            token = await client.rotate_token()
            _rotated(url, identity, client, token, console)
        else:
            for line in device_lines(await client.devices()):
                console.say(line)
    return 0


def _rotated(url: str, identity: Identity, client: ArenaClient, token: str, console: Console) -> None:
    kept = identity.kept(url)
    if kept is not None and identity.players is not None:
        identity.players.replace(KeptPlayer(kept.server, token, kept.player_id, client.name or kept.name))
        console.say(f"a new token for this terminal, kept in {identity.players.path(url)}; the old one no longer works")
    else:
        console.say(f"your new token (the old one no longer works): --token={token}")


def register(subparsers: Subcommands, connection_flags: ParserFlags, identity: Callable[[argparse.Namespace], Identity],
             subprotocol: Callable[[argparse.Namespace], str]) -> None:
    """Add ``arena devices``; ``connection_flags``, ``identity`` and
    ``subprotocol`` are the other commands' (``client.commands``)."""
    parser = subparsers.add_parser(
        "devices", help="your devices: list, link another, revoke one, rotate this one's token",
        description="Without an action, list your devices (* marks this terminal's).",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.add_parser(
        "link", help="a one-time code to type on another device (arena login --code CODE there)",
        description="Print a one-time code, valid 10 minutes, that makes another device this same player: type "
        "arena login --code CODE there (or enter it in the web client's Link a device).",
    )
    revoke = actions.add_parser(
        "revoke", help="revoke a device: its token stops working, its connections close",
        description="Revoke one of your devices: its token stops working on every server process at once and its "
        "open connections close.",
    )
    revoke.add_argument("device_id", metavar="ID", help="a device id from arena devices")
    actions.add_parser(
        "rotate", help="a new token for this terminal's device; the old one stops working",
        description="Replace this terminal's token with a new one and keep it; the old token stops working.",
    )
    for each in (parser, *actions.choices.values()):
        each.add_argument("--token", default=os.environ.get("ARENA_TOKEN"), help="act as this player")
        connection_flags(each)

    def handle(args: argparse.Namespace) -> int:
        action = args.action or "list"
        return run(lambda console: devices(args.server, action, getattr(args, "device_id", None), identity(args),
                                           subprotocol(args), console))

    parser.set_defaults(handler=handle)
