"""What the client library raises.

Two trees under one root, ``ClientError``, because callers react to them
differently:

- ``ArenaError``: the server refused a request and said why.  ``code`` is
  the server's stable error code (``protocol.ErrorCode``), ``message`` the
  sentence for people, ``reason`` the engine's specific code where there
  is one (``not_alternating``, ``nothing_to_undo`` …).  Nothing changed on
  the server.  Each code has its own subclass, so ``except IllegalMove``
  reads like the rule it handles; a code this library does not know (a
  newer server) still raises ``ArenaError`` with the code preserved.
- Transport trouble: ``ConnectionLost`` (the connection dropped while a
  request was in flight: the request may or may not have been applied,
  so look at the game's mirror before retrying), ``RequestTimeout`` and
  ``ClientClosed``.

Example::

    try:
        await client.move(game_id, "t3-t5")
    except IllegalMove as refusal:
        print(refusal.message, refusal.reason)
    except ArenaError as refusal:
        print("refused:", refusal.code)
"""

from __future__ import annotations

from protocol import ErrorCode
from protocol import to_client as tc

from .board import counted


class ClientError(Exception):
    """Root of everything this library raises on purpose."""


class ArenaError(ClientError):
    """The server refused a request; nothing changed.  See the module docstring."""

    def __init__(self, code: str, message: str, reason: str | None = None, game_id: str | None = None) -> None:
        detail = f"{code}, {reason}" if reason and reason != code else code
        super().__init__(f"{message} ({detail})")
        self.code = code
        self.message = message
        self.reason = reason
        self.game_id = game_id


class BadMessage(ArenaError):
    """The server could not read a frame this client sent (a client bug)."""


class HelloRequired(ArenaError):
    """Playing needs an identity; connect with ``identify=True``."""


class BadToken(ArenaError):
    """The token belongs to no player on this server."""


class UnknownGame(ArenaError):
    """``new_game`` named a game the server does not have."""


class BadOption(ArenaError):
    """An option or a deal number was not accepted."""


class BadNotation(ArenaError):
    """The move text does not parse in this game's notation."""


class IllegalMove(ArenaError):
    """A well-formed move the rules refuse here; ``reason`` names the rule."""


class Unavailable(ArenaError):
    """Undo, redo, hint, finish, analyse, a daily practice game, an
    automatic option where a result ranks or a blocked race start refused;
    ``reason`` says why."""


class GameNotFound(ArenaError):
    """No game has this id (any more)."""


class Forbidden(ArenaError):
    """Only a game's owner acts on it (and a few other rules of the server)."""


class PlayerNotFound(ArenaError):
    """No player has this id (asking for someone's records)."""


class GameFinished(ArenaError):
    """The game is over and accepts no more actions."""


class StateConflict(ArenaError):
    """Another server process changed the game first; the mirror already
    holds the true state (a snapshot came before this error)."""


class StaleState(ArenaError):
    """The request was made against a state the game has left (another
    tab acted first, or this is a retry of an action that was applied):
    nothing was done, and the mirror already shows the newer state.
    Look again, then decide."""


class RaceNotFound(ArenaError):
    """No race has this invite code or race id (or it is too old)."""


class InviteExpired(ArenaError):
    """The invite code was right but ran out; ask the host for a new race."""


class RaceFull(ArenaError):
    """The race already has as many racers as the server allows."""


class RaceState(ArenaError):
    """The race is not at the stage this needs (joining after the start,
    moving before the countdown ends, a rematch before the end …); the
    message says when it will be possible, if ever."""


class RateLimited(ArenaError):
    """The server dropped the request unread: too many messages."""


class TooManyConnections(ArenaError):
    """The server refused the handshake: your address holds as many open
    connections as it allows.  Close one (``CannotConnect.refusal``)."""


class CoolingDown(ArenaError):
    """The server refused the handshake: a connection from your address was
    closed for abuse a moment ago, or your address opens connections too
    fast (``CannotConnect.refusal``).  Wait the sentence's seconds: until
    then the server resets further connections unanswered."""


