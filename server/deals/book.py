"""The daily records and the secret one process serves from one store.

A fixed record never changes, so the process keeps each one it has fixed
or read (``DailyBook.known``), and when the store is wiped or replaced
(``server.storage.epoch``) it holds them still: each is stored again,
first writer wins, when next asked for, so a published commitment stays
the day's (``server.deals.daily``, docs/storage.md, "A day's deal
outlives the store").

The secret behind every ranked seed is ``Settings.daily_secret``, else
the data directory's secret file (``server.runtime.data_dir``), else one
drawn once and kept in the store.  A secret that changed would change no
deal already committed (the records keep their seeds), only the days not
yet proven; still, a secret read from the store is held by the book and
written back if the store loses it, so a wipe does not change
tomorrow's either.

The Hub owns one book and hands it to those who fix or read
the day's records (the keeper, play, race starts), so nothing of it
outlives the Hub or is shared between two Hubs of one process.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict
from datetime import date
from typing import Any

from engine import Game
from server.deals.daily import (
    RECORD_KIND, DailyRecord, daily_key, daily_label, daily_variant, utc_day, variant_options,
)
from server.deals.proofs import DealProver, Urgency
from server.runtime.data_dir import keep_record, kept_record, secret_in
from server.runtime.entropy import Entropy
from server.runtime.settings import Settings
from server.storage.base import Store

log = logging.getLogger("arena.daily")

DAILY_SECRET_SETTING = "daily_secret"


def _setting(game_cls: type[Game], variant: str, day: date) -> str:
    """The store setting that fixes the record (``DailyRecord.setting``)."""
    return f"{RECORD_KIND}/{daily_key(game_cls.id, variant, day.isoformat())}"


class DailyBook:
    """The records of ``store`` this process serves, and its secret."""

    def __init__(self, store: Store, settings: Settings, prover: DealProver, entropy: Entropy) -> None:
        self.store = store
        self.settings = settings
        self.prover = prover
        self._entropy = entropy
        self._seen: dict[str, DailyRecord] = {}
        """The records fixed or read, by setting."""
        self._held: dict[str, DailyRecord] = {}
        """The records served before the store was replaced, by setting."""
        self._held_secret: str | None = None
        """The secret the store gave: offered back if the store is wiped."""

    async def secret(self) -> str:
        """The configured secret, else the data directory's, else the one
        the store keeps (first writer wins: the one held before a wipe,
        else a new one)."""
        settings = self.settings
        if settings.daily_secret is not None:
            return settings.daily_secret
        if settings.data_dir is not None:
            return secret_in(settings.data_dir, self._entropy)
        offered = self._held_secret or self._entropy.token_hex(32)
        self._held_secret = await self.store.setting(DAILY_SECRET_SETTING, offered)
        return self._held_secret

    def forget(self) -> None:
        """Stop trusting the records read of the store (it was wiped or
        replaced), but hold them: each is stored again, first writer wins,
        when next asked for, so a published commitment stays the day's."""
        self._held.update(self._seen)
        self._seen.clear()

    async def fixed(
        self, game_cls: type[Game], options: dict[str, Any], day: date, now_ms: int,
        urgency: Urgency = Urgency.PLAYER,
    ) -> DailyRecord:
        """The record of ``day`` for this game and variant, proving and
        fixing it if nobody has (today's at its first request, tomorrow's
        ahead; the proof is queued as ``urgency`` says, ``DealProver``).  A
        record published before and lost by the store is stored again, not
        proven anew (``_published``).  The nonce is drawn before the proof,
        so the order proofs finish in changes no record."""
        variant = daily_variant(game_cls, options)
        setting = _setting(game_cls, variant, day)
        known = self._seen.get(setting)
        if known is not None:
            return known
        stored_text = await self.store.get_setting(setting)
        published = self._published(setting)
        if stored_text is None:
            candidate = published
            if candidate is None:
                nonce = self._entropy.token_hex(16)
                proven = await self.prover.prove(
                    game_cls.id, variant_options(game_cls, variant), await self.secret(),
                    daily_label(game_cls.id, variant, day), urgency,
                )
                candidate = DailyRecord(
                    game_cls.id, variant, day.isoformat(), proven.seed, proven.attempt, proven.line, nonce, now_ms
                )
            stored_text = await self.store.setting(setting, candidate.to_json())
        stored = DailyRecord.from_dict(json.loads(stored_text))
        if published is not None and published != stored:
            log.warning("the store's %s is not the record published before: its commitment changed", setting)
        return await self._adopted(setting, stored)

    async def today(self, game_cls: type[Game], options: dict[str, Any], now_ms: int) -> DailyRecord:
        """Today's record for this game and variant (see ``fixed``)."""
        return await self.fixed(game_cls, options, utc_day(now_ms), now_ms)

    async def known(self, game_cls: type[Game], options: dict[str, Any], day: date) -> DailyRecord | None:
        """The record of ``day`` for this game and variant if somebody fixed
        it (``fixed``); never proves one, so it answers at once.  A record
        read from the store is one this process now serves, kept as
        ``fixed`` keeps the ones it fixes."""
        setting = _setting(game_cls, daily_variant(game_cls, options), day)
        known = self._seen.get(setting)
        if known is not None:
            return known
        stored_text = await self.store.get_setting(setting)
        if stored_text is None:
            return None
        return await self._adopted(setting, DailyRecord.from_dict(json.loads(stored_text)))

    async def _adopted(self, setting: str, stored: DailyRecord) -> DailyRecord:
        """``stored``, the record the store holds, now one this process
        serves: kept in the data directory and in the book, so that a wiped
        store gets it back (``forget``) instead of a new deal."""
        if self.settings.data_dir is not None:
            keep_record(self.settings.data_dir, stored.key, stored.to_json())
        await self.store.put_document(RECORD_KIND, stored.key, asdict(stored))
        self._seen[setting] = stored
        return stored

    def _published(self, setting: str) -> DailyRecord | None:
        """The record of ``setting`` served before the store was replaced,
        else the one the data directory keeps (``server.runtime.data_dir``)."""
        held = self._held.get(setting)
        if held is not None or self.settings.data_dir is None:
            return held
        kept = kept_record(self.settings.data_dir, setting.removeprefix(f"{RECORD_KIND}/"))
        return DailyRecord.from_dict(json.loads(kept)) if kept is not None else None
