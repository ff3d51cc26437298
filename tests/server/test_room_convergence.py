"""A game held by two processes converges on its stored log by itself.

Process A plays, process B has a spectator.  Each entry is announced by
the append that writes it, so B normally hears it at once; these tests
write an entry the way a process would whose announcement B never got
(a store append without one) and check the two nets behind it: B's
audit of the stored lengths, on B's own scheduler, brings the watcher up
to date within ``relay_audit_seconds`` and without a later action; and a
``hello`` on B gets the stored state at once, so the returning player's
next move is accepted.  On the memory store and on a real Redis, the two
hubs with a store each there, as two processes have.
"""

from __future__ import annotations

import asyncio
from typing import AsyncIterator

import pytest
from tests.server.arena_clock import FakeClock, ManualScheduler
from tests.server.arena_memory import MemoryArena
from tests.server.arena_servers import make_settings
from tests.storage_backends import BACKENDS, Backend, open_backend

from protocol import to_server as ts
from server.model.records import Action
from server.storage.memory import MemoryStore

AUDIT_SECONDS = 1.0


@pytest.fixture(params=BACKENDS[:2])
async def backend(request: pytest.FixtureRequest, redis_namespace: str) -> AsyncIterator[Backend]:
    chosen = open_backend(request.param, request, redis_namespace)
    yield chosen
    await chosen.close()


async def settled() -> None:
    """Let every task that is ready run (the hubs' relay readers included)."""
    for _ in range(20):
        await asyncio.sleep(0)


async def test_a_watcher_on_the_other_process_catches_up_at_the_audit_without_a_later_action(
    backend: Backend,
) -> None:
    clock = FakeClock()
    scheduler = ManualScheduler(clock)
    settings = make_settings(relay_audit_seconds=AUDIT_SECONDS)
    async with MemoryArena(settings, backend.store) as a, MemoryArena(
        settings, backend.peer(), clock=clock, scheduler=scheduler
    ) as b:
        player = await a.client()
        await player.hello()
        started, snapshot = await player.new_game(deal=12)
        spectator = await b.client()
        watched = await spectator.request(ts.Watch, game_id=started.game_id)
        assert watched.type == "snapshot" and watched.seq == 0

        assert snapshot.legal, "the owner is told the legal moves"
        await a.store.append(started.game_id, 0, Action("move", snapshot.legal[0], clock.ms))
        audits = b.hub.metrics.catch_ups.labels("audit")
        scheduler.advance(round(AUDIT_SECONDS * 1000) - 1)
        await settled()
        assert audits._value.get() == 0 and spectator.received[-1] is watched, "no audit before its time"

        scheduler.advance(1)
        caught_up = await spectator.wait_for(lambda m: m.type == "snapshot" and m.seq == 1)
        assert caught_up.game_id == started.game_id and audits._value.get() == 1


async def test_hello_on_the_other_process_gets_the_stored_state_and_the_next_move_is_accepted(
    backend: Backend,
) -> None:
    clock = FakeClock()
    settings = make_settings(relay_audit_seconds=AUDIT_SECONDS)
    async with MemoryArena(settings, backend.store) as a, MemoryArena(
        settings, backend.peer(), clock=clock, scheduler=ManualScheduler(clock)
    ) as b:
        player = await a.client()
        await player.hello()
        started, snapshot = await player.new_game(deal=12)
        spectator = await b.client()
        await spectator.request(ts.Watch, game_id=started.game_id)
        assert started.game_id in b.hub.rooms, "B holds the game, at seq 0"
        assert snapshot.legal, "the owner is told the legal moves"
        await a.store.append(started.game_id, 0, Action("move", snapshot.legal[0], clock.ms))

        returning = await b.client()
        welcome = await returning.hello(token=player.token)
        assert [game.game_id for game in welcome.games] == [started.game_id]
        resumed = await returning.wait_for(lambda m: m.type == "snapshot" and m.game_id == started.game_id)
        assert resumed.seq == 1, "the stored state, not the one B held"
        assert resumed.legal, "the owner is told the legal moves"
        onward = await returning.request(ts.Move, game_id=started.game_id, move=resumed.legal[0])
        assert onward.type == "diff" and onward.seq == 2, onward
        resynced = await spectator.request(ts.Resync, game_id=started.game_id)
        assert resynced.type == "snapshot" and resynced.seq == 2
        assert b.hub.metrics.catch_ups.labels("watch")._value.get() == 1


class CountingStore(MemoryStore):
    """A memory store that notes each read of stored lengths: how many
    games it was asked about, and how many turns a ticker task had taken
    on the event loop by then."""

    def __init__(self) -> None:
        super().__init__()
        self.turns = 0
        self.reads: list[tuple[int, int]] = []

    async def log_lengths(self, game_ids: list[str]) -> dict[str, int]:
        self.reads.append((len(game_ids), self.turns))
        return await super().log_lengths(game_ids)


async def test_an_audit_reads_the_lengths_a_slice_at_a_time_and_lets_the_loop_run_between_slices() -> None:
    store = CountingStore()
    clock = FakeClock()
    settings = make_settings(relay_audit_seconds=AUDIT_SECONDS)
    async with MemoryArena(settings, store, clock=clock, scheduler=ManualScheduler(clock)) as arena:
        for deal in range(5):
            player = await arena.client()
            await player.hello()
            await player.new_game(deal=deal + 1)
        arena.hub.tables.audit_slice = 2

        async def ticker() -> None:
            while True:
                store.turns += 1
                await asyncio.sleep(0)

        ticking = asyncio.create_task(ticker())
        try:
            await arena.hub.tables.audit()
        finally:
            ticking.cancel()
    sizes = [size for size, _ in store.reads]
    turns = [turn for _, turn in store.reads]
    assert sizes == [2, 2, 1], "five live games, two a slice"
    assert turns == sorted(set(turns)), f"the loop ran others between the slices: {store.reads}"
