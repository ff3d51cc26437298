"""Creating a session, whether a player starts a game or a race starts
one for each racer: its header (``new_header``) and the claim of its
daily deal's ranked attempt (``SessionStarts``).

A ranked attempt is claimed once per player, game, variant and day
(``server.deals.claims.claim_ranked``, first writer wins across
processes): the claim lives until the day's leaderboard closes, and is
written only while the store holds the record the game is dealt from
(``StaleDeal`` otherwise).  The attempt that wins its claim takes its
address's public places there and then (``SessionStarts.bars``), and its
header keeps why it is off the public board.

The two starts order their writes differently, each for the crash it
must survive:

- a player's daily game claims first, under the game id its record names
  (``DailyRecord.attempt_id``) and a ``START_LEASE_SECONDS`` lease, then
  stores its game: a start that died between the two is taken over by
  the player's next one (``SessionStarts.claim_daily``);
- a race's game is stored first and claimed after, so no claim names a
  game never written (``server.races.start``; docs/storage.md, "Starting
  a race").
"""

from __future__ import annotations

import logging
from typing import Any

import engine
from protocol import ErrorCode
from server.deals.claims import StaleDeal, claim_ranked
from server.deals.daily import DailyRecord, claim_lifetime, forget_records, ranked_bars, todays_record
from server.deals.proofs import DealProver
from server.model.fair_play import clock_start
from server.model.ids import new_id
from server.model.records import PlayerRecord, SessionHeader
from server.model.refusal import Refusal
from server.runtime.settings import Settings
from server.storage.base import Store

log = logging.getLogger("arena.play")

START_LEASE_SECONDS = 30
"""How long a ranked daily start holds its attempt (``SessionStarts.claim_daily``):
far longer than a start takes, and short enough that a start killed
half-way locks its player out of the day for no longer."""


def new_header(
    game_id: str, game: str, deal: int, options: dict[str, Any], owner: str, created_ms: int, shown_ms: int, *,
    bot: bool, record: DailyRecord | None = None, ranked: bool = False, practice: bool = False,
    seed: int | None = None, position: str | None = None, race_id: str | None = None,
    unlisted: list[str] | None = None,
) -> SessionHeader:
    """A new session's header.  A game of a daily deal (``record``) that is
    not its player's ranked attempt is practice.  ``shown_ms`` is when its
    player first sees it: a new game's clock then starts as
    ``fair_play.clock_start`` says, a race game's then (the countdown's end)."""
    header = SessionHeader(
        game_id=game_id, game=game, deal=deal, options=dict(options), owner=owner, created_ms=created_ms,
        practice=practice or record is not None and not ranked, position=position, race_id=race_id,
        daily=record.date if record is not None else None, ranked=ranked, seed=seed, bot=bot,
        unlisted=list(unlisted or []),
    )
    header.started_ms = shown_ms if race_id is not None else clock_start(header, shown_ms)
    return header


class SessionStarts:
    """The ranked claims of new sessions; see the module docstring."""

    def __init__(self, settings: Settings, store: Store, prover: DealProver) -> None:
        self._settings = settings
        self._store = store
        self._prover = prover

    async def claim(self, record: DailyRecord, player_id: str, game_id: str, now: int) -> bool:
        """Claim ``game_id`` as the player's ranked attempt at ``record``'s
        deal; True for the first claim only (``StaleDeal`` if the store no
        longer holds ``record``)."""
        lifetime = claim_lifetime(record, self._settings, now)
        return await claim_ranked(
            self._store, record.key, player_id, game_id, lifetime, (record.setting, record.nonce)
        )

    async def bars(
        self, record: DailyRecord, player: PlayerRecord, address: str | None, game_id: str, now: int
    ) -> list[str]:
        """Why the ranked attempt ``game_id``, just claimed, may not count on
        the public board (``server.deals.claims.public_bars``)."""
        return await ranked_bars(self._store, self._settings, record, player, address, game_id, now)

    async def ended(self, game_id: str) -> bool:
        """Whether the ranked attempt ``game_id`` is over (a claim whose
        game is not stored yet is an attempt being started: playing)."""
        loaded = await self._store.load_session(game_id)
        return loaded is not None and loaded[0].status != "playing"

    async def claim_daily(
        self, game_cls: type[engine.Game], options: dict[str, Any], record: DailyRecord, player_id: str, now: int
    ) -> tuple[DailyRecord, bool]:
        """Claim the player's ranked attempt on the day's record the store
        holds; the record claimed on and whether this start is that attempt.
        The attempt's game id is the record's ``attempt_id``: a claim that
        names it while no game of that id is stored is a start that died
        before its game was written, which this start takes over; once the
        game is stored, the attempt is taken and this start is practice.
        A process that read the record before the store was wiped or
        replaced has its claim refused (``StaleDeal``): it forgets the
        records it keeps and claims on the one the store holds now (fixing
        it, if nobody has yet), so nothing ranks on a deal the store no
        longer has.  Stale twice in a row: the store is changing under
        this start, which is refused."""
        for _ in range(2):
            try:
                attempt = record.attempt_id(player_id)
                if not await self.claim(record, player_id, attempt, now):
                    return record, False
                if await self._store.load_session(attempt) is not None:
                    return record, False
                await self._lease_start(attempt)
                return record, True
            except StaleDeal:
                log.info("the store no longer holds the daily record %s: reading it again", record.setting)
                forget_records(self._store)
                record = await todays_record(self._store, self._settings, self._prover, game_cls, options, now)
        raise Refusal(
            ErrorCode.STORAGE_UNAVAILABLE, "the store was replaced while this daily started; nothing was started, try again"
        )

    async def _lease_start(self, attempt: str) -> None:
        """Hold the start of the ranked attempt ``attempt`` for this request
        alone: two connections of one player starting it at once would
        otherwise both find it claimed and not yet stored.  A start that
        dies keeps its lease for ``START_LEASE_SECONDS``; the next start
        after that takes the attempt over."""
        token = new_id("s_")
        holder = await self._store.setting(f"starting/{attempt}", token, keep_seconds=START_LEASE_SECONDS)
        if holder != token:
            raise Refusal(
                ErrorCode.UNAVAILABLE,
                "your ranked attempt at this deal is being started on another connection",
                reason="ranked_first",
            )
