"""Solitaire Arena's Python client: an asyncio library, a terminal client
(``arena play``, ``arena watch``, ``arena race``, ``arena leaderboard``,
``arena daily``) and the browser client's files (``web/``).

The library in four lines::

    from client import ArenaClient

    async with ArenaClient("ws://127.0.0.1:8765/ws") as client:
        game = await client.new_game("klondike", deal="daily")
        await client.move(game.game_id, "draw")

``ArenaClient`` (``client.connection``) reconnects by itself
(``client.backoff``), correlates requests and replies (``client.link``),
offers every request as a method (``client.requests``), raises
``ArenaError`` subclasses with the server's codes (``client.errors``),
and mirrors watched games (``client.mirror``) and followed races
(``client.race_mirror``).  ``docs/client.md`` has the guide.
"""

from __future__ import annotations

from .backoff import NO_RECONNECT, Backoff
from .connection import DEFAULT_URL, ArenaClient, ClientState, RaceDeal, connect_client
from .errors import (
    ArenaError,
    BadMessage,
    BadNotation,
    BadOption,
    BadToken,
    CannotConnect,
    ClientClosed,
    ClientError,
    ConnectionLost,
    CoolingDown,
    DealSecret,
    Forbidden,
    GameFinished,
    GameNotFound,
    PlayerNotFound,
    HelloRequired,
    IllegalMove,
    InternalError,
    InviteExpired,
    ProtocolMismatch,
    RaceFull,
    RaceNotFound,
    RaceState,
    RateLimited,
    RequestTimeout,
    ShuttingDown,
    StaleState,
    StateConflict,
    StorageUnavailable,
    TooManyConnections,
    TooManyIdentities,
    Unavailable,
    UnknownGame,
    ChallengeExpired,
    ChallengeNotFound,
    GhostUnavailable,
    LeagueNotFound,
    LeagueCodeUnknown,
    LeagueLookupsLimited,
    LeagueLimit,
    NotLeagueOwner,
    FriendCodeUnknown,
    FriendLimit,
    FriendOffline,
    LookupsLimited,
    NotFriends,
)
from .feed import Updates
from .mirror import GameMirror, Update
from .race_mirror import RaceMirror, RaceUpdate

__all__ = [
    "DEFAULT_URL",
    "NO_RECONNECT",
    "ArenaClient",
    "ArenaError",
    "Backoff",
    "BadMessage",
    "BadNotation",
    "BadOption",
    "BadToken",
    "CannotConnect",
    "ClientClosed",
    "ClientError",
    "ClientState",
    "ConnectionLost",
    "CoolingDown",
    "DealSecret",
    "Forbidden",
    "GameFinished",
    "GameMirror",
    "GameNotFound",
    "PlayerNotFound",
    "HelloRequired",
    "IllegalMove",
    "InternalError",
    "InviteExpired",
    "ProtocolMismatch",
    "RaceDeal",
    "RaceFull",
    "RaceNotFound",
    "RaceMirror",
    "RaceState",
    "RaceUpdate",
    "RateLimited",
    "RequestTimeout",
    "ShuttingDown",
    "StaleState",
    "StateConflict",
    "StorageUnavailable",
    "TooManyConnections",
    "TooManyIdentities",
    "Unavailable",
    "UnknownGame",
    "Update",
    "Updates",
    "connect_client",
    "ChallengeExpired",
    "ChallengeNotFound",
    "FriendCodeUnknown",
    "FriendLimit",
    "FriendOffline",
    "LookupsLimited",
    "NotFriends",
    "GhostUnavailable",
    "LeagueNotFound",
    "LeagueCodeUnknown",
    "LeagueLookupsLimited",
    "LeagueLimit",
    "NotLeagueOwner",
]
