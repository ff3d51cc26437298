"""The daily challenge: one secret deal per game and variant per UTC
day, a commitment to it published before anyone plays, a reveal after the
day, ranked first attempts and the day's leaderboards.

The deal is a secret seed (``server.deals.proofs``): an HMAC of
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
(``arena daily --verify DATE``), and replay the day's first ranked
attempt (``first_game``, ``note_ranked_attempt``) to see its first board
is that layout.  A record published is the day's deal for good: one the
store lost (a restart of the memory store, a wiped Redis) is stored again
from the process's memory or the data directory (``server.runtime.data_dir``),
never proven anew (``server.deals.book.DailyBook``; docs/storage.md, "A day's deal
outlives the store").

Decisions made here, and why:
- Daily variants are ``daily_variants()``, what each game's descriptor
  declares (``GameDescriptor.daily``): WordLink draw 1 and draw 3 with
  standard scoring (Vegas has its own preset deals), Broken Deck per
  difficulty, Chequers and Lara's Game.  Other options (auto-collect,
  undo and hint budgets) do not change the deal.
- A server prepares the next day's records during the day before
  (``DailyKeeper`` in ``server.deals.keeper``), so ``daily`` shows tomorrow's
  commitments already.  ``daily`` never waits for a proof: a variant of
  today not proven yet (a fresh server, a day nobody prepared) is listed
  as pending with an estimate, and its proof goes first; a ``new_game``
  or race start on it waits for that one proof.  Past records
  are read from a document copy, never created.  A fixed record never
  changes, so each process keeps the ones it has seen (its ``DailyBook``).
- The ranking rules (one ranked attempt, the clock, what is counted,
  who sees the board) are ``server.model.fair_play``'s.
- A day's deal is revealed ``daily_grace_seconds`` after the day ends, and
  its leaderboard closes then: a ranked game won later is recorded but
  not ranked, since anyone could have looked the deal up.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import asdict, dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Any, Awaitable, Callable

import engine
from engine import EngineError, Game
from engine.games import DESCRIPTORS
from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts
from server.runtime.data_dir import kept_record
from server.deals.proofs import seed_text
from server.model.ids import ID_BYTES
from server.model.refusal import Refusal, from_engine
from server.model.session import Session
from server.model.fair_play import board_apart, board_name, counted_actions, unlisted
from server.deals.claims import public_bars
from server.runtime.settings import Settings
from server.model.records import BoardEntry, DayResult, PlayerRecord
from server.storage.base import Store
from server.deals.variants import variant_label


def daily_variants() -> list[tuple[str, dict[str, Any]]]:
    """(game id, options) of every daily variant of every registered game,
    read from the registry each time (a game registered later has its
    dailies at once)."""
    return [(game.id, dict(options)) for game in DESCRIPTORS.values() for options in game.daily]


DAY_MS = 86_400_000
RECORD_KIND = "ranked_daily"
"""Seed records; the numbered records of earlier versions (kind ``daily``) are not read."""
FIRST_KIND = "ranked_daily_first"
"""Settings naming each day's first ranked attempt (``note_ranked_attempt``)."""
ATTEMPT_KIND = "daily_attempt"
"""Documents of the day's ranked attempts, indexed by the daily's key, so a
leaderboard can list those still playing after the wins; each is kept as
long as its claim."""
ATTEMPT_ID_BYTES = ID_BYTES
"""As many random-looking bytes as a random game id has."""


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


def daily_key(game: str, variant: str, day: str) -> str:
    """What ranked claims and a day's records of one game and variant are
    kept under."""
    return f"{game}/{variant}/{day}"


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
        return daily_key(self.game, self.variant, self.date)

    @property
    def setting(self) -> str:
        """The store setting that fixes it (the first value written stays)."""
        return f"{RECORD_KIND}/{self.key}"

    def attempt_id(self, player_id: str) -> str:
        """The game id of ``player_id``'s ranked attempt at this deal: the
        same for every start, so a start killed between its claim and its
        game is taken over by the player's next one (the claim then names
        it, and never a game that does not exist for long).  Derived from
        the secret nonce, so nobody can name it before the reveal."""
        digest = hashlib.sha256(f"daily-game/{self.nonce}/{self.key}/{player_id}".encode()).digest()[:ATTEMPT_ID_BYTES]
        return "g_" + base64.urlsafe_b64encode(digest).decode()

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DailyRecord:
        return cls(**{**data, "line": tuple(data["line"])})


def variant_options(game_cls: type[Game], variant: str) -> dict[str, Any]:
    """The options a variant's deal is proven with: those that name it."""
    return next(
        options for game_id, options in daily_variants()
        if game_id == game_cls.id and variant_label(game_cls, options) == variant
    )


