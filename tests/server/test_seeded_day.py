"""A whole day on a server whose every random value and every tick is
injected gives the same frames, byte for byte, on every run.

The hub is handed a ``SeededEntropy`` (``server.runtime.entropy``), the
``FakeClock`` and the ``ManualScheduler`` (``arena_clock``), and the
memory store runs on that clock (``MemoryArena``): the day's dailies are
proven (in the prover's worker processes, awaited before anyone asks, so
when a proof ends changes nothing), a ranked daily is won, a race is
run and watched, the day rolls over, the next day's dailies are shown
and the first day's deal is revealed.  Twice with one seed, every client
has received the same frames; with another seed they differ (ids,
tokens, codes and nonces are the seed's), so the comparison can fail.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import engine
from tests.server.arena_clock import FakeClock, ManualScheduler
from tests.server.arena_memory import MemoryArena, MemoryClient
from tests.server.arena_positions import DEAL_1_DRAW_1_WIN
from tests.server.arena_servers import make_settings

from protocol import JSON_SUBPROTOCOL
from protocol import to_server as ts
from server.deals.daily import DAY_MS, day_start_ms
from server.runtime.entropy import SeededEntropy

DAY = date(2026, 3, 14)
NOON = day_start_ms(DAY) + DAY_MS // 2
GRACE_SECONDS = 3600
COUNTDOWN_MS = 3000
DELAY_MS = 2000
STEP_MS = 500
KLONDIKE = engine.game_class("klondike")
DAILY_OPTIONS: list[dict[str, Any]] = [{"draw": 1}, {"draw": 3}]
Frames = list[list[bytes | str]]


async def _prove_dailies(arena: MemoryArena, day: date) -> None:
    """Prove and fix the day's WordLink dailies before anyone asks, so no
    ``daily`` reply lists one as pending with a time that is the worker's."""
    for options in DAILY_OPTIONS:
        await arena.hub.dailies.fixed(KLONDIKE, options, day, arena.hub.clock())


async def _step(scheduler: ManualScheduler, ms: int, *clients: MemoryClient) -> None:
    """Move time on, then a ping round trip on each client: what the timers
    released is sent before the pong."""
    scheduler.advance(ms)
    for client in clients:
        assert (await client.request(ts.Ping)).type == "pong"


async def _play(client: MemoryClient, clock: FakeClock, game_id: str, moves: tuple[str, ...]) -> None:
    for move in moves:
        clock.ms += STEP_MS
        reply = await client.request(ts.Move, game_id=game_id, move=move)
        assert reply.type == "diff", reply


async def _a_day(seed: int) -> Frames:
    """Every frame each client received over the day, in order."""
    clock = FakeClock()
    clock.ms = NOON
    scheduler = ManualScheduler(clock)
    settings = make_settings(
        daily_grace_seconds=GRACE_SECONDS, race_countdown_seconds=COUNTDOWN_MS / 1000,
        race_spectator_delay_seconds=DELAY_MS / 1000, public_attempts_per_address=0, public_new_players=True,
        cadence_median_ms=0, cadence_pause_ms=0,
    )
    entropy = SeededEntropy(seed)
    async with MemoryArena(
        settings, clock=clock, monotonic=clock.seconds, scheduler=scheduler, entropy=entropy
    ) as arena:
        await _prove_dailies(arena, DAY)
        ann, bob = await arena.client(), await arena.client(address="198.51.100.2")
        eve = await arena.client(JSON_SUBPROTOCOL, address="198.51.100.3")
        for client, name in ((ann, "ann"), (bob, "bob"), (eve, None)):
            await client.hello(name=name)
        today = await ann.request(ts.Daily, game="klondike")
        assert today.type == "daily_info" and len(today.deals) == 2 and not today.pending, today

        started, _ = await ann.new_game(deal="daily", options={"draw": 1})
        assert started.ranked, started
        record = await arena.hub.dailies.today(KLONDIKE, {"draw": 1}, clock.ms)
        await _play(ann, clock, started.game_id, record.line)
        assert (await ann.next_of("game_over")).result == "won"
        board = await bob.request(ts.Leaderboard, game="klondike", options={"draw": 1})
        assert board.type == "leaderboard" and [entry.name for entry in board.entries] == ["ann"], board

        created = await ann.request(ts.CreateRace, game="klondike", options={"draw": 1}, deal=1)
        assert created.type == "race" and created.race.code is not None, created
        race_id = created.race.race_id
        assert (await bob.request(ts.JoinRace, code=created.race.code)).type == "race"
        assert (await eve.request(ts.WatchRace, race_id=race_id)).type == "race"
        starting = await ann.request(ts.StartRace, race_id=race_id)
        assert starting.type == "race", starting
        await _step(scheduler, COUNTDOWN_MS, ann, bob, eve)
        games = {racer.player_id: racer.game_id for racer in starting.race.racers if racer.game_id is not None}
        assert (await eve.request(ts.Watch, game_id=games[ann.player_id])).type == "snapshot"
        await bob.request(ts.Move, game_id=games[bob.player_id], move="draw")
        await _play(ann, clock, games[ann.player_id], DEAL_1_DRAW_1_WIN)
        assert (await bob.request(ts.Resign, game_id=games[bob.player_id])).type == "diff"
        await ann.wait_for(lambda m: m.type == "race" and m.event == "finished")
        await _step(scheduler, DELAY_MS, ann, bob, eve)

        await _step(scheduler, day_start_ms(DAY + timedelta(days=1)) + GRACE_SECONDS * 1000 - clock.ms, ann, bob, eve)
        await _prove_dailies(arena, DAY + timedelta(days=1))
        tomorrow = await bob.request(ts.Daily, game="klondike")
        assert tomorrow.type == "daily_info" and tomorrow.date == (DAY + timedelta(days=1)).isoformat(), tomorrow
        revealed = await eve.request(ts.Daily, date=DAY.isoformat(), game="klondike")
        assert revealed.type == "daily_info" and all(deal.seed is not None for deal in revealed.deals), revealed
        shown = next(deal for deal in revealed.deals if deal.variant == record.variant)
        assert shown.first_game == started.game_id and tuple(shown.line or ()) == record.line
        return [list(client.raw) for client in (ann, bob, eve)]


async def test_a_day_run_twice_with_one_seed_sends_every_client_the_same_bytes() -> None:
    first, again, other = await _a_day(7), await _a_day(7), await _a_day(8)
    assert [len(frames) for frames in first] == [len(frames) for frames in again]
    for client, (frames, repeated) in enumerate(zip(first, again)):
        for number, (frame, repeated_frame) in enumerate(zip(frames, repeated)):
            assert frame == repeated_frame, f"client {client}, frame {number} differs"
    assert first != other, "another seed gives other ids, tokens and codes"
