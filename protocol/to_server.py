"""Messages a client sends: one model per ``type``, one union to parse them.

Every message is an object with a ``type`` and an optional ``id`` (a number
or a short string the client chooses); the server's reply to it carries the
same ``id``.  Fields are strict: an unknown field, a missing one or a value
of the wrong type is a ``bad_message`` error, never a guess, so a client
bug shows up at once instead of as a strange move.

Every integer a client sends has bounds, so nothing the server stores or
echoes is beyond what both codecs carry: deal numbers are signed 64-bit
(the engine then checks its own range), everything else stays within
``SAFE_INTEGER`` (2^53 - 1), which a JavaScript client reads exactly.
Option values are scalars (a boolean, a bounded integer, a short string
or null); what each option accepts is the engine's to say.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import Field, StringConstraints, TypeAdapter, model_validator

from .friends_board import FriendsBoard as FriendsBoard
from .friends import Challenge, ChallengeAnswer, FriendAdd, FriendChange, FriendCode, Friends, Notifications, ReadNotifications
from .stats import Stats as Stats
from .leagues import CreateLeague, JoinLeague, LeagueBoard, LeagueCode, Leagues, LeagueStandings, LeaveLeague, RemoveLeagueMember
from .ghosts import RaceGhost as RaceGhost
from .ghosts import StopGhost as StopGhost
from .request import SAFE_INTEGER as SAFE_INTEGER
from .request import DealNumber as DealNumber
from .request import GameName as GameName
from .request import OptionValue as OptionValue
from .request import Options as Options
from .request import PlayerId as PlayerId
from .request import RaceDealKind as RaceDealKind
from .request import Request as Request
from .request import RequestId as RequestId
from .request import SafeInt as SafeInt

GameId = Annotated[str, Field(min_length=1, max_length=64, description="a game session id from game_started")]
MAX_REPLAY_LINE = 400
DealKind = Literal["random", "winnable", "daily"]
RaceId = Annotated[str, Field(min_length=1, max_length=64, description="a race id from a race message")]
IsoDate = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="a UTC date, YYYY-MM-DD")]
DisplayName = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=32, pattern=r"^[^\x00-\x1f\x7f]+$"),
    Field(description="shown to others; no control characters"),
]
DeviceName = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=40, pattern=r"^[^\x00-\x1f\x7f]+$"),
    Field(description="what a device calls itself in your list of devices, e.g. phone; no control characters"),
]
LinkCodeText = Annotated[
    str, Field(min_length=1, max_length=40, description="a code from link_device, e.g. 7K2QF-M9XDA (any case, dashes and spaces ignored)")
]


class Hello(Request):
    """Introduce yourself.  Without a token the server creates a player and
    returns its token in ``welcome``; keep it to come back as the same
    player (your live games included).  ``name`` sets the display name.
    ``bot``: this client is a program playing by itself.  Bots are welcome
    and rank on their own leaderboards; the mark sticks to the identity
    (a later ``hello`` without it is still a bot), so it cannot be shed
    to rank as a human.  ``link_code`` (instead of a token) makes this
    connection a new device of the player who asked for the code
    (``link_device``): ``welcome`` carries the new device's own token.
    ``device`` names the device this connection is (``devices``)."""

    type: Literal["hello"] = "hello"
    token: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    name: DisplayName | None = None
    bot: bool = False
    link_code: LinkCodeText | None = None
    device: DeviceName | None = None

    @model_validator(mode="after")
    def _one_identity(self) -> Hello:
        if self.token is not None and self.link_code is not None:
            raise ValueError("give token or link_code, not both")
        return self


class NewGame(Request):
    """Start a game you own.  ``deal`` is a deal number or a kind of deal;
    ``options`` are the game's options (see ``docs/protocol.md``).  A
    ``practice`` game records nothing.  ``position`` (engine notation)
    starts a practice game from a given position, only where the server
    allows it (``ARENA_ALLOW_POSITIONS``)."""

    type: Literal["new_game"] = "new_game"
    game: GameName
    deal: DealNumber | DealKind = "random"
    options: Options = Field(default_factory=dict)
    practice: bool = False
    position: Annotated[str, Field(max_length=8000)] | None = None


class GameRequest(Request):
    """A request about one game."""

    game_id: GameId


class GameAction(GameRequest):
    """A request that acts on a game (it may change it).  ``seq`` is the
    ``seq`` of the last snapshot or diff of this game the client applied:
    the state the request was made against.  When it is not the game's
    current ``seq`` the request is refused (``stale_state``) and changes
    nothing, so a retry after a lost connection, or a second tab pressing
    the same button, cannot apply an action twice.  Without ``seq`` the
    action applies to whatever state the game is in (older clients)."""

    seq: Annotated[int, Field(ge=0, le=SAFE_INTEGER, description="the seq this request was made against")] | None = None


class Move(GameAction):
    """Play a move in the game's notation, e.g. ``t3-t5``, ``w-f``, ``draw``."""

    type: Literal["move"] = "move"
    move: Annotated[str, Field(min_length=1, max_length=40)]


