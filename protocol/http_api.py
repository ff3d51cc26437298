"""The read-only HTTP API under ``/api/v1/``: its response models, its
error codes and its endpoints, as data (docs/http-api.md is the guide).

Where the WebSocket protocol already has a model for a row (a leaderboard
entry, a daily deal, a record), the HTTP response is built from that same
model, so a client reads a row alike whichever way it came.  The
endpoints are listed once here (``ENDPOINTS``): the server routes by
them and ``protocol.openapi`` describes them, so the document cannot name
a path the server does not answer, nor miss one it does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from .errors import DescribedCode
from .parts import Owner, Part, Result
from .standings import DailyDeal, DailyPending, LeaderboardEntry, PlayingEntry, RecordEntry, UnrankedEntry

API_VERSION = "1"
API_PREFIX = f"/api/v{API_VERSION}"
NDJSON = "application/x-ndjson"
JSON_TYPE = "application/json"
LIMIT_MAX = 100
"""The most rows (or exported games) one response holds."""
OFFSET_MAX = 1_000_000
"""The deepest a leaderboard page may start, as the WebSocket's ``leaderboard`` allows."""
TODAY = "today"
"""The word that names the current UTC day in a path, where a date may stand."""


class ApiErrorCode(DescribedCode):
    """Every value of an error body's ``code``: stable, each with the
    sentence that documents it (docs/http-api.md is checked against it)."""

    NOT_FOUND = ("not_found", "No resource has this path (404).")
    UNKNOWN_GAME = ("unknown_game", "The path names a game the server does not have; the message lists them (404).")
    UNKNOWN_VARIANT = (
        "unknown_variant", "The game has no daily deal in this variant; the message lists the daily variants (404)."
    )
    BAD_DATE = ("bad_date", f"A date in the path is neither YYYY-MM-DD nor {TODAY} (400).")
    DAY_NOT_OPEN = (
        "day_not_open",
        "The day has not begun (a leaderboard) or its deals are not committed yet (the dailies: tomorrow's are, "
        "once prepared) (404).",
    )
    PLAYER_NOT_FOUND = ("player_not_found", "No player has this id (or the identity expired) (404).")
    GAME_NOT_FOUND = (
        "game_not_found",
        "No finished game whose deal is public has this id: it never existed, it expired, it is still being "
        "played, or its deal is still secret (a daily before its reveal, a race still running) (404).",
    )
    BAD_PARAMETER = ("bad_parameter", "A query parameter is malformed, repeated or out of range (400).")
    UNKNOWN_PARAMETER = ("unknown_parameter", "A query parameter this endpoint does not take (400).")
    METHOD_NOT_ALLOWED = ("method_not_allowed", "Only GET, HEAD and OPTIONS are served (405).")
    RATE_LIMITED = ("rate_limited", "Too many requests from this address: wait Retry-After seconds (429).")
    STORAGE_UNAVAILABLE = ("storage_unavailable", "The server's store did not answer; try again soon (503).")


class ApiErrorDetail(Part):
    code: ApiErrorCode
    message: str = Field(description="for people; the code is what a client switches on")


class ApiError(Part):
    """The body of every error response."""

    error: ApiErrorDetail


class Leaderboard(Part):
    """A page of a day's public (or bots') leaderboard: the rows the
    WebSocket's ``leaderboard`` gives an anonymous asker.  ``entries`` from
    rank ``offset + 1``; ``next_offset`` is where the next page starts
    (null on the last).  ``closed``: the day is revealed and no win joins
    the board any more."""

    board: str
    game: str
    title: str
    variant: str
    date: str
    closed: bool
    offset: int
    limit: int
    total: int = Field(description="the wins ranked on this board")
    next_offset: int | None
    entries: list[LeaderboardEntry]
    unranked: list[UnrankedEntry] = Field(
        description="on a public board, the day's wins from an address whose public place was taken, best first"
    )
    playing: list[PlayingEntry] = Field(
        description="asked with playing=true: the day's ranked attempts still being played (counts only), newest first"
    )


class DailyDeals(Part):
    """A day's daily deals: a commitment to each while its day lasts, the
    seed, nonce and winning line once it is revealed (as the WebSocket's
    ``daily`` gives them); for today, the variants still being proven."""

    date: str
    today: str
    server_time: int
    deals: list[DailyDeal]
    pending: list[DailyPending]


class PlayerProfile(Part):
    """What anyone may know of a player: the name, whether it declared
    itself a bot, its records and Vegas earnings; nothing else."""

    player_id: str
    name: str
    bot: bool
    records: list[RecordEntry]
    vegas_earnings: int


