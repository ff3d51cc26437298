"""Server messages about play beyond one game: races, the daily deals,
a player's records and the leaderboards.  ``to_client`` re-exports them,
so a client reads every server message from one module and one union."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .parts import Event, Owner, Part, Result, empty
from .to_server import GameId

RacePhase = Literal["lobby", "expired", "countdown", "running", "finished"]
RacerState = Literal["waiting", "playing", "disconnected", "won", "lost", "resigned", "abandoned", "sitting_out"]
Apart = Literal["deal_seen", "ranked_first"]
RaceEvent = Literal["snapshot", "created", "joined", "started", "finished", "rematch"]


class Racer(Part):
    """One racer as everyone may see them: progress, never the board.
    ``state`` is ``disconnected`` while a playing racer has no connection
    (their clock runs on), ``sitting_out`` for a racer the start left
    without a game (``apart``); ``elapsed_ms`` is as of the message."""

    player_id: str
    name: str
    game_id: GameId | None
    state: RacerState
    ranked: bool
    apart: Apart | None = Field(
        None,
        description="why the racer takes no place (null: they do): `deal_seen`, they had started the day's daily "
        "before this daily race, so they play it unranked and are listed after every placed racer; `ranked_first`, "
        "their ranked attempt at it was still being played at the start, so they sit the race out",
    )
    moves: int
    foundation: int = Field(description="cards on the foundations")
    counters: dict[str, int] = Field(
        description="what the game counts besides, by name (Broken Deck's repairs …): the counters its "
        "`catalogue` entry lists, with their labels and totals"
    )
    elapsed_ms: int


class RaceResult(Part):
    """A line of the results table: winners by time, then ``actions``
    (every move, undo, redo and restart: an undo never improves a place),
    ``place`` 1, 2 …; the others after them by cards on the foundations
    (``place`` null).  Racers ``apart`` (``deal_seen``: they knew the
    deal) come after all of those, in the same order, with no place."""

    place: int | None
    player_id: str
    name: str
    result: Result
    time_ms: int
    moves: int
    actions: int = 0
    foundation: int
    ranked: bool
    apart: Apart | None = None


class RaceInfo(Part):
    """Everything about a race but the boards.  ``code`` (the invite) is
    shown to its racers only; times are the server's clock in ms since the
    Unix epoch.  A race ranks (``ranked``) unless the host typed a deal
    number: then ``deal`` is that number, shown once the race is over.  A
    ranked race's deal is a secret seed: from the start, ``commitment`` is
    ``sha256("race/RACE_ID/SEED/NONCE")`` (a daily race's is the daily's
    commitment); once the race is over, a winnable race reveals ``seed``,
    ``nonce`` and the server's winning ``line`` (a daily race's deal is
    revealed with the day's, by ``daily``)."""

    race_id: str
    code: str | None
    host: Owner
    game: str
    title: str
    options: dict[str, Any]
    deal_kind: Literal["daily", "winnable", "number"]
    daily: str | None
    verified: bool | None
    deal: int | None
    ranked: bool = True
    commitment: str | None = None
    seed: str | None = Field(None, pattern=r"^[0-9a-f]{16}$")
    nonce: str | None = None
    line: list[str] | None = None
    phase: RacePhase
    limit: int
    created_ms: int
    invite_expires_ms: int
    starts_at: int | None
    ends_at: int | None
    finished_ms: int | None
    racers: list[Racer]
    results: list[RaceResult] | None
    rematch: str | None


class Race(Event):
    """A race as it is now, and what just happened to it (``event``)."""

    type: Literal["race"] = "race"
    event: RaceEvent
    server_time: int
    race: RaceInfo


class RaceProgress(Event):
    """One racer's progress changed (a move, the end of their game, a
    disconnect or a return)."""

    type: Literal["race_progress"] = "race_progress"
    race_id: str
    server_time: int
    racer: Racer


class Races(Event):
    """Reply to ``list_races``: a player's races, newest first."""

    type: Literal["races"] = "races"
    player_id: str
    races: list[RaceInfo]


