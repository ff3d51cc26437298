"""The daily challenge: one secret deal per game and variant per UTC
day, a commitment to it published before anyone plays, a reveal after the
day, ranked first attempts and the day's leaderboards.

The deal is a secret seed (``server.secret_deals``): an HMAC of
``daily/GAME/VARIANT/DATE`` and an attempt number under the server's
secret, proven winnable by the server's solver in a worker process before
anyone sees it.  The record of a day (seed, attempt, winning line, a
random nonce, when it was fixed) is stored with ``store.setting``, which
keeps the first value written, so every process serves the same deal and
the same commitment all day.  The commitment is
``sha256("GAME/VARIANT/DATE/SEED/NONCE")`` with the seed in 16 hex digits;
after the day (and its grace period) ``daily`` reveals the seed, the nonce
and the winning line, and anyone can recompute the commitment, deal the
layout from the seed with the public generator and replay the line
(``arena daily --verify DATE``).

Decisions where the issue is silent:
- Daily variants are ``daily_variants()``, what each game's descriptor
  declares (``GameDescriptor.daily``): WordLink draw 1 and draw 3 with
  standard scoring (Vegas has its own preset deals), Broken Deck per
  difficulty, Chequers and Lara's Game.  Other options (auto-collect,
  undo and hint budgets) do not change the deal.
- A server prepares the next day's records during the day before
  (``DailyKeeper`` in ``server.keeper``), so ``daily`` shows tomorrow's
  commitments already.  ``daily`` never waits for a proof: a variant of
  today not proven yet (a fresh server, a day nobody prepared) is listed
  as pending with an estimate, and its proof goes first; a ``new_game``
  or race start on it waits for that one proof.  Past records
  are read from a document copy, never created.  A fixed record never
  changes, so each process keeps the ones it has seen.
- The ranking rules (one ranked attempt, the clock, what is counted,
  who sees the board) are ``server.fair_play``'s.
- A day's deal is revealed ``daily_grace_seconds`` after the day ends, and
  its leaderboard closes then: a ranked game won later is recorded but
  not ranked, since anyone could have looked the deal up.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import asdict, dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Any, Awaitable, Callable
from weakref import WeakKeyDictionary

import engine
from engine import EngineError, Game
from engine.games import DESCRIPTORS
from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts
from server.deals import daily_secret
from server.secret_deals import DealProver, Urgency, seed_text
from server.refusal import Refusal, from_engine
from server.session import Session
from server.fair_play import board_name, counted_actions
from server.settings import Settings
from server.storage.base import BoardEntry, LeaderEntry, Store
from server.variants import variant_label


def daily_variants() -> list[tuple[str, dict[str, Any]]]:
    """(game id, options) of every daily variant of every registered game,
    read from the registry each time (a game registered later has its
    dailies at once)."""
    return [(game.id, dict(options)) for game in DESCRIPTORS.values() for options in game.daily]


DAY_MS = 86_400_000
RECORD_KIND = "ranked_daily"
"""Seed records; the numbered records of earlier versions (kind ``daily``) are not read."""
_SEEN: WeakKeyDictionary[Store, dict[str, DailyRecord]] = WeakKeyDictionary()
"""Per store, the records this process has fixed or read, by setting."""


def forget_records(store: Store) -> None:
    """Drop the records this process keeps of ``store`` (it was replaced)."""
    _SEEN.pop(store, None)


def utc_day(at_ms: int) -> date:
    return datetime.fromtimestamp(at_ms / 1000, timezone.utc).date()


def day_start_ms(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=timezone.utc).timestamp() * 1000)


def reveals_at(day: date, settings: Settings) -> int:
    """When ``day``'s deals are revealed and its leaderboards close."""
    return day_start_ms(day) + DAY_MS + settings.daily_grace_seconds * 1000


def commitment(game_id: str, variant: str, day: str, seed: int, nonce: str) -> str:
    return hashlib.sha256(f"{game_id}/{variant}/{day}/{seed_text(seed)}/{nonce}".encode()).hexdigest()