class AutoMove(GameAction):
    """Tap / double-click: move the top ``count`` cards of pile ``src`` to
    their best legal destination.  If there is none, nothing happens (the
    reply is an ``ack``)."""

    type: Literal["auto_move"] = "auto_move"
    src: Annotated[str, Field(min_length=1, max_length=12)]
    count: Annotated[int, Field(ge=1, le=104)] = 1


class Undo(GameAction):
    type: Literal["undo"] = "undo"


class Redo(GameAction):
    type: Literal["redo"] = "redo"


class Hint(GameAction):
    """Ask for a suggested move (counted as a hint, and charged where the game charges)."""

    type: Literal["hint"] = "hint"


class Finish(GameAction):
    """Safe automatic finishing (Broken Deck, Relaxed and Standard, once
    every half is repaired): the server plays a path to the foundations
    its solver has proven, one ``move`` diff per move, then replies
    ``finish``.  Refused (``unavailable``) where no such path is found."""

    type: Literal["finish"] = "finish"


class Analyse(GameRequest):
    """After a game: where it stopped being winnable.  Anyone who may watch
    the game may ask, once it is over and its deal is no longer secret
    (a daily deal after its day is revealed, a race game after the race)."""

    type: Literal["analyse"] = "analyse"


class Replay(GameRequest):
    """A finished game, action by action, to step through: the same
    permission as ``analyse`` (over, and its deal no longer secret).  A
    long game comes in pages; ask for the next from the ``seq`` the last
    page ended at (``from_seq``, 0 for the first).  With ``line``, the
    page shows those moves played from ``from_seq`` instead of what the
    player did next: an analysis's winning line, stepped through like the
    game (the client has no rules engine to play it)."""

    type: Literal["replay"] = "replay"
    from_seq: Annotated[int, Field(ge=0, le=SAFE_INTEGER, description="the seq the page starts from")] = 0
    line: list[Annotated[str, Field(min_length=1, max_length=40)]] = Field(
        default_factory=list,
        max_length=MAX_REPLAY_LINE,
        description="moves to play from from_seq instead of the game's own (an analysis's solution)",
    )


class Restart(GameAction):
    """Back to the first position of the deal; counters restart, the clock does not."""

    type: Literal["restart"] = "restart"


class Resign(GameAction):
    type: Literal["resign"] = "resign"


class Watch(GameRequest):
    """Follow a game: a ``snapshot`` now, then every ``diff``."""

    type: Literal["watch"] = "watch"


class Unwatch(GameRequest):
    type: Literal["unwatch"] = "unwatch"


class Resync(GameRequest):
    """Ask for a fresh ``snapshot`` (after a gap in ``seq``); also watches the game."""

    type: Literal["resync"] = "resync"


class ListGames(Request):
    """Live games open to watch, newest first; ``game`` filters by game id."""

    type: Literal["list_games"] = "list_games"
    game: GameName | None = None
    limit: Annotated[int, Field(ge=1, le=100)] = 50


class Catalogue(Request):
    """The games this server offers, with what a lobby shows of each (their
    options' labels, deal kinds, counters); needs no ``hello``."""

    type: Literal["catalogue"] = "catalogue"


class Ping(Request):
    type: Literal["ping"] = "ping"


class CreateRace(Request):
    """Host a race: you join it at once and get its invite ``code`` in the
    ``race`` reply.  ``deal`` is ``"daily"`` (the day's deal, fixed when
    the race starts), ``"winnable"`` (a deal drawn from the verified pool
    when it starts) or a deal number."""

    type: Literal["create_race"] = "create_race"
    game: GameName
    options: Options = Field(default_factory=dict)
    deal: DealNumber | RaceDealKind = "daily"


class JoinRace(Request):
    """Join a race by its invite code (case and dashes do not matter)."""

    type: Literal["join_race"] = "join_race"
    code: Annotated[str, Field(min_length=1, max_length=20)]


class RaceRequest(Request):
    """A request about one race."""

    race_id: RaceId