class ExportedAction(Part):
    """One entry of a game's log: ``kind`` is move, undo, redo, hint,
    restart or resign, ``move`` the move's notation (empty for the others),
    ``at_ms`` the server's clock when it was accepted."""

    kind: str
    move: str
    at_ms: int


class ExportedGame(Part):
    """A finished game whose deal is public, with everything needed to
    replay it with the rules engine: the game, its options and deal (a
    number, a secret seed once revealed, or a practice position) and
    every action in order.  One per line of an export."""

    game_id: str
    game: str
    title: str
    variant: str
    options: dict[str, Any]
    deal: int | None = Field(description="the numbered deal (null for a seeded deal or a position)")
    seed: str | None = Field(None, pattern=r"^[0-9a-f]{16}$", description="a revealed secret deal's seed, 16 hex digits")
    position: str | None = Field(description="a practice position the game started from")
    owner: Owner
    bot: bool
    practice: bool
    ranked: bool
    daily: str | None = Field(description="the day of a daily deal")
    race_id: str | None
    result: Result
    created_ms: int
    started_ms: int | None
    finished_ms: int | None
    time_ms: int = Field(description="the game's clock: from its start to its end")
    actions: list[ExportedAction]


@dataclass(frozen=True)
class Parameter:
    """A path or query parameter, its JSON Schema and what it means."""

    name: str
    where: str
    description: str
    schema: dict[str, Any]
    required: bool = False


DATE_SCHEMA: dict[str, Any] = {"type": "string", "pattern": rf"^(\d{{4}}-\d{{2}}-\d{{2}}|{TODAY})$"}
ID_SCHEMA: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 64}
LIMIT = Parameter(
    "limit", "query", f"how many rows (1 to {LIMIT_MAX})", {"type": "integer", "minimum": 1, "maximum": LIMIT_MAX, "default": 20}
)


@dataclass(frozen=True)
class Endpoint:
    """One GET resource: its path under ``API_PREFIX`` (``{name}`` marks a
    path parameter), its response model and media type."""

    name: str
    path: str
    summary: str
    model: type[BaseModel]
    parameters: tuple[Parameter, ...] = ()
    media_type: str = JSON_TYPE
    errors: tuple[int, ...] = field(default=(404,))

    @property
    def query(self) -> dict[str, Parameter]:
        return {parameter.name: parameter for parameter in self.parameters if parameter.where == "query"}


def _path(name: str, description: str, schema: dict[str, Any] = ID_SCHEMA) -> Parameter:
    return Parameter(name, "path", description, schema, required=True)


GAME = _path("game", "a game id, as the catalogue lists them (klondike, broken-deck ...)", {"type": "string", "maxLength": 64})
DAY = _path("date", f"a UTC day, YYYY-MM-DD, or {TODAY}", DATE_SCHEMA)

ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint(
        "daily", "/daily/{date}", "The day's daily deals: commitments, and once revealed the seeds, nonces and lines",
        DailyDeals,
        (DAY, Parameter("game", "query", "only this game's deals", {"type": "string", "maxLength": 64})),
        errors=(400, 404),
    ),
    Endpoint(
        "leaderboard", "/leaderboards/{game}/{variant}/{date}", "A page of a day's leaderboard of one daily variant",
        Leaderboard,
        (
            GAME,
            _path("variant", "a daily variant's label, as the daily deals name it (draw=1,scoring=standard)",
                  {"type": "string", "maxLength": 200}),
            DAY,
            Parameter("offset", "query", "the rank before the first row",
                      {"type": "integer", "minimum": 0, "maximum": OFFSET_MAX, "default": 0}),
            LIMIT,
            Parameter("board", "query", "people's public board, or the bots'",
                      {"type": "string", "enum": ["public", "bots"], "default": "public"}),
            Parameter("playing", "query", "also the ranked attempts still being played",
                      {"type": "boolean", "default": False}),
        ),
        errors=(400, 404),
    ),
    Endpoint(
        "player", "/players/{player_id}", "A player's public profile: name, bot or not, records", PlayerProfile,
        (_path("player_id", "a player id (p_...)"),),
    ),
    Endpoint(
        "player_games", "/players/{player_id}/games",
        "A player's finished games whose deals are public, newest first, one JSON object per line", ExportedGame,
        (_path("player_id", "a player id (p_...)"), LIMIT),
        media_type=NDJSON,
        errors=(400, 404),
    ),
    Endpoint(
        "game", "/games/{game_id}", "One finished game whose deal is public", ExportedGame,
        (_path("game_id", "a game id (g_...)"),),
    ),
)