class TooManyIdentities(ArenaError):
    """``hello`` without a token was refused: your address made as many new
    players this hour as the server allows; keep and reuse your token."""


class BadLinkCode(ArenaError):
    """The link code is wrong, used or expired (one answer for all three)."""


class TooManyAttempts(ArenaError):
    """Too many link codes tried from this address, or asked for by this player, this hour."""


class TooManyDevices(ArenaError):
    """The player has as many devices as the server allows; revoke one first."""


class DeviceNotFound(ArenaError):
    """No device of yours has this id (or this connection's device was revoked)."""


class StorageUnavailable(ArenaError):
    """The server cannot reach its storage; try again shortly."""


class ShuttingDown(ArenaError):
    """The server is stopping; the client reconnects by itself, then retry."""


class InternalError(ArenaError):
    """The server failed unexpectedly; the game is unchanged."""


class FriendCodeUnknown(ArenaError):
    """No player has this friend code (mistyped, your own, or reissued: one answer)."""


class LookupsLimited(ArenaError):
    """Too many friend codes that named nobody, from your player or address, this hour."""


class FriendLimit(ArenaError):
    """A friends limit is reached; ``reason`` names it (requests_per_hour, friends, pending, blocks)."""


class NotFriends(ArenaError):
    """No such link with this player (a challenge needs a friend; accept a request)."""


class FriendOffline(ArenaError):
    """The friend you challenged is not connected."""


class ChallengeNotFound(ArenaError):
    """You have no such challenge (never yours, or already answered)."""


class ChallengeExpired(ArenaError):
    """The challenge is older than the server's challenge_seconds."""


class GhostUnavailable(ArenaError):
    """``race_ghost`` refused; ``reason`` says why (attempt_required, not_raceable, not_finished, no_leader, ghost_limit)."""


class LeagueNotFound(ArenaError):
    """You are in no league with this id (unknown, left, removed or gone: one answer)."""


class LeagueCodeUnknown(ArenaError):
    """No league has this invite code (mistyped, re-issued, or its owner blocked you)."""


class LeagueLookupsLimited(ArenaError):
    """Too many invite codes that named no league this hour; every join by code waits."""


class ReadsLimited(ArenaError):
    """This address asks for lists and boards too fast; wait the seconds the message says."""


class StartsLimited(ArenaError):
    """This address starts games and races too fast; wait the seconds the message says."""


class LeagueLimit(ArenaError):
    """A leagues limit is reached; ``reason`` is leagues or members."""


class NotLeagueOwner(ArenaError):
    """Only the league's owner re-issues its code or removes a member."""


