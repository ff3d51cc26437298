"""Error codes: the stable names clients switch on.

A code never changes meaning once published; new situations get new
codes.  Each code carries the sentence that documents it (``docs/protocol.md``
is checked against this table), so the list and its documentation cannot
drift apart.  Engine refusals keep their family code here (``illegal_move``,
``unavailable`` …) and put the engine's specific code in the error's
``reason`` field (``not_alternating``, ``nothing_to_undo`` …).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Self


class DescribedCode(StrEnum):
    """Stable codes, each member written as ``(value, the sentence that
    documents it)``: the WebSocket's error codes here, the HTTP API's in
    ``protocol.http_api``."""

    description: str

    # ``description`` has a default only for the checker: mypy reads a
    # lookup by value, ``ErrorCode("bad_token")``, as a call of ``__new__``,
    # which at run time only the member definitions reach.
    def __new__(cls, value: str, description: str = "") -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.description = description
        return member


class ErrorCode(DescribedCode):
    """Every value of an ``error`` message's ``code``."""

    BAD_MESSAGE = (
        "bad_message",
        "The frame is not a message: it does not decode, its type is unknown, or a field is "
        "missing, extra or of the wrong type. Nothing happened; the connection stays open.",
    )
    HELLO_REQUIRED = (
        "hello_required",
        "Starting or playing a game needs an identity: send hello first.",
    )
    BAD_TOKEN = (
        "bad_token",
        "The token given in hello belongs to no player. Send hello without a token for a new identity.",
    )
    UNKNOWN_GAME = (
        "unknown_game",
        "new_game names a game that does not exist; the sentence lists the games.",
    )
    BAD_OPTION = (
        "bad_option",
        "An option name or value, or the deal number, is not accepted; the sentence lists the choices.",
    )
    BAD_NOTATION = (
        "bad_notation",
        "The move text (or practice position) does not parse in this game's notation.",
    )
    ILLEGAL_MOVE = (
        "illegal_move",
        "A well-formed move that the rules refuse here; reason names the rule (e.g. not_alternating). "
        "The game is unchanged.",
    )
    UNAVAILABLE = (
        "unavailable",
        "Undo, redo, hint, finish, analyse, a daily practice game, an option that moves cards by itself where a "
        "result ranks, or a daily race's start while every racer still plays their ranked attempt refused; reason "
        "says why (nothing_to_undo, "
        "nothing_to_redo, undo_limit, hint_limit, assist_disabled, finish_not_offered, halves_unrepaired, "
        "no_finish_path, game_live, deal_secret, analysis_busy, hint_rate, replay_rate, ranked, ranked_first; "
        "worker_stopped: the process searching for a hint, a finish, an analysis or a daily deal stopped during the "
        "request, killed or out of memory, and nothing changed: try again); a share text refused (attempt_running: your ranked attempt "
        "at that daily is still being played; not_played: you have no ended ranked attempt at it).",
    )
    GAME_NOT_FOUND = (
        "game_not_found",
        "No game has this id (it never existed, or it finished longer ago than the retention time).",
    )
    FORBIDDEN = (
        "forbidden",
        "You may not do this: only a game's owner acts on it, a connection says hello once and "
        "watches at most watch_limit games (and follows at most watch_limit races), practice positions are off unless the server allows them, "
        "only a race's host starts it, only its racers ask for a rematch, a racer may not watch a rival's "
        "board while the race runs, and a future daily deal is secret.",
    )
    PLAYER_NOT_FOUND = (
        "player_not_found",
        "No player has this id (records are asked for by the player_id that welcome and game lists show).",
    )
    GAME_FINISHED = (
        "game_finished",
        "The game is over (won, lost without undo, resigned or abandoned); it accepts no more actions.",
    )
    STATE_CONFLICT = (
        "state_conflict",
        "Another server process changed this game first; your action was not applied and a fresh "
        "snapshot with the true state precedes this error.",
    )
    STALE_STATE = (
        "stale_state",
        "The action's seq is not the game's current seq: it was made against an older state (an action "
        "from another tab or a retried one came first) or a state the game never reached. Nothing was "
        "done; the sentence names the current seq. The diffs you lack precede this error when you watch "
        "the game; otherwise send resync, then decide again.",
    )
    RACE_NOT_FOUND = (
        "race_not_found",
        "No race has this invite code or race id (check the code: it has 8 characters, "
        "without 0, 1, I, L or O), or the race is older than the retention time.",
    )
    INVITE_EXPIRED = (
        "invite_expired",
        "The invite code was right but has expired (race_invite_seconds after the race was created); "
        "ask the host for a new race.",
    )
    RACE_FULL = (
        "race_full",
        "The race already has race_limit racers.",
    )
    RACE_STATE = (
        "race_state",
        "The race is not at the stage this needs: joining or starting after the start, playing or watching "
        "a race game before the countdown ends, a rematch before the end, or acting in a race that is over. "
        "Nothing changed; the sentence says when it will be possible, if ever.",
    )
    RATE_LIMITED = (
        "rate_limited",
        "Too many messages: this one was dropped unread (so the error has no id). Keep sending this "
        "fast and the server closes the connection with 1008.",
    )
    READS_LIMITED = (
        "reads_limited",
        "Your address asked for lists and boards (list_games, leaderboard, records, daily, stats, list_races, "
        "friends, notifications, friends_board, friends_presence, leagues, league_board, league_standings) "
        "faster than reads_per_second (reads_burst at once). Nothing was done; the message says how many "
        "seconds to wait.",
    )
    STARTS_LIMITED = (
        "starts_limited",
        "Your address started games and races (new_game, create_race, rematch) faster than new_games_per_minute "
        "(new_games_burst at once). Nothing was started; the message says how many seconds to wait.",
    )
    TOO_MANY_CONNECTIONS = (
        "too_many_connections",
        "Your address already holds connections_per_address open connections, so the WebSocket handshake "
        "was refused with HTTP 429 and this error as its JSON body. Close a connection, then connect again.",
    )
    COOLING_DOWN = (
        "cooling_down",
        "A connection from your address was closed for abuse (1008) less than abuse_cooldown_seconds ago, your "
        "address opens WebSocket connections faster than connection_rate_per_second, or TCP connections faster "
        "than tcp_connection_rate_per_second: the handshake (or the request) was refused with HTTP 429 and this "
        "error as its JSON body. After abuse or a TCP flood, further connections until Retry-After has passed are "
        "reset unanswered (after abuse, dropped: they get no answer at all). Wait that long, then connect again.",
    )
    TOO_MANY_IDENTITIES = (
        "too_many_identities",
        "hello without a token was refused: your address has created identities_per_hour new players this "
        "hour. Say hello with a token you already have, or try again later; the connection stays open.",
    )
    BAD_LINK_CODE = (
        "bad_link_code",
        "The link_code in hello is wrong, already used or expired: one answer for all three, so a guess learns "
        "nothing. Ask the other device for a new code (link_device); each try counts against the address's "
        "hourly allowance of tries.",
    )
    TOO_MANY_ATTEMPTS = (
        "too_many_attempts",
        "Too many link codes tried from this client address, or asked for by this player, within the hour "
        "(link_redeems_per_hour, link_codes_per_hour); the message says when to try again.",
    )
    TOO_MANY_DEVICES = (
        "too_many_devices",
        "The player has max_devices devices already, so no code is given (link_device) or redeemed (hello): "
        "revoke one first (revoke_device).",
    )
    DEVICE_NOT_FOUND = (
        "device_not_found",
        "revoke_device names no device of yours (it was revoked already, or is another player's), or this "
        "connection's own device was revoked before rotate_token.",
    )
    STORAGE_UNAVAILABLE = (
        "storage_unavailable",
        "The server could not reach its storage, or the storage refused to write (full, read-only), so "
        "the action was not acknowledged and the game "
        "shows no change. Rarely the store kept it anyway: your next action (state_conflict) or a "
        "resync shows the true state. Try again shortly.",
    )
    SHUTTING_DOWN = (
        "shutting_down",
        "The server is stopping and accepts no new actions; reconnect (with your token) in a moment.",
    )
    INTERNAL_ERROR = (
        "internal_error",
        "The server failed unexpectedly while handling this message; the game is unchanged.",
    )
    FRIEND_CODE_UNKNOWN = (
        "friend_code_unknown",
        "No player has this friend code: a mistyped code, your own code and a code its player reissued all "
        "get this same answer.",
    )
    LOOKUPS_LIMITED = (
        "lookups_limited",
        "Too many friend codes that named nobody: friend_lookup_failures_per_hour from your player, or "
        "friend_lookup_failures_per_address from your address, in the last hour. Try again later; "
        "the sentence says when.",
    )
    FRIEND_LIMIT = (
        "friend_limit",
        "A friends limit is reached; reason names it: requests_per_hour (friend_requests_per_hour), "
        "friends (friends_limit), pending (friend_pending_limit: requests you sent that wait) or blocks "
        "(friend_block_limit). Nothing changed.",
    )
    NOT_FRIENDS = (
        "not_friends",
        "There is no such link with this player: a challenge needs a friend, accept and decline need a "
        "request from them, unblock needs a block. An unknown player id reads the same.",
    )
    FRIEND_OFFLINE = (
        "friend_offline",
        "The friend you challenged is not connected; challenge them when they are.",
    )
    CHALLENGE_NOT_FOUND = (
        "challenge_not_found",
        "You have no challenge with this id: it was never yours, or it was already answered.",
    )
    CHALLENGE_EXPIRED = (
        "challenge_expired",
        "The challenge is older than challenge_seconds; ask your friend for a new one.",
    )
    LEAGUE_NOT_FOUND = (
        "league_not_found",
        "You are in no league with this id: an unknown id, a league you are not in (or were removed from) "
        "and a league that no longer exists all get this same answer.",
    )
    LEAGUE_CODE_UNKNOWN = (
        "league_code_unknown",
        "No league has this invite code: a mistyped code, a code its league re-issued, and a league whose "
        "owner blocked you all get this same answer.",
    )
    LEAGUE_LOOKUPS_LIMITED = (
        "league_lookups_limited",
        "Too many league invite codes that named no league: league_lookup_failures_per_hour from your "
        "player, or league_lookup_failures_per_address from your address, in the last hour. Every join by "
        "code is refused until then, right or wrong.",
    )
    LEAGUE_LIMIT = (
        "league_limit",
        "A leagues limit is reached; reason names it: leagues (leagues_per_player: leagues you own or "
        "joined) or members (league_members_limit). Nothing changed.",
    )
    NOT_LEAGUE_OWNER = (
        "not_league_owner",
        "Only the league's owner may re-issue its invite code or remove a member; removing names a member "
        "of the league other than yourself (leave_league leaves).",
    )
    GHOST_UNAVAILABLE = (
        "ghost_unavailable",
        "race_ghost was refused; reason says why: attempt_required (game_id is not your ranked daily attempt in "
        "progress: ghosts are raced only during it), not_raceable (the player is not your friend nor in a league of yours, and not the day's "
        "leader you asked for; an unknown player id reads the same), not_finished (their attempt at that daily has "
        "not ended, or there is none), no_leader (the day's public board has no win yet), ghost_limit (ghost_limit "
        "ghosts for this attempt already). Nothing changed.",
    )
