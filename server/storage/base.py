"""The store interface: everything the server keeps, behind one API.

Three back ends implement it (``memory``, ``sqlite`` and ``redis``) and
one contract test suite runs against all, so the server never knows which
it has.  All methods are coroutines; a back end that cannot reach its
database raises ``StorageUnavailable`` and the server answers the client
with ``storage_unavailable`` instead of acknowledging anything.

Sessions are logs: a header plus an append-only list of actions.  The
append is the serialization point between server processes, which is why
it takes the length the caller believes the log has (see ``append``).

A game's end is one step: the append of its last action also opens the
game's outbox, in the game's own keys (one Redis Cluster slot), and
``settle_finish`` then applies what the end leaves behind (record, Vegas
earnings, leaderboard entry, final header), each write guarded by a mark
in its own keys, so settling again never counts twice.  Whoever finds the
outbox open settles it: the process that appended, the next one to start
(``open_finishes``), the next one to load the game.

What stops mattering expires: a finished game's header and log after its
``keep_seconds``, an identity (its token, name, records and Vegas
earnings) once nobody has used it for ``Retention.identity_seconds``.  A
record is the player's, not the game's: it outlives every game it counts.
Redis expires keys by itself; the memory store drops what is due when
read, and everything due at once in ``expire_due``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, AsyncIterator, Awaitable, Callable

from server.model.records import Action, Announcement, Finish, GameResult, LeaderEntry, PlayerRecord, Record
from server.model.records import SessionHeader

from .days_base import DayStore
from .devices_base import DeviceStore

# The failures every back end raises, named here too, beside the interface that raises them.
from .errors import AppendRefused as AppendRefused
from .errors import LogConflict as LogConflict
from .errors import StorageError as StorageError
from .errors import StorageRefused as StorageRefused
from .errors import StorageUnavailable as StorageUnavailable
from .presence import PresenceStore
from .reads_base import KeyedReads


@dataclass(frozen=True)
class Retention:
    """How long the store keeps an identity nobody uses: its player, token,
    records, Vegas earnings and index of games, all renewed together by
    every use of the token (``player_by_token_hash``) and every write to
    the player's keys.  None keeps identities for ever.  An identity gone
    takes nothing from anyone else: leaderboards show its id instead of
    its name, and its games expire by their own lifetimes."""

    identity_seconds: int | None = 365 * 86400


DEFAULT_RETENTION = Retention()
"""What a store keeps when nobody says otherwise (tests, tools)."""


@dataclass(frozen=True)
class StoreSize:
    """What the store holds, for ``/metrics``.  ``keys``: every Redis key of
    the database (all namespaces, ``DBSIZE``), or every entry of the memory
    store.  ``sessions`` (games and race ledgers, finished ones included)
    and ``identities`` only where counting is cheap (the memory store;
    Redis would need a scan of every key), ``memory_bytes`` only where the
    back end reports it (Redis ``used_memory``)."""

    keys: int
    live_games: int
    open_finishes: int
    sessions: int | None = None
    identities: int | None = None
    memory_bytes: int | None = None


SETTLED_MARK_SECONDS = 30 * 86400
"""How long a record's mark of a settled game is kept: settling the same
game again within this time changes nothing (an outbox is normally settled
within milliseconds, or at the next start after a crash)."""


HELD_SPACES = ("player", "session", "board", "setting", "stock", "document", "index")  # what Store.held lists


@dataclass(frozen=True)
class Held:
    """One thing a store holds, with what is left of its lifetime (None: for
    ever; an identity's, which a copy's writes renew, too): a copy keeps it as long."""

    space: str
    name: str
    kind: str = ""
    keep_seconds: float | None = None


OnResume = Callable[[], Awaitable[None]]
"""Called when a subscription is back after its connection was lost."""

Skip = Callable[[bytes], bool]
"""A subscriber's test for what it does not want (its process's own)."""


class Subscription(ABC):
    """Messages published on one channel, from any server process."""

    @abstractmethod
    def __aiter__(self) -> AsyncIterator[bytes]: ...

    @abstractmethod
    async def close(self) -> None: ...


class Store(PresenceStore, DeviceStore, DayStore, KeyedReads, ABC):
    """The storage API the server uses; see the module docstring (a player's
    devices: ``DeviceStore``; a player's daily results: ``DayStore``;
    presence: ``.presence``; players, settings and documents by key, one
    or many: ``KeyedReads``)."""

    # ---------------------------------------------------------------- life

    @abstractmethod
    async def close(self) -> None:
        """Release connections; the store is not used afterwards."""

    @abstractmethod
    async def ping(self) -> None:
        """Return if the back end answers; raise ``StorageUnavailable`` if not."""

    @abstractmethod
    async def check_writable(self) -> None:
        """Return if the back end takes a write now (one tiny key that
        expires by itself); raise ``StorageUnavailable`` (``StorageRefused``
        when it answers but refuses: full, read-only ...) if not.  What
        ``/healthz`` asks: a full Redis still answers ``PING``."""

    @abstractmethod
    async def size(self) -> StoreSize:
        """How much the store holds now (cheap enough for every scrape)."""

    @abstractmethod
    async def expire_due(self) -> int:
        """Drop everything whose lifetime has ended by now, the number of
        entries dropped: what a read would drop one at a time, so memory
        is given back for data nobody reads again.  Redis expires its keys
        by itself, so its store drops nothing here (0)."""

    # ---------------------------------------------------------------- players

    @abstractmethod
    async def create_player(self, player: PlayerRecord) -> None: ...

    @abstractmethod
    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        """The player of a token (any of its devices'), renewing the identity's
        lifetime: using a token is what keeps an identity (``Retention``)."""

    @abstractmethod
    async def set_display_name(self, player_id: str, name: str) -> None: ...

    @abstractmethod
    async def mark_bot(self, player_id: str) -> None:
        """Make the player a bot for good (there is no way back)."""

    @abstractmethod
    async def note_address(self, player_id: str, address: str) -> None:
        """Keep the client address of the player's latest ``hello`` (none
        for a player no longer stored)."""

    # ---------------------------------------------------------------- sessions

    @abstractmethod
    async def create_session(self, header: SessionHeader) -> None:
        """Store a new header with an empty log."""

    @abstractmethod
    async def append(
        self, game_id: str, expected_length: int, action: Action, *, ends: bool = False,
        announce: Announcement | None = None,
    ) -> int:
        """Append ``action`` if the log has exactly ``expected_length``
        entries, atomically; return the new length.  Raises ``LogConflict``
        when another writer got there first: the caller reloads.  Raises
        ``KeyError`` when the session does not exist (or has expired).

        ``ends``: the action ends the game; the same atomic step opens the
        game's outbox, which ``settle_finish`` closes and ``open_finishes``
        lists until then.

        ``announce``: published (``publish``) by the same atomic step that
        writes the entry, never without it and never only with it.

        ``StorageUnavailable`` means the action is not in the log and will
        never be written later (the Redis store's script refuses an append
        that runs after its deadline, ``AppendRefused``), with one exception:
        Redis wrote it and its reply was lost (Redis or the network failed
        in between).  The next append tells, with ``LogConflict``."""

    @abstractmethod
    async def load_session(self, game_id: str) -> tuple[SessionHeader, list[Action]] | None: ...

    @abstractmethod
    async def log_lengths(self, game_ids: list[str]) -> dict[str, int]:
        """The stored length of each game's log, in one round trip; games
        the store does not have are left out.  Cheap enough to ask often:
        a process compares them with the games it holds (``server.games.tables``)."""

    @abstractmethod
    async def update_session(self, header: SessionHeader) -> None:
        """Replace a header (status, start and finish times)."""

    @abstractmethod
    async def live_sessions(self, limit: int = 100) -> list[SessionHeader]:
        """Unfinished sessions, newest first, for the list of games to watch."""

    @abstractmethod
    async def sessions_of(self, player_id: str, limit: int = 20) -> list[SessionHeader]:
        """A player's sessions, newest first (reconnect finds the live one here)."""

    @abstractmethod
    async def finish_session(self, header: SessionHeader, keep_seconds: int) -> None:
        """Store the final header and keep the session for ``keep_seconds``
        more (replays and analysis), after which it may disappear."""

    @abstractmethod
    async def open_finishes(self, limit: int = 100) -> list[str]:
        """Games whose outbox is open (their end was appended, not yet
        settled), for a sweep to settle; outboxes of games no longer
        stored are closed on the way."""

    @abstractmethod
    async def settle_finish(self, finish: Finish) -> None:
        """Apply a game's end: the record, Vegas earnings and a ranked daily
        attempt's day (guarded by a mark of the game in the player's keys,
        kept ``SETTLED_MARK_SECONDS``),
        the leaderboard entry (``submit`` keeps the better one, so it is
        idempotent by itself), then the final header with the outbox's
        close, in one step in the game's keys.  Safe to repeat and to run
        in two processes at once: each write counts once."""

    # ---------------------------------------------------------------- records

    @abstractmethod
    async def add_result(self, player_id: str, record_key: str, result: GameResult) -> None:
        """Fold one finished game into the player's record under
        ``record_key`` (``game/variant``, e.g. ``broken-deck/relaxed``)."""

    @abstractmethod
    async def records(self, player_id: str) -> dict[str, Record]: ...

    @abstractmethod
    async def add_vegas(self, player_id: str, amount: int) -> int:
        """Add to the player's Vegas earnings, which accumulate across
        games; return the new total."""

    @abstractmethod
    async def vegas(self, player_id: str) -> int:
        """The player's Vegas earnings so far (0 before any Vegas game)."""

    # ---------------------------------------------------------------- leaderboards

    @abstractmethod
    async def submit(self, board: str, player_id: str, time_ms: int, moves: int, finished_ms: int,
                     keep_seconds: int) -> None:
        """Enter a win on ``board`` (``game/variant/YYYY-MM-DD``); only a
        better entry replaces a player's existing one."""

    @abstractmethod
    async def leaderboard(self, board: str, offset: int = 0, count: int = 10) -> list[LeaderEntry]: ...

    @abstractmethod
    async def rank(self, board: str, player_id: str) -> LeaderEntry | None: ...

    @abstractmethod
    async def board_size(self, board: str) -> int:
        """The entries on ``board`` (0 once it expired), for a rank's percentile."""

    # ---------------------------------------------------------------- settings

    @abstractmethod
    async def setting(self, name: str, default: str, keep_seconds: int | None = None) -> str:
        """The stored value of ``name``, storing ``default`` first if none
        is set, atomically, so every process agrees on one value.

        ``keep_seconds`` makes a value stored by this call expire, for
        first-writer-wins facts that stop mattering (a ranked claim after
        its day's leaderboard is gone); an existing value keeps its own
        lifetime."""

    @abstractmethod
    async def claim(self, name: str, value: str, keep_seconds: int, *, while_holding: tuple[str, str]) -> str | None:
        """``setting(name, value, keep_seconds)``, done only while the
        setting ``while_holding[0]`` still contains the text
        ``while_holding[1]``, checked in the same atomic step (on a Redis
        Cluster, where the two are in different slots, checked before and
        after, the claim undone if the second check fails): the stored
        value of ``name``, or None (nothing written) when the setting no
        longer holds it.  A ranked claim names the daily record it is on
        by that record's nonce, so no claim is written on a deal the store
        no longer holds (wiped or replaced since the process read it)."""

    @abstractmethod
    async def replace_setting(self, name: str, expected: str, value: str | None, keep_seconds: int) -> bool:
        """Replace ``name``'s value with ``value`` (None: remove it), kept
        ``keep_seconds``, only if it is still ``expected``, atomically;
        whether it was.  Repairs a first-writer-wins fact whose writer
        turned out void (a ranked claim on a race game that never started)
        without ever undoing a fact another process just wrote."""

    # ---------------------------------------------------------------- stocks

    @abstractmethod
    async def stock_push(self, stock: str, item: str) -> int:
        """Add ``item`` to the end of a first-in, first-out stock (race
        deals proven ahead); the stock's size after."""

    @abstractmethod
    async def stock_pop(self, stock: str) -> str | None:
        """Take the oldest item of a stock, atomically (two processes never
        get the same one), or None when it is empty."""

    @abstractmethod
    async def stock_size(self, stock: str) -> int: ...

    # ---------------------------------------------------------------- documents

    @abstractmethod
    async def put_document(self, kind: str, key: str, value: dict[str, Any], keep_seconds: int | None = None) -> None:
        """Store a small JSON document (races, daily commitments)."""

    @abstractmethod
    async def list_documents(self, kind: str, index: str, limit: int = 50) -> list[dict[str, Any]]:
        """Documents added to ``index`` (e.g. a player's race history), newest first."""

    @abstractmethod
    async def index_document(self, kind: str, index: str, key: str, score: float) -> None: ...

    # ---------------------------------------------------------------- enumeration

    @abstractmethod
    async def held(self, space: str) -> list[Held]:
        """Everything alive of one of ``HELD_SPACES``, by kind and name: how
        a move to another back end lists a store whole (``arena export``).
        It reads every key of the space (Redis: ``SCAN``), so tools only."""

    @abstractmethod
    async def stock_items(self, stock: str) -> list[str]:
        """A stock's items, oldest first, taking none."""

    @abstractmethod
    async def index_entries(self, kind: str, index: str) -> list[tuple[str, float]]:
        """An index's (key, score) pairs, highest first, expired documents' too."""

    # ---------------------------------------------------------------- pub/sub

    @abstractmethod
    async def publish(self, channel: str, payload: bytes) -> None: ...

    @abstractmethod
    async def subscribe(self, channel: str, on_resume: OnResume | None = None, skip: Skip | None = None) -> Subscription:
        """Listen to ``channel``.  Returns once the subscription is in
        place, so anything published afterwards, by any process, is
        delivered in publishing order, but for what ``skip`` matches (a
        store of one process drops that unseen: a room hears no wake-up
        for its own entries).  Messages published while a connection was
        lost are lost (the Redis store reconnects by itself): number what
        you publish.  A gap shows only when a later message comes, so once
        the subscription is back ``on_resume`` is awaited, inside the
        iteration, between the messages from before and after the loss:
        reload there what the channel follows (never, in one process)."""


def board_score(time_ms: int, moves: int, finished_ms: int) -> int:
    """One integer ordering entries by time, then moves, then finish time.

    Exact within 2**53, so a Redis sorted-set score (a double) holds it
    exactly: time in centiseconds capped at 2**24 (46 hours), moves capped
    at 4,095 (2**12), and the second of the UTC day the game finished
    (below 2**17).  Lower is better.
    """
    centis = min(time_ms // 10, (1 << 24) - 1)
    moves_part = min(moves, (1 << 12) - 1)
    second_of_day = (finished_ms // 1000) % 86400
    return (centis << 29) | (moves_part << 17) | second_of_day
