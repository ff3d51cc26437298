"""What starting a race prepares before its ledger takes the start: the
race's deal and one stored game per racer, made and claimed as any new
session is (``server.games.sessions``).

The deal is the day's committed secret one (``daily``), a freshly proven
secret one (``winnable``, from the stock of proven deals) or the number
the host typed (unranked).

A start is all or nothing (docs/storage.md, "Starting a race"), whatever
kills it between two writes:

- Each racer's game has an id derived from the race and the racer
  (``race_game_id``), so starting again prepares the same games: what
  a dead start wrote is taken over, never left beside a second copy.
- A game is stored before the daily ranked claim that points to it, so
  no claim points to a game that was never written; a discarded game's
  claim is given up before the game (``discard_games``), and a game
  prepared for a start that never happened gives its claim up when it is
  found (``server.races.desk``'s orphans).
- The ``start`` entry comes last: until it is in the ledger the race is
  in its lobby and may be started again.

Who takes a place in a daily race (docs/protocol.md, *Races with
friends*): a racer without a ranked attempt today claims this game as it;
one whose attempt has ended had seen the deal and races unranked, apart;
one whose attempt is still being played sits the race out (no game), so
the race starts for the others.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import secrets
from dataclasses import dataclass
from typing import Awaitable, Callable

import engine
from protocol import ErrorCode
from server.deals.daily import DailyRecord, daily_key, todays_record
from server.deals.numbered import choose_deal
from server.deals.claims import ranked_attempt, release_claim, release_public_places
from server.games.sessions import SessionStarts, new_header
from server.deals.keeper import RaceDealStock
from server.races.state import RaceDeal, RaceState
from server.model.refusal import Refusal
from server.deals.proofs import DealProver, race_commitment
from server.model.session import ABANDONED
from server.runtime.settings import Settings
from server.model.records import PlayerRecord, SessionHeader
from server.storage.base import StorageError, Store
from server.deals.variants import variant_label

log = logging.getLogger("arena.races")

GAME_ID_BYTES = 9
"""As many random-looking bytes as ``races.new_id`` gives a game id."""


def race_game_id(race_id: str, player_id: str) -> str:
    """A racer's game in a race: the same for every start of the race, so
    a start that died is taken over by the next one."""
    digest = hashlib.sha256(f"race-game/{race_id}/{player_id}".encode()).digest()[:GAME_ID_BYTES]
    return "g_" + base64.urlsafe_b64encode(digest).decode()


def claim_key(header: SessionHeader) -> str | None:
    """The daily ranked claim a daily game may hold (None for other games)."""
    if header.daily is None:
        return None
    return daily_key(header.game, variant_label(engine.game_class(header.game), header.options), header.daily)


@dataclass(frozen=True)
class Prepared:
    """A racer's part in a start: their game (None: they sit it out) and
    whether it is their ranked daily attempt."""

    header: SessionHeader | None
    ranked: bool

    @property
    def entry(self) -> tuple[str, bool] | None:
        return None if self.header is None else (self.header.game_id, self.ranked)


class RaceStarts:
    """Deals and games for race starts; see the module docstring."""

    def __init__(self, settings: Settings, store: Store, prover: DealProver, race_deals: RaceDealStock) -> None:
        self._settings = settings
        self._store = store
        self._prover = prover
        self._race_deals = race_deals
        self._sessions = SessionStarts(settings, store, prover)

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
    ) -> Prepared:
        """A racer's game of the race, stored and, in a daily race, claimed
        as their ranked attempt when they have none (see the module
        docstring); not yet playable."""
        game_id = race_game_id(state.race_id, racer_id)
        ranked = record is not None
        if record is not None:
            claimed = await ranked_attempt(self._store, record.key, racer_id)
            if claimed is not None and claimed != game_id:
                if not await self._sessions.ended(claimed):
                    return Prepared(None, False)
                ranked = False
        await make_room_for(racer_id)
        player = await self._store.get_player(racer_id)
        header = new_header(
            game_id, state.game, deal.number, state.options, racer_id, now, starts_at,
            bot=player is not None and player.bot, record=record, ranked=ranked, seed=deal.seed, race_id=state.race_id,
        )
        await self._store_game(header)
        if record is None or not ranked:
            return Prepared(header, False)
        if await self._sessions.claim(record, racer_id, game_id, now):
            await self._bar(header, record, player, now)
            return Prepared(header, True)
        # Another attempt claimed the day between the look and the claim.
        claimed = await ranked_attempt(self._store, record.key, racer_id)
        if claimed is None or not await self._sessions.ended(claimed):
            await self.discard_games([header])
            return Prepared(None, False)
        header.ranked, header.practice = False, True
        await self._store.update_session(header)
        return Prepared(header, False)

    async def _bar(self, header: SessionHeader, record: DailyRecord, player: PlayerRecord | None, now: int) -> None:
        """Decide whether a racer's ranked attempt may count on the public
        board (``claims.public_bars``), under the address of the racer's
        latest hello, and keep the reasons in its stored header."""
        if player is None:
            return
        header.unlisted = await self._sessions.bars(record, player, player.address, header.game_id, now)
        if header.unlisted:
            await self._store.update_session(header)

    async def _store_game(self, header: SessionHeader) -> None:
        """Store a racer's game, taking over the one a dead start of this
        race left (same id, nothing played: the race never started)."""
        loaded = await self._store.load_session(header.game_id)
        if loaded is not None and loaded[1]:
            raise Refusal(ErrorCode.RACE_STATE, "this race has already started")
        await self._store.create_session(header)

    async def discard_games(self, headers: list[SessionHeader]) -> None:
        """Remove games prepared for a start that did not happen: each
        gives up its ranked claim and its address's public place first, so
        neither outlives its game."""
        for header in headers:
            key = claim_key(header)
            header.status = ABANDONED
            try:
                if key is not None:
                    await release_claim(self._store, key, header.owner, header.game_id)
                    player = await self._store.get_player(header.owner)
                    address = player.address if player is not None else None
                    await release_public_places(self._store, self._settings, key, address, header.game_id)
                await self._store.finish_session(header, 0)
            except StorageError as error:
                log.warning("could not discard %s: %s", header.game_id, error)
