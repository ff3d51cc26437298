"""Nothing ranked starts on a daily deal the store no longer holds.

Two server processes on one real Redis have read today's record; the
store is wiped (what a ``FLUSHALL`` does to this deployment's keys), and
a daily starts on each process within a few milliseconds, long before
either process's epoch check (set to an hour here) could notice.  The
ranked claim is written only while the store holds the record it names
(``Store.claim``), so each stale process finds out at the claim and reads
the record again.  The record it published is stored again (first writer
wins: a published commitment stays the day's deal, docs/storage.md "A
day's deal outlives the store"), and the attempt ranks on that: every
ranked attempt of the date is on the one deal the store holds.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from datetime import date
from typing import Any, AsyncIterator

import pytest
from tests.races.arena_races import KLONDIKE_DRAW_1, pin_daily_deal, player
from tests.server.arena_servers import make_settings
from tests.storage_backends import wipe_namespace

from protocol import to_server as ts
from server.transport.app import ArenaServer
from server.deals.daily import DailyRecord, utc_day
from server.storage.redis import RedisStore

pytestmark = pytest.mark.redis

PROOF_SECONDS = 600.0
"""Bounds a hang only: the new record is proven by the stale processes
themselves, a worker process's search beside whatever else the machine runs."""


@pytest.fixture
async def stores(redis_server: Any, redis_namespace: str) -> AsyncIterator[list[RedisStore]]:
    opened = [RedisStore(redis_server.url, namespace=redis_namespace) for _ in range(3)]
    yield opened
    for store in opened:
        await store.close()


@pytest.mark.parametrize("refixed_elsewhere", [False, True], ids=["republished", "refixed-elsewhere"])
async def test_dailies_started_on_two_stale_processes_right_after_a_wipe_rank_on_the_one_deal_held(
    stores: list[RedisStore], redis_server: Any, redis_namespace: str, refixed_elsewhere: bool
) -> None:
    """Republished: the stale processes store again the record they
    published.  Refixed elsewhere: a process that never saw the old record
    (one started after the wipe, with no data directory) fixed another
    first; the stale processes' claims on the old one are refused and they
    rank on the record the store holds."""
    a_store, b_store, observer = stores
    today = utc_day(time.time_ns() // 1_000_000)
    before = await pin_daily_deal(observer, today)
    settings = make_settings(store_epoch_check_seconds=3600)
    async with ArenaServer(settings, store=a_store) as a, ArenaServer(settings, store=b_store) as b:
        for server in (a, b):
            earlier, _ = await (await player(server.url, "early")).new_game(deal="daily", options={"draw": 1})
            assert earlier.ranked, "each process has read today's record"

        await wipe_namespace(redis_server.url, redis_namespace)
        expected = before
        if refixed_elsewhere:
            expected = dataclasses.replace(before, seed=before.seed + 1, line=(), nonce="b" * 32)
            await observer.setting(expected.setting, expected.to_json())
        ann, bob = await player(a.url, "ann"), await player(b.url, "bob")
        frames = [ts.NewGame(id=client.next_id(), game="klondike", deal="daily", options={"draw": 1})
                  for client in (ann, bob)]
        await asyncio.gather(ann.send(frames[0]), bob.send(frames[1]))
        started = [
            await client.wait_for(lambda m, wanted=frame.id: m.id == wanted, PROOF_SECONDS)
            for client, frame in zip((ann, bob), frames)
        ]

        assert all(reply.type == "game_started" and reply.ranked for reply in started), started
        held_text = await observer.get_setting(before.setting)
        assert held_text is not None, "the day's record is stored again"
        held = DailyRecord.from_dict(json.loads(held_text))
        assert (held.seed, held.nonce) == (expected.seed, expected.nonce), "the record the store held first"
        for client, reply in zip((ann, bob), started):
            loaded = await observer.load_session(reply.game_id)
            assert loaded is not None
            header = loaded[0]
            assert header.ranked and header.daily == today.isoformat()
            assert header.seed == held.seed, "ranked on the deal the store holds, not the one it lost"
            claim = await observer.get_setting(f"ranked/{held.key}/{client.player_id}")
            assert claim == reply.game_id
        assert held.variant == KLONDIKE_DRAW_1 and date.fromisoformat(held.date) == today