def daily_variant(game_cls: type[Game], options: dict[str, Any]) -> str:
    """The variant of a daily game; refuses variants without a daily deal."""
    variant = variant_label(game_cls, options)
    daily = [variant_label(game_cls, chosen) for game_id, chosen in daily_variants() if game_id == game_cls.id]
    if variant not in daily:
        raise Refusal(
            ErrorCode.BAD_OPTION,
            f"{game_cls.title} has no daily deal for {variant}; daily variants are: {', '.join(daily)}",
        )
    return variant


@dataclass(frozen=True)
class DailyRecord:
    """A day's deal for one game and variant, as fixed at ``committed_ms``:
    the secret seed (the ``attempt``-th of its label), the line that wins
    it, and the nonce that keeps the commitment from being searched."""

    game: str
    variant: str
    date: str
    seed: int
    attempt: int
    line: tuple[str, ...]
    nonce: str
    committed_ms: int

    @property
    def commitment(self) -> str:
        return commitment(self.game, self.variant, self.date, self.seed, self.nonce)

    @property
    def key(self) -> str:
        return f"{self.game}/{self.variant}/{self.date}"

    @property
    def setting(self) -> str:
        """The store setting that fixes it (the first value written stays)."""
        return f"{RECORD_KIND}/{self.key}"

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DailyRecord:
        return cls(**{**data, "line": tuple(data["line"])})


def _variant_options(game_cls: type[Game], variant: str) -> dict[str, Any]:
    """The options a variant's deal is proven with: those that name it."""
    return next(
        options for game_id, options in daily_variants()
        if game_id == game_cls.id and variant_label(game_cls, options) == variant
    )


def daily_label(game_id: str, variant: str, day: date) -> str:
    """What a daily seed is derived for (``server.secret_deals``)."""
    return f"daily/{game_id}/{variant}/{day.isoformat()}"


async def fixed_record(
    store: Store, settings: Settings, prover: DealProver, game_cls: type[Game], options: dict[str, Any],
    day: date, now_ms: int, urgency: Urgency = Urgency.PLAYER,
) -> DailyRecord:
    """The record of ``day`` for this game and variant, proving and fixing
    it if nobody has (today's at its first request, tomorrow's ahead);
    the proof is queued as ``urgency`` says (``DealProver``)."""
    variant = daily_variant(game_cls, options)
    seen = _SEEN.setdefault(store, {})
    setting = f"{RECORD_KIND}/{game_cls.id}/{variant}/{day.isoformat()}"
    known = seen.get(setting)
    if known is not None:
        return known
    stored_text = await store.get_setting(setting)
    if stored_text is None:
        secret = await daily_secret(store, settings.daily_secret)
        proven = await prover.prove(game_cls.id, _variant_options(game_cls, variant), secret,
                                    daily_label(game_cls.id, variant, day), urgency)
        candidate = DailyRecord(
            game_cls.id, variant, day.isoformat(), proven.seed, proven.attempt, proven.line,
            secrets.token_hex(16), now_ms,
        )
        stored_text = await store.setting(candidate.setting, candidate.to_json())
    stored = DailyRecord.from_dict(json.loads(stored_text))
    await store.put_document(RECORD_KIND, stored.key, asdict(stored))
    seen[setting] = stored
    return stored


async def known_record(store: Store, game_cls: type[Game], options: dict[str, Any], day: date) -> DailyRecord | None:
    """The record of ``day`` for this game and variant if somebody fixed
    it (``fixed_record``); never proves one, so it answers at once."""
    setting = f"{RECORD_KIND}/{game_cls.id}/{daily_variant(game_cls, options)}/{day.isoformat()}"
    known = _SEEN.get(store, {}).get(setting)
    if known is not None:
        return known
    stored_text = await store.get_setting(setting)
    return None if stored_text is None else DailyRecord.from_dict(json.loads(stored_text))


async def todays_record(
    store: Store, settings: Settings, prover: DealProver, game_cls: type[Game], options: dict[str, Any], now_ms: int
) -> DailyRecord:
    """Today's record for this game and variant (see ``fixed_record``)."""
    return await fixed_record(store, settings, prover, game_cls, options, utc_day(now_ms), now_ms)


