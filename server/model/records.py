"""The values a game leaves in the store: a player, a session's header and
the actions of its log, a finished game's result, record and leaderboard
entries, and what a game's end settles.

They are the server's vocabulary, not the store's: rooms, races, play and
the fair-play rules read and build them, and ``server.storage.base.Store``
keeps them (docs/storage.md).  Plain dataclasses (named tuples for the
two that every action makes), so they import nothing of the server.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Iterator, NamedTuple, Sequence, overload


@dataclass
class PlayerRecord:
    """A player.  ``bot``: the identity declared itself a bot in some
    ``hello``; it stays one (a bot never ranks as a human).  ``address``:
    the client address (``server.net.admission.normalize``) of its latest
    ``hello``, which a race start counts its ranked attempt under
    (``server.deals.claims.public_bars``); None before any."""

    player_id: str
    display_name: str
    token_hash: str
    created_ms: int
    bot: bool = False
    address: str | None = None


@dataclass
class SessionHeader:
    """Everything about a game session except its actions.

    ``options`` are the engine options; ``practice`` sessions record
    nothing; ``race_id`` and ``daily`` tie a session to a race or a daily
    challenge (``daily`` is the UTC date ``YYYY-MM-DD`` of any attempt at
    that day's deal, ranked or practice: its deal stays secret until the
    day is revealed).  ``seed`` is set for a deal dealt from a secret seed
    (``engine.seeded_game``; ``deal`` is 0 then); ``bot`` for a game whose
    owner declared itself a bot.  ``unlisted``: why a ranked attempt may
    not count on its public board, as decided when it started
    (``server.model.fair_play``'s reasons; empty for every other game).
    """

    game_id: str
    game: str
    deal: int
    options: dict[str, Any]
    owner: str
    created_ms: int
    practice: bool = False
    position: str | None = None
    status: str = "playing"
    started_ms: int | None = None
    finished_ms: int | None = None
    race_id: str | None = None
    daily: str | None = None
    ranked: bool = False
    seed: int | None = None
    bot: bool = False
    unlisted: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SessionHeader:
        return cls(**data)


class Action(NamedTuple):
    """One entry of a session log: ``kind`` is move, undo, redo, hint,
    restart or resign; ``text`` the move notation (or empty); ``at_ms`` the
    server's clock when it was accepted.  Immutable: a store and every
    session may share one entry without copying it.  A named tuple, not a
    frozen dataclass: every action makes one, and a frozen dataclass's
    ``__init__`` sets each field through ``object.__setattr__``."""

    kind: str
    text: str
    at_ms: int

    def to_list(self) -> list[Any]:
        return [self.kind, self.text, self.at_ms]

    @classmethod
    def from_list(cls, data: list[Any]) -> Action:
        kind, text, at_ms = data
        return cls(str(kind), str(text), int(at_ms))

    def plain(self) -> PlainAction:
        """The fields as an exact tuple of exact ``str`` and ``int``, which
        the garbage collector stops tracking the first time it meets it.
        CPython untracks exact tuples only, never a named tuple, and a
        ``str`` subclass (``ActionKind`` is one) is tracked itself."""
        return (str(self.kind), str(self.text), int(self.at_ms))


PlainAction = tuple[str, str, int]


class ActionLog(Sequence[Action]):
    """A session's log, read as ``Action`` entries and kept as plain
    tuples (``Action.plain``): to the garbage collector a held game's log
    is one list however long it grows, where a list of named tuples is
    one tracked object per action, walked by every full collection for as
    long as someone watches the game."""

    __slots__ = ("_entries", "_kinds")

    def __init__(self, entries: Sequence[Action] = ()) -> None:
        self._entries: list[PlainAction] = []
        self._kinds: dict[str, int] = {}
        for entry in entries:
            self.append(entry)

    def append(self, action: Action) -> None:
        plain = action.plain()
        self._entries.append(plain)
        kinds = self._kinds
        kinds[plain[0]] = kinds.get(plain[0], 0) + 1

    def count(self, kinds: Iterable[str]) -> int:
        """The entries of these kinds, counted as they were appended: a
        ranked attempt's tie-break (its counted actions) is read for every
        row of every friends' board, and walking the log for it made each
        read grow with every action of every friend."""
        return sum(self._kinds.get(kind, 0) for kind in kinds)

    def __len__(self) -> int:
        return len(self._entries)

    def at_ms(self, index: int) -> int:
        """Entry ``index``'s time, without making its ``Action``: each
        action reads its own and the first one's, for the clock."""
        return self._entries[index][2]

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        if isinstance(index, slice):
            return [Action._make(entry) for entry in self._entries[index]]
        return Action._make(self._entries[index])

    def __iter__(self) -> Iterator[Action]:
        return map(Action._make, self._entries)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ActionLog):
            return self._entries == other._entries
        return isinstance(other, Sequence) and list(self) == list(other)

    def __repr__(self) -> str:
        return f"ActionLog({list(self)!r})"


