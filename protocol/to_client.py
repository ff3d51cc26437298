"""Messages the server sends: one model per ``type``, one union to parse them.

A reply to a request carries the request's ``id``; messages nobody asked
for (the ``diff`` every watcher gets after a move, ``game_over``) have
none.  Clients should ignore fields they do not know: new fields may be
added within a protocol version, never removed or changed in meaning.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field, TypeAdapter

from .board import ActionDone, Clock, GameView, PileOp, PileView, SetOp, ViewOp
from .catalogue import CatalogueChoice, CatalogueCounter, CatalogueGame, CatalogueOption, CatalogueReply
from .devices import DeviceEntry, DeviceList, DeviceRevoked, LinkCode, TokenRotated
from .errors import ErrorCode
from .stats import DayLine, Histogram, ShareText, StatsReply, VariantStats
from .leagues import League, LeagueBoardReply, LeagueList, LeagueStandingsReply
from .friends_board import FriendsBoardReply, FriendsBoardRow, FriendsBoardUpdate
from .ghosts import Ghost, GhostReply, GhostUpdate
from .friends import FriendCodeReply, FriendEntry, FriendList, FriendReply, Notification, NotificationEntry, NotificationList
from .parts import Event, Owner, Part, Result, Status, empty
from .presence import Activity, PlayerPresence, Presence, Presences
from .standings import (
    DailyDeal,
    DailyPending,
    DailyInfo,
    LeaderboardEntry,
    LeaderboardPage,
    UnrankedEntry,
    PlayingEntry,
    Race,
    RaceEvent,
    RaceInfo,
    RacePhase,
    RaceProgress,
    Racer,
    RacerState,
    RaceResult,
    Races,
    RecordEntry,
    RecordsReply,
)
from .to_server import GameId

__all__ = [
    "DayLine",
    "Histogram",
    "ShareText",
    "StatsReply",
    "VariantStats",
    "FriendCodeReply",
    "FriendEntry",
    "FriendList",
    "FriendsBoardReply",
    "FriendsBoardRow",
    "FriendsBoardUpdate",
    "Ghost",
    "GhostReply",
    "GhostUpdate",
    "FriendReply",
    "Notification",
    "NotificationEntry",
    "NotificationList",
    "Ack",
    "Activity",
    "ActionDone",
    "AnalysisReply",
    "CatalogueChoice",
    "CatalogueCounter",
    "CatalogueGame",
    "CatalogueOption",
    "CatalogueReply",
    "Clock",
    "DailyDeal",
    "DailyPending",
    "DailyInfo",
    "DeviceEntry",
    "DeviceList",
    "DeviceRevoked",
    "Diff",
    "Error",
    "Event",
    "FinishOffer",
    "FinishReply",
    "GameOver",
    "GameProgress",
    "GameStarted",
    "GameSummary",
    "GameView",
    "Games",
    "HintReply",
    "LeaderboardEntry",
    "LeaderboardPage",
    "LinkCode",
    "UnrankedEntry",
    "PlayingEntry",
    "Limits",
    "Owner",
    "Part",
    "PileOp",
    "PileView",
    "PlayerPresence",
    "Pong",
    "Presence",
    "Presences",
    "TokenRotated",
    "Race",
    "RaceEvent",
    "RaceInfo",
    "RacePhase",
    "RaceProgress",
    "RaceResult",
    "Racer",
    "RacerState",
    "Races",
    "RecordEntry",
    "RecordsReply",
    "ReplayReply",
    "Result",
    "SERVER_MESSAGE",
    "ServerMessage",
    "SetOp",
    "Snapshot",
    "Status",
    "Verdict",
    "ViewOp",
    "Welcome",
]
"""Every server model, those of ``board``, ``catalogue``, ``standings`` and
``parts`` included: a client reads them all from here."""


class GameSummary(Part):
    """A line in a list of games."""

    game_id: GameId
    game: str
    title: str
    owner: Owner
    options: dict[str, Any]
    practice: bool
    status: Status
    created_ms: int


class Limits(Part):
    """The limits this server enforces on each connection."""

    max_frame_bytes: int
    messages_per_second: float
    burst: int


class Welcome(Event):
    """Reply to ``hello``.  Keep ``token`` secret: it is your identity.
    ``games`` are your live games; you watch them from now on, and a
    ``snapshot`` of each follows.  ``bot``: this identity is a declared
    bot (now or in an earlier ``hello``: the mark sticks)."""

    type: Literal["welcome"] = "welcome"
    player_id: str
    name: str
    token: str
    server_time: int
    protocol: int
    games: list[GameSummary]
    limits: Limits
    bot: bool = False


class GameStarted(Event):
    """Reply to ``new_game``; a ``snapshot`` of the new game follows.
    ``verified`` says whether the deal comes with a proof that it can be won."""

    type: Literal["game_started"] = "game_started"
    game_id: GameId
    game: str
    title: str
    options: dict[str, Any]
    practice: bool
    deal_kind: str
    verified: bool
    ranked: bool = False
    unlisted: list[str] = Field(
        default_factory=list,
        exclude_if=empty,
        description="why this ranked attempt cannot count on the public board (new_player, same_network); absent when it can",
    )


class Snapshot(Event):
    """The whole visible state of a game at ``seq`` (the number of actions
    so far).  Apply each following ``diff`` whose ``seq`` is one more than
    the last; on a gap, send ``resync``.  ``legal`` lists the legal moves
    where the difficulty offers destination highlights, else it is null."""

    type: Literal["snapshot"] = "snapshot"
    game_id: GameId
    seq: int
    game: str
    title: str
    owner: Owner
    practice: bool
    view: GameView
    status: Status
    counters: dict[str, int]
    score: int | None
    legal: list[str] | None
    clock: Clock
    ranked_daily: str | None = Field(
        default=None,
        exclude_if=empty,
        description="the UTC date (YYYY-MM-DD) of the daily deal this game is its player's ranked attempt at, so a "
        "client can say so on every device and after a reload; absent for any other game",
    )


class Diff(Event):
    """One action's effect, for every watcher of the game.  Turn the view
    at ``seq - 1`` into the view at ``seq`` by applying ``ops`` in order."""

    type: Literal["diff"] = "diff"
    game_id: GameId
    seq: int
    action: ActionDone
    ops: list[ViewOp]
    status: Status
    counters: dict[str, int]
    score: int | None
    legal: list[str] | None
    clock: Clock


class GameOver(Event):
    """The game has ended (after its last ``diff``); ``deal`` is revealed
    now, except in a race still running (null: rivals play the same deal)."""

    type: Literal["game_over"] = "game_over"
    game_id: GameId
    result: Result
    deal: int | None
    time_ms: int
    moves: int
    score: int | None
    counters: dict[str, int]
    unlisted: list[str] = Field(
        default_factory=list,
        exclude_if=empty,
        description="why this ranked attempt is not on the public board (cadence, new_player, same_network); "
        "absent when it is, or for any other game",
    )


class HintReply(Event):
    """Reply to ``hint``: a suggested move and how sure it is, or null when nothing is left to find."""

    type: Literal["hint"] = "hint"
    game_id: GameId
    move: str | None
    confidence: float | None = Field(
        None, ge=0, le=1, description="how sure the hint is: the share of the deals of the unseen cards tried in which the move "
        "starts a win (1: every one; 0: none, the move leads to a card not seen yet or to the foundations); null with no move")


class FinishOffer(Event):
    """Automatic finishing is on offer at ``seq``: the server holds a proven
    path of ``moves`` moves to the foundations.  The offer lapses with the
    next ``diff`` unless another offer for the new ``seq`` follows it.
    Sent to every watcher (after the snapshot, too, while it stands)."""

    type: Literal["finish_offer"] = "finish_offer"
    game_id: GameId
    seq: int
    moves: int


class FinishReply(Event):
    """Reply to ``finish``, after the diffs of the moves it played."""

    type: Literal["finish"] = "finish"
    game_id: GameId
    moves: list[str]


Verdict = Literal["won", "still_winnable", "lost_at", "never_shown_winnable"]


class AnalysisReply(Event):
    """Reply to ``analyse``, over the moves of the line finally played
    (undone moves left out; a restart starts the line again).

    ``verdict``: ``won``; ``still_winnable`` (the last position could still
    be won, ``solution`` shows how); ``lost_at`` (after ``last_winnable``
    moves of the line the deal could still be won, ``solution`` wins from
    there, and ``losing_move`` lost it); ``never_shown_winnable`` (not
    even the first position was shown winnable).  ``certain`` is true when
    the losing side is proven, not only unsolved within the budget."""

    type: Literal["analysis"] = "analysis"
    game_id: GameId
    verdict: Verdict
    line: list[str]
    last_winnable: int | None
    losing_move: str | None
    certain: bool
    solution: list[str]
    nodes: int


class ReplayReply(Event):
    """Reply to ``replay``: the game as its player saw it at ``start.seq``
    and then each action's ``diff`` in order, the very messages a watcher
    got, so a client steps through it with the code that follows a live
    game (no rules engine).  A page ends before it would exceed the
    server's ``max_frame_bytes``; while ``start.seq`` plus the number of
    ``diffs`` is below ``last_seq``, ask for the next page from there."""

    type: Literal["replay"] = "replay"
    game_id: GameId
    result: Result
    last_seq: int = Field(description="the game's number of actions")
    start: Snapshot
    diffs: list[Diff]


class Games(Event):
    """Reply to ``list_games``."""

    type: Literal["games"] = "games"
    games: list[GameSummary]


class Pong(Event):
    type: Literal["pong"] = "pong"
    server_time: int


class Ack(Event):
    """Reply to a request that changed nothing visible (``unwatch``, an
    ``auto_move`` that found no move)."""

    type: Literal["ack"] = "ack"
    game_id: GameId | None = None


class Error(Event):
    """A request was refused; nothing changed.  ``code`` is stable (see the
    table in ``docs/protocol.md``), ``message`` is for people, ``reason``
    is the engine's specific code for engine refusals."""

    type: Literal["error"] = "error"
    code: ErrorCode
    message: str
    reason: str | None = None
    game_id: GameId | None = None



