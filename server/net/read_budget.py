"""Requests that read many stored records at once, counted per client address.

A friends' board, a friend list, a leaderboard, the day's stats, a
league's board: each reads dozens to hundreds of records, up to 11 ms of
the server's time on SQLite for a player with a hundred friends, where a
move costs a tenth of a millisecond (``python bench/request_costs.py
--store sqlite``).  The message rate is per connection
(``rate_per_second``), so an address holding ``connections_per_address``
connections could ask for a thousand of them a second, ten cores' worth.
These requests therefore also draw on a budget of their client
address's, ``reads_burst`` at once and ``reads_per_second`` after that.
Past it a request is refused (``reads_limited``, saying how many seconds
to wait) and nothing else is affected.  A browser's lobby asks for about
ten at once, and a few a minute after that.
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


def budget_reads(handlers: dict[type[Any], Handler], settings: Settings, monotonic: Callable[[], float]) -> None:
    """Put the handler of each request of ``READS`` behind its client
    address's budget; the other handlers are left as they are."""
    buckets = BucketTable(settings.reads_burst, settings.reads_per_second, monotonic())

    def budgeted(handler: Handler) -> Handler:
        async def read(peer: Peer, message: Any) -> None:
            wait = buckets.take(peer.address, monotonic())
            if wait is not None:
                raise Refusal(
                    ErrorCode.READS_LIMITED,
                    f"this address asks for lists and boards more than {settings.reads_per_second:g} times a second "
                    f"({settings.reads_burst} at once); ask again in {math.ceil(wait)} s",
                )
            await handler(peer, message)

        return read

    for kind in READS & handlers.keys():
        handlers[kind] = budgeted(handlers[kind])