def daily_label(game_id: str, variant: str, day: date) -> str:
    """What a daily seed is derived for (``server.deals.proofs``)."""
    return f"daily/{game_id}/{variant}/{day.isoformat()}"


async def past_record(store: Store, settings: Settings, game_id: str, variant: str, day: date) -> DailyRecord | None:
    """A record fixed earlier (or ahead, for tomorrow), from the store or
    else the data directory; never creates one."""
    key = f"{game_id}/{variant}/{day.isoformat()}"
    found = await store.get_document(RECORD_KIND, key)
    if found is not None:
        return DailyRecord.from_dict(found)
    kept = kept_record(settings.data_dir, key) if settings.data_dir is not None else None
    return DailyRecord.from_dict(json.loads(kept)) if kept is not None else None


def _first_setting(record: DailyRecord) -> str:
    return f"{FIRST_KIND}/{record.key}"


async def note_ranked_attempt(store: Store, settings: Settings, record: DailyRecord, game_id: str, now_ms: int) -> None:
    """Name ``game_id`` the day's first ranked attempt at ``record``'s deal
    unless one is named (first writer wins).  The reveal names it, so that
    anyone can replay it and see that the board players were dealt is the
    revealed layout; it is kept as long as the game may be replayed."""
    keep = claim_lifetime(record, settings, now_ms) + settings.finished_retention_seconds
    await store.setting(_first_setting(record), game_id, keep_seconds=keep)
    await store.put_document(ATTEMPT_KIND, game_id, {"game_id": game_id}, claim_lifetime(record, settings, now_ms))
    await store.index_document(ATTEMPT_KIND, record.key, game_id, now_ms)


def claim_lifetime(record: DailyRecord, settings: Settings, now_ms: int) -> int:
    """Seconds a ranked claim on ``record`` is kept: until the day's
    leaderboard closes, so claims per player and day do not pile up."""
    closes_ms = reveals_at(date.fromisoformat(record.date), settings)
    return max(1, (closes_ms - now_ms) // 1000 + 1)


async def ranked_bars(
    store: Store, settings: Settings, record: DailyRecord, player: PlayerRecord, address: str | None, game_id: str,
    now_ms: int,
) -> list[str]:
    """Why the ranked attempt ``game_id`` at ``record``'s deal, just
    claimed by ``player`` from ``address``, may not count on the public
    board (``server.deals.claims.public_bars``, against the start of its day)."""
    day_start = day_start_ms(date.fromisoformat(record.date))
    keep = claim_lifetime(record, settings, now_ms)
    return await public_bars(store, settings, record.key, day_start, player, address, game_id, keep)


def leaderboard_entry(settings: Settings, session: Session) -> BoardEntry | None:
    """The entry a won ranked attempt makes on its day's leaderboard (the
    bots' board for a bot or a flagged win, a board apart for a win off
    the public board: ``fair_play.board_apart``), or None: not a ranked daily win, or won after
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
    bot, apart = board_apart(header.bot, unlisted(settings, session))
    board = board_name(game_cls.id, variant_label(game_cls, header.options), header.daily, bot, apart)
    return BoardEntry(
        board, header.owner, session.elapsed_ms(finished), counted_actions(session), finished,
        settings.leaderboard_retention_seconds,
    )


def day_result(settings: Settings, session: Session) -> DayResult | None:
    """What a finished ranked daily attempt leaves in its player's days
    (``Store.add_day``), under the deal's day: a win counts as won only
    before the day's reveal, like its leaderboard entry; a loss, a
    resignation or a late win is a day played and not won."""
    header = session.header
    finished = session.finished_ms
    if not header.ranked or header.daily is None or finished is None:
        return None
    game_cls = engine.game_class(header.game)
    won = session.result == engine.WON and finished < reveals_at(date.fromisoformat(header.daily), settings)
    return DayResult(
        daily_key(game_cls.id, variant_label(game_cls, header.options), header.daily), won,
        session.elapsed_ms(finished), counted_actions(session), finished,
    )


# ------------------------------------------------------------------ replies


def requested_day(text: str | None, now_ms: int) -> date:
    """The day a request names (today when it names none)."""
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
    day = requested_day(message.date, now_ms)
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
            else await past_record(store, settings, game_id, variant_label(game_cls, options), day)
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
                first_game=await store.get_setting(_first_setting(record)) if revealed else None,
            )
        )
    return tc.DailyInfo(
        id=message.id, date=day.isoformat(), today=today.isoformat(), server_time=now_ms, deals=deals, pending=pending
    )

