"""The daily challenge: one deal per game and variant per UTC day, a
public commitment to it, ranked first attempts and the day's leaderboards.

The deal is ``deals.daily_pick`` (an HMAC under the server's secret) of
the verified pool.  The first time anyone needs a day's deal (a ``daily``
request, a daily game or a daily race) the server fixes a record: the
deal, a random nonce and the time, stored with ``store.setting``, which
keeps the first value written, so every process serves the same deal and
the same commitment all day, even if the pool changes under it.  The
commitment is ``sha256("GAME/VARIANT/DATE/DEAL/NONCE")``; after the day
(and its grace period) ``daily`` reveals the deal and the nonce, and
anyone can recompute it.  Without the nonce the commitment of a deal
number could be found by trying every number of the pool.

Decisions where the issue is silent:
- Daily variants are ``DAILY_VARIANTS``: WordLink draw 1 and draw 3 with
  standard scoring (Vegas has its own preset deals), Broken Deck per
  difficulty, Chequers and Lara's Game.  Other options (auto-collect,
  undo and hint budgets, Broken Deck practice) do not change the deal.
- The commitment is fixed lazily, at the first request of the day, and
  ``committed_ms`` says when; nobody can see a deal before it is fixed,
  so this is as binding as publishing at midnight.  Past records are read
  from a document copy, never created, so asking about old dates stores
  nothing; a date nobody played has no record and is left out.  A fixed
  record never changes, so each process keeps the ones it has seen (and
  copied to their document) and asks the store no more about them.
- A ranked attempt is the first non-practice daily game a player starts
  for a game, variant and day (a daily race counts when it starts).  The
  claim is ``store.setting`` too (first writer wins, atomically, across
  processes), so two connections starting the daily at once get one
  ranked game.  Later attempts are practice: they record nothing.
- A day's deal is revealed ``daily_grace_seconds`` after the day ends, and
  its leaderboard closes then: a ranked game won later is recorded but
  not ranked, since anyone could have looked the deal up.
- Leaderboard time is the session's clock (from the first action, or from
  the race start), then moves, then the finishing time.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import asdict, dataclass
from datetime import date, datetime, timezone
from typing import Any
from weakref import WeakKeyDictionary

import engine
from engine import EngineError, Game
from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts
from server.deals import daily_pick, daily_secret, pool_for
from server.refusal import Refusal, from_engine
from server.session import Session
from server.settings import Settings
from server.storage.base import LeaderEntry, Store
from server.variants import variant_of

DAILY_VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("klondike", {"draw": 1}),
    ("klondike", {"draw": 3}),
    ("broken-deck", {"difficulty": "relaxed"}),
    ("broken-deck", {"difficulty": "standard"}),
    ("broken-deck", {"difficulty": "challenge"}),
    ("chequers", {}),
    ("laras-game", {}),
)
DAY_MS = 86_400_000
RECORD_KIND = "daily"
_SEEN: WeakKeyDictionary[Store, dict[str, DailyRecord]] = WeakKeyDictionary()
"""Per store, the records this process has fixed or read, by setting."""


def utc_day(at_ms: int) -> date:
    return datetime.fromtimestamp(at_ms / 1000, timezone.utc).date()


def day_start_ms(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=timezone.utc).timestamp() * 1000)


def reveals_at(day: date, settings: Settings) -> int:
    """When ``day``'s deals are revealed and its leaderboards close."""
    return day_start_ms(day) + DAY_MS + settings.daily_grace_seconds * 1000


def commitment(game_id: str, variant: str, day: str, deal: int, nonce: str) -> str:
    return hashlib.sha256(f"{game_id}/{variant}/{day}/{deal}/{nonce}".encode()).hexdigest()


def board_name(game_id: str, variant: str, day: str) -> str:
    """The leaderboard of a game, variant and UTC day (``YYYY-MM-DD``)."""
    return f"{game_id}/{variant}/{day}"


def daily_variant(game_cls: type[Game], options: dict[str, Any]) -> str:
    """The variant of a daily game; refuses variants without a daily deal."""
    variant = variant_of(game_cls, options)
    daily = [variant_of(game_cls, chosen) for game_id, chosen in DAILY_VARIANTS if game_id == game_cls.id]
    if variant not in daily:
        raise Refusal(
            ErrorCode.BAD_OPTION,
            f"{game_cls.title} has no daily deal for {variant}; daily variants are: {', '.join(daily)}",
        )
    return variant


@dataclass(frozen=True)
class DailyRecord:
    """A day's deal for one game and variant, as fixed at ``committed_ms``."""

    game: str
    variant: str
    date: str
    deal: int
    nonce: str
    committed_ms: int
    verified: bool

    @property
    def commitment(self) -> str:
        return commitment(self.game, self.variant, self.date, self.deal, self.nonce)

    @property
    def key(self) -> str:
        return f"{self.game}/{self.variant}/{self.date}"

    @property
    def setting(self) -> str:
        """The store setting that fixes it (the first value written stays)."""
        return f"daily/{self.key}"

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DailyRecord:
        return cls(**data)


async def todays_record(store: Store, settings: Settings, game_cls: type[Game], options: dict[str, Any],
                        now_ms: int) -> DailyRecord:
    """Today's record for this game and variant, fixing it if nobody has."""
    variant = daily_variant(game_cls, options)
    day = utc_day(now_ms)
    seen = _SEEN.setdefault(store, {})
    known = seen.get(f"daily/{game_cls.id}/{variant}/{day.isoformat()}")
    if known is not None:
        return known
    pool, verified = pool_for(game_cls, options, "daily")
    if not pool:
        raise Refusal(ErrorCode.BAD_OPTION, f"there are no verified deals for {game_cls.title} {variant} yet")
    secret = await daily_secret(store, settings.daily_secret)
    deal = daily_pick(secret, game_cls.id, variant, day, pool)
    candidate = DailyRecord(game_cls.id, variant, day.isoformat(), deal, secrets.token_hex(16), now_ms, verified)
    stored = DailyRecord.from_dict(json.loads(await store.setting(candidate.setting, candidate.to_json())))
    await store.put_document(RECORD_KIND, stored.key, asdict(stored))
    seen[stored.setting] = stored
    return stored


