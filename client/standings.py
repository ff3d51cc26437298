"""``arena leaderboard``, ``arena daily`` and ``arena records``: the day's
standings and deals, and a player's records.

Each is one request and a printout.  ``--token`` (or ``ARENA_TOKEN``, or
the player kept for the server: ``client.identity``) makes ``leaderboard``
show your own entry (``--around-me`` centres the page on it) and
``records`` your own records; without a token the client does not say
``hello``, so it needs no identity and creates none.  ``daily`` keeps every commitment it
is shown (``client.commitments``) and says so when a server shows another
one for a deal it kept; ``daily --verify`` checks each reveal against
them and replays the day's first ranked attempt (``client.reveal``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import date

from protocol import to_client as tc
from protocol.to_server import OptionValue

from .commitments import Commitments, CommitmentsUnreadable, Seen
from .connection import ArenaClient
from .errors import ArenaError
from .identity import Identity, signed_in
from .race_text import daily_lines, friends_board_lines, leaderboard_lines, records_lines
from .reveal import first_board_problems, history_problems, reveal_problems, verdict
from .console import Console
from .terminal import EXIT_FAILURE, EXIT_USAGE

YOUR_TOKEN = "--token (or ARENA_TOKEN, or a player kept for this server by arena play or arena login)"


@dataclass
class LeaderboardRequest:
    """What ``arena leaderboard`` was asked for."""

    url: str
    game: str
    options: dict[str, OptionValue] = field(default_factory=dict)
    day: date | None = None
    offset: int = 0
    limit: int = 10
    around_me: bool = False
    playing: bool = False
    friends: bool = False
    identity: Identity = field(default_factory=Identity)
    subprotocol: str = "arena.v1.msgpack"


async def leaderboard(request: LeaderboardRequest, console: Console) -> int:
    """Print one page of a day's leaderboard; the exit code."""
    if request.around_me and request.identity.token(request.url) is None:
        console.say(f"error: --around-me needs {YOUR_TOKEN}: the page is centred on your entry")
        return EXIT_USAGE
    if request.friends:
        return await _friends_board(request, console)
    async with signed_in(request.url, request.identity, subprotocol=request.subprotocol, create=False) as client:
        page = await client.leaderboard(
            request.game, request.options, request.day,
            offset=request.offset, limit=request.limit, around_me=request.around_me, playing=request.playing,
        )
    for line in leaderboard_lines(page):
        console.say(line)
    return 0


async def _friends_board(request: LeaderboardRequest, console: Console) -> int:
    """Print the friends' board instead of the public one."""
    if request.identity.token(request.url) is None:
        console.say(f"error: --friends needs {YOUR_TOKEN}: the board is yours and your friends'")
        return EXIT_USAGE
    async with signed_in(request.url, request.identity, subprotocol=request.subprotocol, create=False) as client:
        reply = await client.friends_board(request.game, request.options, request.day, watch=False)
    for line in friends_board_lines(reply):
        console.say(line)
    return 0


async def daily(
    url: str, day: date | None, game: str | None, subprotocol: str, console: Console, verify: bool = False
) -> int:
    """Print a day's daily deals: commitments, or deals once revealed (a
    server that has just started and is still proving some of today's is
    asked again when it says they will be ready); keep the commitments
    shown.  With ``verify``, check each revealed deal (``client.reveal``):
    exit status 1 if any fails or is not revealed yet, or the day has none."""
    try:
        kept = Commitments.of_server(url)
    except (CommitmentsUnreadable, OSError) as error:
        console.say(f"error: the kept commitments cannot be read: {error}")
        return EXIT_FAILURE
    async with ArenaClient(url, subprotocol=subprotocol, identify=False) as client:
        info = await client.daily(day, game, ready=True)
        boards = {
            deal.first_game: await _first_board(client, deal.first_game)
            for deal in info.deals
            if verify and deal.first_game is not None
        }
    before = [kept.get(deal) for deal in info.deals]
    for line in daily_lines(info):
        console.say(line)
    for deal, seen in zip(info.deals, before):
        if seen is not None and seen.commitment != deal.commitment and not verify:
            console.say(f"warning: {deal.title} {deal.variant}: {history_problems(deal, seen)[0]}")
    if kept.see(info.deals, time.time_ns() // 1_000_000):
        try:
            kept.save()
        except OSError as error:
            console.say(f"warning: the commitments shown could not be kept in {kept.path}: {error}")
    if not verify:
        return 0
    failed = 0
    for deal, seen in zip(info.deals, before):
        board = boards.get(deal.first_game) if deal.first_game is not None else None
        problems, notes = _checked(deal, seen, board)
        failed += bool(problems)
        console.say(f"{deal.title} {deal.variant}: {verdict(problems)}")
        for note in notes:
            console.say(f"  note: {note}")
    return 1 if failed or not info.deals else 0


async def _first_board(client: ArenaClient, game_id: str) -> tc.Snapshot | str:
    """The first board of ``game_id`` as the server replays it, or why not."""
    try:
        return (await client.replay(game_id)).start
    except ArenaError as error:
        return error.message


def _checked(deal: tc.DailyDeal, seen: Seen | None, board: tc.Snapshot | str | None) -> tuple[list[str], list[str]]:
    """A deal's problems, and what could not be checked (notes, no failure)."""
    problems = reveal_problems(deal)
    if deal.seed is None:
        return problems, []
    problems += history_problems(deal, seen)
    if board is None:
        return problems, ["nobody played it ranked: no first board to compare with the layout"]
    if isinstance(board, str):
        return problems, [f"the first ranked attempt {deal.first_game} could not be replayed: {board}"]
    return problems + first_board_problems(deal, board), []


async def records(url: str, player_id: str | None, identity: Identity, subprotocol: str, console: Console) -> int:
    """Print a player's records: yours as ``identity``, anyone's by ``player_id``."""
    if player_id is None and identity.token(url) is None:
        console.say(f"error: arena records needs {YOUR_TOKEN} for your own records, or --player PLAYER_ID")
        return EXIT_USAGE
    async with signed_in(url, identity, subprotocol=subprotocol, create=False) as client:
        reply = await client.records(player_id)
    for line in records_lines(reply):
        console.say(line)
    return 0