class DailyDeal(Part):
    """One variant's daily deal for a date.  ``commitment`` is
    ``sha256("GAME/VARIANT/DATE/SEED/NONCE")`` in hex (``SEED`` in 16 hex
    digits), fixed at ``committed_ms``; ``seed``, ``nonce`` and ``line``
    (the server's winning moves) are null until ``reveals_at``, after
    which anyone can check the commitment, deal the layout from the seed
    with the public generator and replay the line, and ``first_game``
    names the day's first ranked attempt, whose ``replay`` shows the board
    its player was dealt."""

    game: str
    title: str
    variant: str
    options: dict[str, Any]
    board: str
    date: str
    commitment: str
    committed_ms: int
    reveals_at: int
    seed: str | None = Field(None, pattern=r"^[0-9a-f]{16}$")
    nonce: str | None
    line: list[str] | None = None
    first_game: GameId | None = Field(
        None,
        description="from reveals_at, the game id of the day's first ranked attempt at this deal, to replay "
        "(null before, or if nobody played it)",
    )


class DailyPending(Part):
    """A variant of today whose deal is still being proven (a server that
    has just started): its commitment is not fixed yet, and
    ``ready_in_ms`` is the server's estimate of when it will be.  Ask
    ``daily`` again then; a ``new_game`` on it waits for that proof."""

    game: str
    title: str
    variant: str
    options: dict[str, Any]
    ready_in_ms: int = Field(ge=1)


class DailyInfo(Event):
    """Reply to ``daily``: the deals fixed for the date and, for today,
    the variants still being proven (``pending``; empty once every deal
    is ready, and always for other dates).  The reply never waits for a
    proof."""

    type: Literal["daily_info"] = "daily_info"
    date: str
    today: str
    server_time: int
    deals: list[DailyDeal]
    pending: list[DailyPending] = []


class RecordEntry(Part):
    """A player's record in one game and variant: sums over every
    finished non-practice game, and bests over the won ones (null before
    the first win; ``best_score`` only where the game keeps a score)."""

    game: str
    title: str
    variant: str
    games: int
    wins: int
    moves: int
    time_ms: int
    hints: int
    undos: int
    counters: dict[str, int] = Field(description="the sums of what the game counts besides, by name (Broken Deck's repairs)")
    best_moves: int | None
    best_time_ms: int | None
    best_score: int | None


class RecordsReply(Event):
    """Reply to ``records``: one entry per game and variant played, by
    game then variant, and the accumulated Vegas earnings."""

    type: Literal["records"] = "records"
    player_id: str
    name: str
    records: list[RecordEntry]
    vegas_earnings: int


class LeaderboardEntry(Part):
    """A ranked win: ranked by ``time_ms``, then ``actions`` (every move,
    undo, redo and restart counted, so an undo never improves a rank)."""

    rank: int
    player_id: str
    name: str
    time_ms: int
    actions: int
    finished_ms: int


class PlayingEntry(Part):
    """A ranked attempt of the day still being played: counts only, as a
    secret deal's ``progress`` shows it."""

    player_id: str
    name: str
    time_ms: int = Field(description="the attempt's clock so far")
    actions: int
    cards_home: int


class UnrankedEntry(Part):
    """A person's ranked win kept off a public board, and ``reason`` why:
    ``same_network`` (another attempt from the same client address took
    its public place), ``new_player`` (the player was created after the
    day began) or ``cadence`` (played at a cadence no person keeps; it is
    on the bots' board).  Not ranked, so no ``rank``."""

    player_id: str
    name: str
    time_ms: int
    actions: int
    finished_ms: int
    reason: str


class LeaderboardPage(Event):
    """Reply to ``leaderboard``: ``entries`` from rank ``offset + 1``;
    ``me`` is your own entry wherever it is (null if none or anonymous).
    On a public board, ``unranked`` shows apart, best first, the day's
    wins from an address whose public place was taken (at most ``limit``
    of them; absent when none), and ``me_unranked`` is your own win kept
    off this board, with the reason (absent when none).  ``total`` counts
    the board's wins, so that ``me`` far below the page still says where
    you stand (``me_percentile``)."""

    type: Literal["leaderboard"] = "leaderboard"
    board: str
    game: str
    title: str
    variant: str
    date: str
    offset: int
    entries: list[LeaderboardEntry]
    me: LeaderboardEntry | None
    unranked: list[UnrankedEntry] = Field(default_factory=list, exclude_if=empty)
    me_unranked: UnrankedEntry | None = Field(default=None, exclude_if=empty)
    total: int | None = Field(default=None, exclude_if=empty, description="the wins ranked on this board")
    playing: list[PlayingEntry] = Field(
        default_factory=list, exclude_if=empty,
        description="asked with playing: the day's ranked attempts still being played, newest first, after the wins",
    )
    me_percentile: int | None = Field(
        default=None, exclude_if=empty,
        description="with me: the share of this board's wins yours is at least as good as, in percent (1-100)",
    )