async def past_record(store: Store, game_id: str, variant: str, day: date) -> DailyRecord | None:
    found = await store.get_document(RECORD_KIND, f"{game_id}/{variant}/{day.isoformat()}")
    return DailyRecord.from_dict(found) if found is not None else None


async def claim_ranked(
    store: Store, settings: Settings, record: DailyRecord, player_id: str, game_id: str, now_ms: int
) -> bool:
    """Claim ``game_id`` as the player's ranked attempt at ``record``'s deal;
    True for the first claim only (see the module docstring).  The claim
    expires when the day's leaderboard closes: no win is ranked after that,
    and a claim per player and day must not pile up in the store forever."""
    closes_ms = reveals_at(date.fromisoformat(record.date), settings)
    keep_seconds = max(1, (closes_ms - now_ms) // 1000 + 1)
    owner = await store.setting(f"ranked/{record.key}/{player_id}", game_id, keep_seconds=keep_seconds)
    return owner == game_id


async def enter_leaderboard(store: Store, settings: Settings, session: Session) -> bool:
    """Put a won ranked attempt on its day's leaderboard, unless the day
    has closed; True if it was entered (a worse time than the player's
    best on the board changes nothing there)."""
    header = session.header
    finished = session.finished_ms
    if not header.ranked or header.daily is None or session.result != engine.WON or finished is None:
        return False
    if finished >= reveals_at(date.fromisoformat(header.daily), settings):
        return False
    game_cls = engine.game_class(header.game)
    board = board_name(game_cls.id, variant_of(game_cls, header.options), header.daily)
    await store.submit(
        board, header.owner, session.elapsed_ms(finished), session.moves, finished,
        settings.leaderboard_retention_seconds,
    )
    return True


# ------------------------------------------------------------------ replies


def _requested_day(text: str | None, now_ms: int) -> date:
    if text is None:
        return utc_day(now_ms)
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise Refusal(ErrorCode.BAD_OPTION, f"{text!r} is not a date (YYYY-MM-DD)") from None


def known_game(game_id: str) -> type[Game]:
    """The game class, or the ``unknown_game`` refusal listing the games."""
    try:
        return engine.game_class(game_id)
    except EngineError as error:
        raise from_engine(error) from None


async def daily_info(store: Store, settings: Settings, message: ts.Daily, now_ms: int) -> tc.DailyInfo:
    """Commitments for today, reveals for days past their grace period."""
    today = utc_day(now_ms)
    day = _requested_day(message.date, now_ms)
    if day > today:
        raise Refusal(ErrorCode.FORBIDDEN, f"the daily deals of {day} are secret until that day begins (UTC)")
    wanted = DAILY_VARIANTS if message.game is None else [
        (game_id, options) for game_id, options in DAILY_VARIANTS if game_id == known_game(message.game).id
    ]
    deals = []
    for game_id, options in wanted:
        game_cls = engine.game_class(game_id)
        record = (
            await todays_record(store, settings, game_cls, options, now_ms)
            if day == today
            else await past_record(store, game_id, variant_of(game_cls, options), day)
        )
        if record is None:
            continue
        revealed = now_ms >= reveals_at(day, settings)
        deals.append(
            tc.DailyDeal(
                game=game_id,
                title=game_cls.title,
                variant=record.variant,
                options=options,
                board=board_name(game_id, record.variant, record.date),
                date=record.date,
                commitment=record.commitment,
                committed_ms=record.committed_ms,
                reveals_at=reveals_at(day, settings),
                deal=record.deal if revealed else None,
                nonce=record.nonce if revealed else None,
                verified=record.verified,
            )
        )
    return tc.DailyInfo(id=message.id, date=day.isoformat(), today=today.isoformat(), server_time=now_ms, deals=deals)


def _entry(entry: LeaderEntry) -> tc.LeaderboardEntry:
    return tc.LeaderboardEntry(
        rank=entry.rank,
        player_id=entry.player_id,
        name=entry.display_name,
        time_ms=entry.time_ms,
        moves=entry.moves,
        finished_ms=entry.finished_ms,
    )


async def leaderboard_page(
    store: Store, message: ts.Leaderboard, player_id: str | None, now_ms: int
) -> tc.LeaderboardPage:
    """A page of a day's board; ``around_me`` centres it on the asker."""
    game_cls = known_game(message.game)
    try:
        options = engine.new_game(game_cls.id, game_cls.FIRST_DEAL, **message.options).options
    except EngineError as error:
        raise from_engine(error) from None
    variant = daily_variant(game_cls, options)
    day = _requested_day(message.date, now_ms).isoformat()
    board = board_name(game_cls.id, variant, day)
    mine = await store.rank(board, player_id) if player_id is not None else None
    offset = message.offset
    if message.around_me and mine is not None:
        offset = max(0, mine.rank - 1 - message.limit // 2)
    entries = await store.leaderboard(board, offset, message.limit)
    return tc.LeaderboardPage(
        id=message.id,
        board=board,
        game=game_cls.id,
        title=game_cls.title,
        variant=variant,
        date=day,
        offset=offset,
        entries=[_entry(entry) for entry in entries],
        me=_entry(mine) if mine is not None else None,
    )