ERROR_CLASSES: dict[str, type[ArenaError]] = {
    ErrorCode.BAD_MESSAGE: BadMessage,
    ErrorCode.HELLO_REQUIRED: HelloRequired,
    ErrorCode.BAD_TOKEN: BadToken,
    ErrorCode.UNKNOWN_GAME: UnknownGame,
    ErrorCode.BAD_OPTION: BadOption,
    ErrorCode.BAD_NOTATION: BadNotation,
    ErrorCode.ILLEGAL_MOVE: IllegalMove,
    ErrorCode.UNAVAILABLE: Unavailable,
    ErrorCode.GAME_NOT_FOUND: GameNotFound,
    ErrorCode.FORBIDDEN: Forbidden,
    ErrorCode.PLAYER_NOT_FOUND: PlayerNotFound,
    ErrorCode.GAME_FINISHED: GameFinished,
    ErrorCode.STATE_CONFLICT: StateConflict,
    ErrorCode.STALE_STATE: StaleState,
    ErrorCode.RACE_NOT_FOUND: RaceNotFound,
    ErrorCode.INVITE_EXPIRED: InviteExpired,
    ErrorCode.RACE_FULL: RaceFull,
    ErrorCode.RACE_STATE: RaceState,
    ErrorCode.RATE_LIMITED: RateLimited,
    ErrorCode.READS_LIMITED: ReadsLimited,
    ErrorCode.STARTS_LIMITED: StartsLimited,
    ErrorCode.TOO_MANY_CONNECTIONS: TooManyConnections,
    ErrorCode.COOLING_DOWN: CoolingDown,
    ErrorCode.TOO_MANY_IDENTITIES: TooManyIdentities,
    ErrorCode.BAD_LINK_CODE: BadLinkCode,
    ErrorCode.TOO_MANY_ATTEMPTS: TooManyAttempts,
    ErrorCode.TOO_MANY_DEVICES: TooManyDevices,
    ErrorCode.DEVICE_NOT_FOUND: DeviceNotFound,
    ErrorCode.STORAGE_UNAVAILABLE: StorageUnavailable,
    ErrorCode.SHUTTING_DOWN: ShuttingDown,
    ErrorCode.INTERNAL_ERROR: InternalError,
    ErrorCode.FRIEND_CODE_UNKNOWN: FriendCodeUnknown,
    ErrorCode.LOOKUPS_LIMITED: LookupsLimited,
    ErrorCode.FRIEND_LIMIT: FriendLimit,
    ErrorCode.NOT_FRIENDS: NotFriends,
    ErrorCode.FRIEND_OFFLINE: FriendOffline,
    ErrorCode.CHALLENGE_NOT_FOUND: ChallengeNotFound,
    ErrorCode.CHALLENGE_EXPIRED: ChallengeExpired,
    ErrorCode.GHOST_UNAVAILABLE: GhostUnavailable,
    ErrorCode.LEAGUE_NOT_FOUND: LeagueNotFound,
    ErrorCode.LEAGUE_CODE_UNKNOWN: LeagueCodeUnknown,
    ErrorCode.LEAGUE_LOOKUPS_LIMITED: LeagueLookupsLimited,
    ErrorCode.LEAGUE_LIMIT: LeagueLimit,
    ErrorCode.NOT_LEAGUE_OWNER: NotLeagueOwner,
}


def arena_error(code: str, message: str, reason: str | None = None, game_id: str | None = None) -> ArenaError:
    """The exception for an ``error`` message: its code's class, or the
    base class (code kept) for a code this library does not know."""
    return ERROR_CLASSES.get(str(code), ArenaError)(str(code), message, reason, game_id)


class ConnectionLost(ClientError, ConnectionError):
    """The connection dropped before the reply came.  A request that was
    sent may have been applied: check the game's mirror, which the client
    refreshes when it reconnects, before sending it again."""


class RequestTimeout(ClientError, TimeoutError):
    """No reply within the client's timeout."""


class ClientClosed(ClientError):
    """The client was closed (or gave up reconnecting); make a new one."""


class DealSecret(ClientError):
    """``watch`` of a game whose deal is still secret (a daily attempt
    before its day's reveal, a race game before the race ends) that is not
    yours: the server shows its progress, never its board.  ``progress``
    holds what it said."""

    def __init__(self, progress: tc.GameProgress) -> None:
        super().__init__(
            f"{progress.title} {progress.game_id} is played on a deal that is secret until its reveal: "
            f"{progress.status}, {counted(progress.cards_home, 'card')} home, {counted(progress.actions, 'action')}"
        )
        self.progress = progress


class ProtocolMismatch(ClientError):
    """The server replied with a message this library cannot read (a
    newer protocol); upgrade the client."""


class CannotConnect(ClientError, ConnectionError):
    """The server could not be reached (or refused the WebSocket handshake).
    ``refusal``: the server's reason when it refused the handshake with an
    error (``TooManyConnections``, ``CoolingDown``), else None."""

    def __init__(self, message: str, refusal: ArenaError | None = None) -> None:
        super().__init__(message)
        self.refusal = refusal
