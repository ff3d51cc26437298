"""``arena leaderboard``, ``arena daily`` and ``arena records``: the day's
standings and deals, and a player's records.

Each is one request and a printout.  ``--token`` (or ``ARENA_TOKEN``)
makes ``leaderboard`` show your own entry (``--around-me`` centres the
page on it); without a token the client does not say ``hello``, so it
needs no identity and creates none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from protocol.to_server import OptionValue

from .connection import ArenaClient
from .race_text import daily_lines, leaderboard_lines, records_lines
from .reveal import reveal_problems, verdict
from .terminal import Console


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
    token: str | None = None
    subprotocol: str = "arena.v1.msgpack"


async def leaderboard(request: LeaderboardRequest, console: Console) -> int:
    """Print one page of a day's leaderboard; the exit code."""
    async with ArenaClient(
        request.url, subprotocol=request.subprotocol, token=request.token, identify=request.token is not None
    ) as client:
        page = await client.leaderboard(
            request.game, request.options, request.day,
            offset=request.offset, limit=request.limit, around_me=request.around_me,
        )
    for line in leaderboard_lines(page):
        console.say(line)
    return 0


async def daily(
    url: str, day: date | None, game: str | None, subprotocol: str, console: Console, verify: bool = False
) -> int:
    """Print a day's daily deals: commitments, or deals once revealed (a
    server that has just started and is still proving some of today's is
    asked again when it says they will be ready).  With ``verify``, check each revealed deal (``client.reveal``): exit
    status 1 if any fails or is not revealed yet, or the day has none."""
    async with ArenaClient(url, subprotocol=subprotocol, identify=False) as client:
        info = await client.daily(day, game, ready=True)
    for line in daily_lines(info):
        console.say(line)
    if not verify:
        return 0
    failed = 0
    for deal in info.deals:
        problems = reveal_problems(deal)
        failed += bool(problems)
        console.say(f"{deal.title} {deal.variant}: {verdict(problems)}")
    return 1 if failed or not info.deals else 0


async def records(url: str, player_id: str | None, token: str | None, subprotocol: str, console: Console) -> int:
    """Print a player's records: yours with ``token``, anyone's by ``player_id``."""
    async with ArenaClient(url, subprotocol=subprotocol, token=token, identify=token is not None) as client:
        reply = await client.records(player_id)
    for line in records_lines(reply):
        console.say(line)
    return 0