async def past_record(store: Store, game_id: str, variant: str, day: date) -> DailyRecord | None:
    """A record fixed earlier (or ahead, for tomorrow); never creates one."""
    found = await store.get_document(RECORD_KIND, f"{game_id}/{variant}/{day.isoformat()}")
    return DailyRecord.from_dict(found) if found is not None else None


def claim_lifetime(record: DailyRecord, settings: Settings, now_ms: int) -> int:
    """Seconds a ranked claim on ``record`` is kept: until the day's
    leaderboard closes, so claims per player and day do not pile up."""
    closes_ms = reveals_at(date.fromisoformat(record.date), settings)
    return max(1, (closes_ms - now_ms) // 1000 + 1)


def leaderboard_entry(settings: Settings, session: Session) -> BoardEntry | None:
    """The entry a won ranked attempt makes on its day's leaderboard (the
    bots' board for a bot), or None: not a ranked daily win, or won after
    the day closed.  Rank is time, then every action counted
    (``fair_play.counted_actions``).  The write is the store's, as part of
    the game's end (``records.settle``)."""
    header = session.header
    finished = session.finished_ms
    if not header.ranked or header.daily is None or session.result != engine.WON or finished is None:
        return None
    if finished >= reveals_at(date.fromisoformat(header.daily), settings):
        return None
    game_cls = engine.game_class(header.game)
    board = board_name(game_cls.id, variant_label(game_cls, header.options), header.daily, header.bot)
    return BoardEntry(
        board, header.owner, session.elapsed_ms(finished), counted_actions(session), finished,
        settings.leaderboard_retention_seconds,
    )


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


TodaysRecord = Callable[[type[Game], dict[str, Any], int], Awaitable["DailyRecord | float"]]
"""Today's record of a game and variant at a time if it is fixed, else
the seconds until it should be (``DailyKeeper.today``): never a wait."""


async def daily_info(
    store: Store, settings: Settings, today_record: TodaysRecord, message: ts.Daily, now_ms: int
) -> tc.DailyInfo:
    """Commitments for today and (as far as prepared) tomorrow; seeds,
    nonces and winning lines for days past their grace period.  Today's
    variants not proven yet are listed as ``pending``, with when they
    should be ready: the reply never waits for a proof."""
    today = utc_day(now_ms)
    day = _requested_day(message.date, now_ms)
    if day > today + timedelta(days=1):
        raise Refusal(ErrorCode.FORBIDDEN, f"the daily deals of {day} are not committed yet; tomorrow's are, once prepared")
    wanted = daily_variants() if message.game is None else [
        (game_id, options) for game_id, options in daily_variants() if game_id == known_game(message.game).id
    ]
    revealed = now_ms >= reveals_at(day, settings)
    deals = []
    pending = []
    for game_id, options in wanted:
        game_cls = engine.game_class(game_id)
        record = (
            await today_record(game_cls, options, now_ms)
            if day == today
            else await past_record(store, game_id, variant_label(game_cls, options), day)
        )
        if isinstance(record, float):
            pending.append(tc.DailyPending(
                game=game_id, title=game_cls.title, variant=variant_label(game_cls, options), options=options,
                ready_in_ms=max(1, round(record * 1000)),
            ))
            continue
        if record is None:
            continue
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
                seed=seed_text(record.seed) if revealed else None,
                nonce=record.nonce if revealed else None,
                line=list(record.line) if revealed else None,
            )
        )
    return tc.DailyInfo(
        id=message.id, date=day.isoformat(), today=today.isoformat(), server_time=now_ms, deals=deals, pending=pending
    )


def _entry(entry: LeaderEntry) -> tc.LeaderboardEntry:
    return tc.LeaderboardEntry(
        rank=entry.rank,
        player_id=entry.player_id,
        name=entry.display_name,
        time_ms=entry.time_ms,
        actions=entry.moves,
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
    board = board_name(game_cls.id, variant, day, message.bots)
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

