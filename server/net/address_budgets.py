"""Requests that cost the server far more than a move, counted per client
address on top of the message rate.

The message rate counts per connection (``rate_per_second``), so an
address holding its ``connections_per_address`` connections may send a
thousand messages a second.  Two kinds of request cost too much for that
(``python bench/request_costs.py``, SQLite, a move being about 0.1 ms):

- Reads of many stored records: a friends' board (11 ms for a player with
  a hundred friends), a friend list (5 ms), a leaderboard, the day's
  stats, a league's board.  ``reads_burst`` at once, ``reads_per_second``
  after that; past it ``reads_limited``.  A browser's lobby asks for about
  ten at once, and a few a minute after that.
- Starts: a new game (1.3 to 1.9 ms, and a game the store keeps for
  ``unplayed_retention_seconds`` once it is abandoned unplayed), a race,
  a rematch.
  ``new_games_burst`` at once, ``new_games_per_minute`` after that; past
  it ``starts_limited``.  A player dealing again and again stays far
  below it.

A refused request did nothing; its message says how many seconds to wait.
"""

from __future__ import annotations

import math
from typing import Any, Awaitable, Callable

from protocol import ErrorCode
from protocol import friends as pf
from protocol import leagues as pl
from protocol import to_server as ts
from server.model.refusal import Refusal
from server.net.peer import Peer
from server.net.ratelimit import BucketTable
from server.runtime.settings import Settings

Handler = Callable[[Peer, Any], Awaitable[None]]

READS: frozenset[type[Any]] = frozenset({
    ts.ListGames, ts.Records, ts.Daily, ts.Leaderboard, ts.Stats, ts.ListRaces, ts.FriendsBoard, ts.FriendsPresence,
    pf.Friends, pf.Notifications, pl.Leagues, pl.LeagueBoard, pl.LeagueStandings,
})
"""The requests that read many records, whatever part answers them."""

STARTS: frozenset[type[Any]] = frozenset({ts.NewGame, ts.CreateRace, ts.Rematch})
"""The requests that make a game or a race."""


def budget_by_address(handlers: dict[type[Any], Handler], settings: Settings, monotonic: Callable[[], float]) -> None:
    """Put the handler of each request of ``READS`` and of ``STARTS`` behind
    its client address's budget of that kind; the others are left as they are."""
    now = monotonic()
    reads = BucketTable(settings.reads_burst, settings.reads_per_second, now)
    starts = BucketTable(settings.new_games_burst, settings.new_games_per_minute / 60, now)

    def budgeted(handler: Handler, buckets: BucketTable, code: ErrorCode, what: str) -> Handler:
        async def counted(peer: Peer, message: Any) -> None:
            wait = buckets.take(peer.address, monotonic())
            if wait is not None:
                raise Refusal(code, f"this address {what} ({buckets.capacity:g} at once); ask again in {math.ceil(wait)} s")
            await handler(peer, message)

        return counted

    read_limit = f"asks for lists and boards more than {settings.reads_per_second:g} times a second"
    start_limit = f"starts more than {settings.new_games_per_minute:g} games and races a minute"
    for kind in READS & handlers.keys():
        handlers[kind] = budgeted(handlers[kind], reads, ErrorCode.READS_LIMITED, read_limit)
    for kind in STARTS & handlers.keys():
        handlers[kind] = budgeted(handlers[kind], starts, ErrorCode.STARTS_LIMITED, start_limit)