class Announcement(NamedTuple):
    """A message that ``Store.append`` publishes on ``channel`` in the same
    atomic step as the entry it announces, and only if the entry is
    written: so no process can write an entry and die before telling the
    others (the relay, ``server/games/relay.py``).  A named tuple, as
    ``Action`` is: every action makes one."""

    channel: str
    payload: bytes


@dataclass
class GameResult:
    """What one finished (won, lost or resigned) game adds to a record.

    ``counters`` are the game's own sums, by the names its descriptor
    records (``GameDescriptor.recorded``: Broken Deck's repairs): the
    store sums whatever names it is given, so a new game's counter needs
    nothing of the store."""

    won: bool
    moves: int
    time_ms: int
    hints: int = 0
    undos: int = 0
    score: int | None = None
    counters: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class BoardEntry:
    """A win to enter on a leaderboard: ``Store.submit``'s arguments."""

    board: str
    player_id: str
    time_ms: int
    moves: int
    finished_ms: int
    keep_seconds: int


@dataclass(frozen=True)
class DayResult:
    """How a player's ranked attempt at one day's daily deal ended, kept
    under ``key`` (``game/variant/YYYY-MM-DD``, the deal's day, not the
    day it finished): what streaks and stats are derived from.  ``won``
    only for a win before the day's reveal, when it still ranks."""

    key: str
    won: bool
    time_ms: int
    actions: int
    finished_ms: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DayResult:
        return cls(**data)


@dataclass(frozen=True)
class ResultEntry:
    """A finished game's part of its owner's record (``Store.add_result``),
    for a Vegas game of the Vegas earnings (``Store.add_vegas``), and for a
    ranked daily attempt of the player's days (``Store.add_day``)."""

    player_id: str
    record_key: str
    result: GameResult
    vegas: int | None = None
    day: DayResult | None = None


@dataclass(frozen=True)
class Finish:
    """Everything a game's end leaves behind, settled by ``settle_finish``:
    the final ``header`` (kept ``keep_seconds`` more), the owner's record
    (None for practice) and a ranked win's leaderboard entry."""

    header: SessionHeader
    keep_seconds: int
    result: ResultEntry | None = None
    board: BoardEntry | None = None


@dataclass
class LeaderEntry:
    rank: int
    player_id: str
    display_name: str
    time_ms: int
    moves: int
    finished_ms: int


@dataclass
class Record:
    """A player's record for one (game, variant): sums and bests, and the
    game's own sums in ``counters`` (by name, as ``GameResult`` gives them)."""

    games: int = 0
    wins: int = 0
    moves: int = 0
    time_ms: int = 0
    hints: int = 0
    undos: int = 0
    counters: dict[str, int] = field(default_factory=dict)
    best_moves: int | None = None
    best_time_ms: int | None = None
    extra: dict[str, int] = field(default_factory=dict)
