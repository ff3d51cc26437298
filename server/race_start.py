"""What starting a race prepares before its ledger takes the start: the
race's deal and one stored game per racer.

The deal is the day's committed secret one (``daily``), a freshly proven
secret one (``winnable``, from the stock of proven deals) or the number
the host typed (unranked).  Each racer's game is stored before the
``start`` entry is appended, claiming the daily ranked attempt for a
daily race, so a start that fails discards them (``discard_games``).
"""

from __future__ import annotations

import logging
import secrets
from typing import Awaitable, Callable

import engine
from server.daily import DailyRecord, claim_lifetime, todays_record, utc_day
from server.deals import choose_deal
from server.fair_play import check_practice, claim_ranked
from server.keeper import RaceDealStock
from server.races import RaceDeal, RaceState, new_id
from server.secret_deals import DealProver, race_commitment
from server.session import ABANDONED
from server.settings import Settings
from server.storage.base import SessionHeader, StorageError, Store

log = logging.getLogger("arena.races")


class RaceStarts:
    """Deals and games for race starts; see the module docstring."""

    def __init__(self, settings: Settings, store: Store, prover: DealProver, race_deals: RaceDealStock) -> None:
        self._settings = settings
        self._store = store
        self._prover = prover
        self._race_deals = race_deals

    async def deal_for(self, state: RaceState, now: int) -> tuple[RaceDeal, DailyRecord | None]:
        """The race's deal: the day's secret one, a freshly proven secret
        one (``winnable``), or the number the host typed (unranked)."""
        game_cls = engine.game_class(state.game)
        if state.deal_request == "daily":
            record = await todays_record(self._store, self._settings, self._prover, game_cls, state.options, now)
            deal = RaceDeal(0, record.seed, record.line, record.nonce, record.commitment, True, record.date)
            return deal, record
        if state.deal_request == "winnable":
            proven = await self._race_deals.take(game_cls.id, state.options)
            nonce = secrets.token_hex(16)
            commitment = race_commitment(state.race_id, proven.seed, nonce)
            return RaceDeal(0, proven.seed, proven.line, nonce, commitment, True, None), None
        choice = choose_deal(game_cls, state.deal_request, state.options)
        return RaceDeal(choice.number, None, (), None, None, choice.verified, None), None

    async def prepare_game(
        self,
        state: RaceState,
        racer_id: str,
        deal: RaceDeal,
        record: DailyRecord | None,
        starts_at: int,
        now: int,
        make_room_for: Callable[[str], Awaitable[None]],
    ) -> SessionHeader:
        """A racer's game of the race, stored (claiming the daily ranked
        attempt for a daily race, after ``make_room_for`` the racer), not
        yet playable."""
        game_id = new_id("g_")
        ranked = record is not None and await claim_ranked(
            self._store, record.key, racer_id, game_id, claim_lifetime(record, self._settings, now),
            (record.setting, record.nonce),
        )
        if record is not None and not ranked:
            await check_practice(self._store, record.key, racer_id, utc_day(now))
        await make_room_for(racer_id)
        player = await self._store.get_player(racer_id)
        header = SessionHeader(
            game_id=game_id, game=state.game, deal=deal.number, options=dict(state.options), owner=racer_id,
            created_ms=now, practice=record is not None and not ranked, race_id=state.race_id,
            daily=record.date if record is not None else None, ranked=ranked, started_ms=starts_at,
            seed=deal.seed, bot=player is not None and player.bot,
        )
        await self._store.create_session(header)
        return header

    async def discard_games(self, headers: list[SessionHeader]) -> None:
        """Remove games prepared for a start that did not happen."""
        for header in headers:
            header.status = ABANDONED
            try:
                await self._store.finish_session(header, 0)
            except StorageError as error:
                log.warning("could not discard %s: %s", header.game_id, error)