class StartRace(RaceRequest):
    """The host starts the countdown; every racer gets a game of the same deal."""

    type: Literal["start_race"] = "start_race"


class WatchRace(RaceRequest):
    """Follow a race: a ``race`` message now, then its events and every
    racer's progress.  Needs no ``hello``."""

    type: Literal["watch_race"] = "watch_race"


class UnwatchRace(RaceRequest):
    type: Literal["unwatch_race"] = "unwatch_race"


class Rematch(RaceRequest):
    """After a race: a new race with the same racers, game and options, a
    new deal and a new code; whoever asks first hosts it."""

    type: Literal["rematch"] = "rematch"


class ListRaces(Request):
    """The races a player took part in, newest first (yours without ``player_id``)."""

    type: Literal["list_races"] = "list_races"
    player_id: PlayerId | None = None
    limit: Annotated[int, Field(ge=1, le=50)] = 20


class Records(Request):
    """A player's records per game and variant (yours without
    ``player_id``, which needs ``hello``): what every finished
    non-practice game added, and WordLink's Vegas earnings."""

    type: Literal["records"] = "records"
    player_id: PlayerId | None = None


class Daily(Request):
    """The daily deals of a UTC ``date`` (default today): a commitment to
    each while its day lasts, the deal and the nonce once it is revealed."""

    type: Literal["daily"] = "daily"
    date: IsoDate | None = None
    game: GameName | None = None


class Leaderboard(Request):
    """A day's leaderboard of one game and variant (``options`` pick the
    variant, e.g. ``{"draw": 3}`` or ``{"difficulty": "challenge"}``).
    ``around_me`` centres the page on your own entry."""

    type: Literal["leaderboard"] = "leaderboard"
    game: GameName
    options: Options = Field(default_factory=dict)
    date: IsoDate | None = None
    offset: Annotated[int, Field(ge=0, le=1_000_000)] = 0
    limit: Annotated[int, Field(ge=1, le=100)] = 10
    around_me: bool = False
    bots: bool = Field(False, description="the bots' board: bots declared in hello rank apart from people")
    playing: bool = Field(False, description="also the day's ranked attempts still being played (counts only), after the wins")


class LinkDevice(Request):
    """A one-time code another device redeems in ``hello`` (``link_code``)
    to become this player with a token of its own; valid for minutes."""

    type: Literal["link_device"] = "link_device"


class ListDevices(Request):
    """Your devices: their names, when each was last seen, which is this one."""

    type: Literal["devices"] = "devices"


class RevokeDevice(Request):
    """Revoke one of your devices: its token is ``bad_token`` from now on
    and its connections are closed (this one too, if it is this device)."""

    type: Literal["revoke_device"] = "revoke_device"
    device_id: Annotated[str, Field(min_length=1, max_length=64, description="a device_id from devices")]


class RotateToken(Request):
    """A new token for this connection's device; the old one is ``bad_token``
    from now on, and other connections made with it are closed."""

    type: Literal["rotate_token"] = "rotate_token"


class SetPresence(Request):
    """Say you are away (``away``: a hidden browser tab, a locked phone)
    or back.  Any other request but ``ping`` says you are back, too.
    Replied with ``ack``."""

    type: Literal["set_presence"] = "set_presence"
    away: bool


class AppearOffline(Request):
    """Appear offline to your friends (``on``), or stop; kept for your
    player on every device.  Replied with ``ack``."""

    type: Literal["appear_offline"] = "appear_offline"
    on: bool


class FriendsPresence(Request):
    """The presence of each of your friends at once (``presences``)."""

    type: Literal["friends_presence"] = "friends_presence"


ClientMessage = Annotated[
    Union[
        Hello, NewGame, Move, AutoMove, Undo, Redo, Hint, Finish, Analyse, Replay, Restart, Resign, Watch, Unwatch, Resync, ListGames, Catalogue, Ping,
        CreateRace, JoinRace, StartRace, WatchRace, UnwatchRace, Rematch, ListRaces, Records, Daily, Leaderboard,
        LinkDevice, ListDevices, RevokeDevice, RotateToken,
        Friends, FriendCode, FriendAdd, FriendChange, Notifications, ReadNotifications, Challenge, ChallengeAnswer,
        FriendsBoard,
        SetPresence, AppearOffline, FriendsPresence,
        Stats,
        CreateLeague, LeagueCode, JoinLeague, LeaveLeague, RemoveLeagueMember, Leagues, LeagueBoard, LeagueStandings,
        RaceGhost, StopGhost,
    ],
    Field(discriminator="type"),
]
CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
