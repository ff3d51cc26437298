"""The server's settings: one model, every field also an ``ARENA_*`` variable.

Each option is written once, here, with its default and the sentence that
documents it; ``arena serve --help`` and ``docs/protocol.md`` (limits)
read from this model, and ``Settings.from_env`` reads ``ARENA_<NAME>``
(upper case) for every field, so a new option needs no other edit.
Precedence: command-line flags, then environment, then defaults.

A variable that starts with ``ARENA_`` but names no setting (``ARENA_PROT``)
is an error, not a silent default: a misspelt limit would otherwise run
the server without it.  Errors name the variable, as the operator wrote
it, rather than the field.  ``docs/settings.md`` is the table of them all.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Annotated, Any, Literal, Mapping

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from engine.solver.compiled import PURE_ENV as SOLVER_PURE_VARIABLE

ENV_PREFIX = "ARENA_"
DEFAULT_WORKER_NICENESS = 10
"""How much lower a worker's CPU priority is than the server's: when a
search and the event loop both want a core, the event loop (every
connection's moves) wins and the search (one player's hint) waits."""
DEFAULT_STATIC_DIR = Path(__file__).resolve().parents[2] / "client" / "web"
OTHER_VARIABLES = {
    "ARENA_SERVER": ("client", "the server the terminal client connects to (its --server)"),
    "ARENA_TOKEN": ("client", "the identity the terminal client plays as (its --token)"),
    "ARENA_CA": ("client", "a PEM file of certificates the terminal client trusts for wss:// besides the system's (its --ca)"),
    SOLVER_PURE_VARIABLE: (
        "solver",
        "1: proofs of WordLink deals run the pure-Python search even where numba imports (docs/solver.md)",
    ),
}
"""``ARENA_*`` variables read by the client commands or the solver, by name:
who reads them and what they mean.  Known, so never refused, but not
server settings (the solver runs in the server's worker processes too, and
reads its variable itself, as the engine takes no settings)."""


def _lower_case(value: Any) -> Any:
    """Levels and formats in any case: ``DEBUG`` is what logging itself prints."""
    return value.lower() if isinstance(value, str) else value


class SettingsError(ValueError):
    """A setting refused: the message names the variable or flag, one line per problem."""


class Settings(BaseModel):
    """Everything an operator can set; see the module docstring."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = Field("127.0.0.1", description="interface to listen on")
    port: int = Field(8765, ge=0, le=65535, description="TCP port (0: any free port)")
    redis_url: str | None = Field(
        None, description="store URL: memory:// (throwaway), sqlite:///PATH.db (one process, on this disk) or Redis (redis://, rediss://, unix://, redis+sentinel://, redis+cluster://) shared by several processes; none: in memory, except that arena serve defaults to arena.db in the data directory"
    )
    max_frame_bytes: int = Field(65536, ge=1024, description="largest message accepted; bigger closes with 1009")
    rate_per_second: float = Field(20.0, gt=0, description="messages a connection may send per second, sustained")
    rate_burst: int = Field(40, ge=1, description="messages a connection may send at once before rate limiting")
    rate_strikes: int = Field(60, ge=1, description="rate-limited messages (recovering one per second) before close 1008")
    send_queue: int = Field(256, ge=4, description="frames queued for a slow connection before it gets a fresh snapshot")
    send_overflows: int = Field(3, ge=1, description="queue overflows a connection may have before close 1013")
    write_buffer_bytes: int = Field(65536, ge=4096, description="socket write buffer above which frames wait in the queue")
    kernel_send_buffer_bytes: int | None = Field(
        65536, ge=4096, description="SO_SNDBUF per connection, bounding kernel memory per slow client (none: OS default)"
    )
    ping_interval: float | None = Field(20.0, gt=0, description="seconds between keepalive pings (none: off)")
    ping_timeout: float | None = Field(20.0, gt=0, description="seconds to wait for a pong before closing")
    close_timeout: float = Field(10.0, gt=0, description="seconds to wait for the client's half of a closing handshake")
    finished_retention_seconds: int = Field(7 * 86400, ge=0, description="how long finished games stay for replays")
    unplayed_retention_seconds: int = Field(
        3600,
        ge=0,
        description="how long a game that ended before its first action stays for replays, when shorter than "
        "finished_retention_seconds (a race's games and ranked daily attempts stay as long as any)",
    )
    identity_retention_seconds: int | None = Field(
        365 * 86400,
        ge=1,
        description="an identity (token, name, records, Vegas earnings) unused this long is deleted (none: kept for ever)",
    )
    retention_sweep_seconds: float = Field(
        60.0,
        gt=0,
        description="how often a process settles game ends left open, drops expired data (memory store) and measures "
        "the store for /metrics",
    )
    watch_limit: int = Field(20, ge=1, description="games one connection may watch at once, and races it may follow")
    max_live_games: int = Field(5, ge=1, description="live games per player; a new one abandons the oldest")
    allow_positions: bool = Field(False, description="accept new_game with a practice position (tests, tutorials)")
    race_limit: int = Field(8, ge=1, le=64, description="racers one race may have, the host included")
    race_countdown_seconds: float = Field(10.0, ge=0, description="seconds from start_race to the race's first move")
    race_spectator_delay_seconds: float = Field(
        15.0, ge=0, description="how far behind a running race spectators see a racer's board"
    )
    race_invite_seconds: int = Field(3600, ge=1, description="how long an invite code lets friends join")
    race_time_limit_seconds: int = Field(3600, ge=1, description="a race ends this long after its start, finished or not")
    friends_limit: int = Field(200, ge=1, description="friends one player may have; one more is refused (friend_limit, friends)")
    friend_pending_limit: int = Field(
        50, ge=1, description="friend requests a player may have sent that still wait; one more is refused (friend_limit, pending)"
    )
    friend_block_limit: int = Field(500, ge=1, description="players one player may block (friend_limit, blocks)")
    friend_requests_per_hour: int = Field(
        30, ge=1, description="friend requests one player may send per hour (friend_limit, requests_per_hour)"
    )
    friend_request_days: int = Field(30, ge=1, description="days an unanswered friend request waits before it lapses")
    friend_lookup_failures_per_hour: int = Field(
        10, ge=1, description="friend codes naming nobody one player may send per hour before lookups_limited"
    )
    friend_lookup_failures_per_address: int = Field(
        30, ge=1, description="friend codes naming nobody one client address may send per hour before lookups_limited"
    )
    inbox_size: int = Field(100, ge=1, le=1000, description="notifications kept per player; a new one drops the oldest")
    inbox_days: int = Field(30, ge=1, description="days a notification is kept, read or not")
    challenge_seconds: int = Field(600, ge=1, description="how long a friend may accept a challenge")
    leagues_per_player: int = Field(20, ge=1, description="leagues one player may own or have joined (league_limit, leagues)")
    league_members_limit: int = Field(50, ge=2, description="members one league may have (league_limit, members)")
    league_lookup_failures_per_hour: int = Field(
        10, ge=1, description="league invite codes naming no league one player may send per hour before league_lookups_limited"
    )
    league_lookup_failures_per_address: int = Field(
        30, ge=1, description="league invite codes naming no league one client address may send per hour before league_lookups_limited"
    )
    league_weeks_kept: int = Field(52, ge=1, description="weeks a league's settled standings are kept after the week ends")
    ghost_limit: int = Field(
        5, ge=1, le=50, description="ghosts one ranked daily attempt may race on a server process, an ended one counted until stopped (ghost_unavailable, ghost_limit)"
    )
    daily_grace_seconds: int = Field(
        3600, ge=0, description="after a UTC day ends, ranked attempts of its deal may finish this long; then it is revealed"
    )
    daily_secret: str | None = Field(
        None,
        description="key of the secret seeds of ranked deals (none: the data directory's daily-secret file, made once; "
        "without a data directory, generated once and kept in the store)",
    )
    data_dir: Path | None = Field(
        None,
        description="directory keeping the daily secret and every daily record, so a restart or a wiped store never "
        "changes a day's deal, and arena serve's default store, arena.db (none: nothing kept; arena serve defaults to "
        "$XDG_DATA_HOME/solitaire-arena/server)",
    )
    public_attempts_per_address: int = Field(
        1, ge=0, description="ranked daily attempts per client address, game variant and day that may count on the public "
        "board; the others are shown apart as same network (0: no limit, for a server every client reaches from one address)"
    )
    public_new_players: bool = Field(
        False, description="whether players created after a UTC day began may rank on that day's public board "
        "(docs/protocol.md, fair play)"
    )
    cadence_min_actions: int = Field(
        30, ge=2, description="actions a ranked game needs before cadence_median_ms judges it"
    )
    cadence_median_ms: int = Field(
        250, ge=0, description="a ranked game with a median interval between actions below this is flagged as inhuman "
        "and ranks on the bots' board (0: off)"
    )
    cadence_pause_ms: int = Field(
        1000, ge=0, description="a ranked win with no interval between actions over this is flagged as inhuman (0: off)"
    )
    deal_workers: int = Field(
        2, ge=1,
        description="worker processes proving ranked deals winnable, at a low CPU priority (a fresh server's dailies are ready sooner with two)",
    )
    worker_niceness: int = Field(
        DEFAULT_WORKER_NICENESS, ge=0, le=19,
        description="how much lower the worker processes' CPU priority is than the server's (0: the same); "
        "a niced worker yields to every busier program on the machine, not only to this server",
    )
    deal_proof_nodes: int = Field(
        30_000, ge=1, description="solver nodes per attempt at proving a ranked deal (a deal not won is skipped)"
    )
    deal_proof_attempts: int = Field(50, ge=1, description="seeds tried per ranked deal before giving up")
    relay_audit_seconds: float = Field(
        1.0,
        gt=0,
        description="how often a process compares the live games it holds with their stored logs, so a watcher "
        "catches up on an entry whose announcement was lost within this period",
    )
    store_epoch_check_seconds: float = Field(
        2.0, gt=0, description="how often a process checks that the store was not wiped or replaced"
    )
    prepare_dailies: bool = Field(
        True, description="prove today's and tomorrow's daily deals and stock race deals in the background"
    )
    race_deal_stock: int = Field(3, ge=0, description="secret race deals kept proven per variant")
    daily_prepare_interval_seconds: float = Field(
        3600, gt=0, description="how often the background preparation checks that both days are ready"
    )
    leaderboard_retention_seconds: int = Field(90 * 86400, ge=1, description="how long daily leaderboards are kept")
    search_workers: int = Field(
        1, ge=1, description="worker processes searching hints and finishes (each game always in the same one); more wait their turn"
    )
    hint_rate: float = Field(
        1.0, gt=0, description="hints one player may ask for per second, sustained; beyond, a hint is refused (hint_rate)"
    )
    hint_burst: int = Field(10, ge=1, description="hints one player may ask for at once before hint_rate applies")
    reads_per_second: float = Field(
        10.0, gt=0,
        description="lists and boards (leaderboard, friends_board …) one client address may ask for per second, sustained; beyond, reads_limited",
    )
    reads_burst: int = Field(60, ge=1, description="lists and boards one client address may ask for at once before reads_per_second applies")
    new_games_per_minute: float = Field(
        30.0, gt=0, description="games and races one client address may start per minute, sustained; beyond, starts_limited"
    )
    new_games_burst: int = Field(30, ge=1, description="games and races one client address may start at once before new_games_per_minute applies")
    replay_actions_per_second: float = Field(
        2_000.0, gt=0,
        description="actions one client address may have replayed per second, sustained (replay pages, games loaded to watch, ghosts); beyond, replay_rate",
    )
    replay_actions_burst: int = Field(
        20_000, ge=1, description="actions one client address may have replayed at once before replay_actions_per_second applies"
    )
    hint_planless_nodes: int = Field(
        2_000, ge=1,
        description="solver nodes a hint may search in a game whose last hint found no win (about 0.1 s; the first search has the game's full budget)",
    )
    finish_search_nodes: int = Field(
        20_000, ge=1, description="solver nodes spent proving a safe automatic finish (about 0.6 s of Broken Deck)"
    )
    analysis_nodes: int = Field(
        20_000, ge=1, description="solver nodes per position a post-game analysis tries (about log2(moves) + 2 of them)"
    )
    analysis_slots: int = Field(
        1, ge=1, description="worker processes searching post-game analyses, one each at once; more wait their turn"
    )
    analysis_queue: int = Field(
        16, ge=0, description="analyses that may wait for a slot; beyond them a request is refused (analysis_busy)"
    )
    ssl_certfile: Path | None = Field(
        None,
        description="PEM certificate chain: the port then serves wss:// and https:// only (none: plain ws:// and "
        "http://, for a proxy that terminates TLS)",
    )
    ssl_keyfile: Path | None = Field(
        None, description="PEM private key of ssl_certfile (none: the key is in the certificate file)"
    )
    compression: bool = Field(False, description="permessage-deflate (costs CPU per watcher on every broadcast)")
    uvloop: bool = Field(
        True, description="arena serve runs on uvloop where it is installed (off, or without it: asyncio's own loop)"
    )
    shutdown_grace_seconds: float = Field(10.0, ge=0, description="time to finish in-flight actions on SIGTERM")
    static_dir: Path = Field(DEFAULT_STATIC_DIR, description="web client files served at /")
    connections_per_address: int = Field(
        50, ge=1, description="open connections one client address may hold; one more is refused at the handshake (HTTP 429)"
    )
    connection_rate_per_second: float = Field(
        5.0,
        gt=0,
        description="new WebSocket connections one client address may open per second, sustained; beyond, the handshake "
        "is refused (HTTP 429 with Retry-After); plain HTTP does not count",
    )
    connection_burst: int = Field(
        50,
        ge=1,
        description="new WebSocket connections one client address may open at once before connection_rate_per_second applies",
    )
    tcp_connection_rate_per_second: float = Field(
        30.0,
        gt=0,
        description="new TCP connections of any kind, and further requests on kept-alive ones, one client address may "
        "make per second, sustained: a flood guard far above what browsers make; beyond, one gets HTTP 429 and the rest "
        "are reset unanswered",
    )
    tcp_connection_burst: int = Field(
        500,
        ge=1,
        description="new TCP connections of any kind, and further requests on kept-alive ones, one client address may "
        "make at once before tcp_connection_rate_per_second applies (about 17 uncached loads of the web client)",
    )
    api_rate_per_second: float = Field(
        5.0, gt=0, description="requests to the HTTP API (/api/v1/) one client address may make per second, sustained; beyond, HTTP 429"
    )
    api_burst: int = Field(
        60, ge=1, description="requests to the HTTP API one client address may make at once before api_rate_per_second applies"
    )
    identities_per_hour: int = Field(
        30, ge=1, description="new players (hello without a token) one client address may create per hour"
    )
    max_devices: int = Field(10, ge=1, le=100, description="devices one player may have, its first included (too_many_devices past it)")
    link_code_seconds: int = Field(600, ge=10, le=3600, description="how long a link code from link_device works")
    link_codes_per_hour: int = Field(
        5, ge=1, description="link codes one player may ask for per hour, so at most as many devices join it per hour"
    )
    link_redeems_per_hour: int = Field(
        10, ge=1, description="link codes one client address may try in hello per hour, right or wrong (too_many_attempts)"
    )
    abuse_cooldown_seconds: float = Field(
        30.0,
        ge=0,
        description="after a connection is closed with 1008, its address may not connect for this long (one HTTP 429, "
        "then resets unanswered)",
    )
    log_level: Annotated[Literal["debug", "info", "warning", "error"], BeforeValidator(_lower_case)] = Field(
        "info", description="least severe log records written to standard error (arena serve --log-level; any case)"
    )
    log_format: Annotated[Literal["text", "json"], BeforeValidator(_lower_case)] = Field(
        "text",
        description="log lines, and the listening and stopped lines on standard output, as text or one JSON object each",
    )
    log_config: str | None = Field(
        None,
        description="a JSON file holding a logging.config dictionary, which then configures the log instead of "
        "log_level and log_format (none: those two)",
    )
    access_log: bool = Field(False, description="one INFO line per HTTP request (logger arena.access): method, path, status, time")
    forwarded_for_header: str | None = Field(
        None,
        description="trusted header your proxy sets to the client address, e.g. X-Forwarded-For (its last entry counts); "
        "none: the socket's peer address",
    )
    write_timeout_seconds: float | None = Field(
        10.0,
        gt=0,
        description="a connection whose frames cannot be written for this long (it stopped reading) is closed with 1013 "
        "(none: never)",
    )
    health_timeout_seconds: float = Field(
        0.5, gt=0, le=1, description="how long /healthz waits for the store before answering 503"
    )
    gc_tuning: bool = Field(
        True,
        description="arena serve moves what its start-up made out of the garbage collector's reach (gc.freeze), runs "
        "only young collections on their own and a full one when the heap per connection and open room has doubled, so "
        "that collections stay short (off: the interpreter's defaults)",
    )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Settings from ``ARENA_*`` variables, then ``overrides`` (flags
        left unset are passed as None and ignored).  Raises
        ``SettingsError`` naming each bad or unknown variable."""
        source = os.environ if environ is None else environ
        unknown_variables(source)
        values: dict[str, Any] = {}
        for name, field in cls.model_fields.items():
            raw = source.get(env_name(name))
            if raw is None:
                continue
            values[name] = None if raw.strip().lower() in ("", "none") and _accepts_none(field.annotation) else raw
        given = {name: value for name, value in overrides.items() if value is not None}
        values.update(given)
        try:
            return cls.model_validate(values)
        except ValidationError as error:
            raise SettingsError(_refusal(error, values, given)) from None


def known_variables() -> list[str]:
    """Every ``ARENA_*`` variable that means something."""
    return [env_name(name) for name in Settings.model_fields] + sorted(OTHER_VARIABLES)


def unknown_variables(source: Mapping[str, str]) -> None:
    """Refuse ``ARENA_*`` variables that name nothing, with the closest real one."""
    known = known_variables()
    lines = []
    for name in sorted(variable for variable in source if variable.startswith(ENV_PREFIX) and variable not in known):
        suffixes = [variable.removeprefix(ENV_PREFIX) for variable in known]
        close = difflib.get_close_matches(name.removeprefix(ENV_PREFIX), suffixes, n=1, cutoff=0.6)
        lines.append(f"{name} is not a setting" + (f" (did you mean {ENV_PREFIX}{close[0]}?)" if close else ""))
    if lines:
        raise SettingsError("; ".join(lines))


def _refusal(error: ValidationError, values: Mapping[str, Any], given: Mapping[str, Any]) -> str:
    """pydantic's complaints, each under the name the operator used."""
    lines = []
    for problem in error.errors():
        field = str(problem["loc"][0]) if problem["loc"] else ""
        value = values.get(field)
        where = f"{field}={value!r} (command line)" if field in given else f"{env_name(field)}={value!r}"
        lines.append(f"{where}: {problem['msg']}")
    return "; ".join(lines)


def _accepts_none(annotation: Any) -> bool:
    return "None" in str(annotation)


def env_name(field: str) -> str:
    """The environment variable of a settings field."""
    return ENV_PREFIX + field.upper()