class GameProgress(Event):
    """What a viewer other than its player sees of a game whose deal is
    still secret (a daily attempt before the day's reveal, a race game of
    a secret deal before the race ends): counts, never cards.  Sent instead
    of the snapshot on ``watch``, then after every action; once the deal
    is revealed, ``watch`` again gives the board."""

    type: Literal["progress"] = "progress"
    game_id: GameId
    game: str
    title: str
    owner: Owner
    seq: int
    status: str
    cards_home: int = Field(description="cards on the foundations")
    counters: dict[str, int] = Field(
        default_factory=dict, description="what the game counts besides, by name, as the catalogue lists them"
    )
    actions: int = Field(description="moves, undos, redos and restarts so far")
    started_ms: int | None
    time_ms: int = Field(description="the game's clock as of server_time")
    server_time: int


ServerMessage = Annotated[
    Union[
        Welcome, GameStarted, Snapshot, Diff, GameOver, GameProgress, HintReply, FinishOffer, FinishReply, AnalysisReply, ReplayReply, Games, CatalogueReply, Pong, Ack, Error,
        Race, RaceProgress, Races, RecordsReply, DailyInfo, LeaderboardPage,
        LinkCode, DeviceList, DeviceRevoked, TokenRotated,
        FriendList, FriendCodeReply, FriendReply, Notification, NotificationList,
        FriendsBoardReply, FriendsBoardUpdate,
        Presence, Presences,
        StatsReply,
        League, LeagueList, LeagueBoardReply, LeagueStandingsReply,
        GhostReply, GhostUpdate,
    ],
    Field(discriminator="type"),
]
SERVER_MESSAGE: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)
