"""Helpers and fixtures for the race and daily tests.

A plain module, not a ``conftest.py``: a second ``conftest.py`` would
shadow the one other directories load from ``tests/server`` by file
path, so test modules import the fixtures they use from here.  The
clients, the settings and the winning line of WordLink deal 1 come from
the server tests, imported, not copied.  A race rule is checked on a
``MemoryArena`` (the hub without sockets); ``redis_arenas`` are real
servers on a real Redis, for the race that crosses processes.
"""

from __future__ import annotations

import asyncio
import itertools
from datetime import date
from typing import Any, AsyncIterator, overload

import pytest
from tests.server.arena_clock import FakeClock
from tests.server.arena_memory import MemoryArena, MemoryClient
from tests.server.arena_positions import DEAL_1_DRAW_1_WIN
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import Mirror, RecordingClient, WireClient

from protocol import MSGPACK_SUBPROTOCOL
from protocol import to_client as tc
from protocol import to_server as ts
from server.transport.app import ArenaServer
from server.deals.daily import DAY_MS, DailyRecord, day_start_ms
from server.runtime.settings import Settings
from server.storage.base import Store
from server.storage.redis import RedisStore

COUNTDOWN_SECONDS = 1.0
DELAY_SECONDS = 0.5
FULL_RACE_DELAY_SECONDS = 2.0
KLONDIKE_DRAW_1 = "draw=1,scoring=standard"
DAY = date(2026, 3, 14)
NOON = day_start_ms(DAY) + 12 * 3_600_000
"""Where the daily tests' clock starts (``noon_clock``): a day under way."""


PUBLIC_BOARD_RULES_OFF: dict[str, Any] = {
    "public_attempts_per_address": 0,
    "public_new_players": True,
    "cadence_median_ms": 0,
    "cadence_pause_ms": 0,
}
"""Settings for a server whose test is not about who may rank publicly."""


def race_settings(**changes: Any) -> Settings:
    """Test settings with a short countdown and a short spectator delay."""
    base: dict[str, Any] = {
        "race_countdown_seconds": COUNTDOWN_SECONDS,
        "race_spectator_delay_seconds": DELAY_SECONDS,
    }
    return make_settings(**{**base, **changes})


async def pin_daily_deal(store: Store, day: date, deal: int = 1, variant: str = KLONDIKE_DRAW_1) -> DailyRecord:
    """Fix a day's WordLink deal before anyone asks, as the first write
    wins: the races then use a deal whose winning line the tests know.
    WordLink deals a number as the shuffle seed of the same value, so the
    seed ``deal`` lays out deal ``deal``."""
    line = DEAL_1_DRAW_1_WIN if (deal, variant) == (1, KLONDIKE_DRAW_1) else ()
    record = DailyRecord("klondike", variant, day.isoformat(), deal, 0, line, "a" * 32, 0)
    await store.setting(record.setting, record.to_json())
    return record


PROOF_WAIT_SECONDS = 600.0
"""Bounds a hang only: waiting for the server's proofs ends when they are
in, which on a loaded machine takes what it takes."""


async def ready_daily(client: RecordingClient, **fields: Any) -> tc.DailyInfo:
    """``daily`` once none of its deals is pending, asking again when the
    server said they would be ready (a server proves today's deals on
    demand or at its start: ``daily`` itself never waits)."""
    async with asyncio.timeout(PROOF_WAIT_SECONDS):
        while True:
            info = await client.request(ts.Daily, **fields)
            assert info.type == "daily_info", info
            if not info.pending:
                return info
            await asyncio.sleep(max(pending.ready_in_ms for pending in info.pending) / 1000)


@overload
async def player(server: str, name: str, subprotocol: str = MSGPACK_SUBPROTOCOL) -> WireClient: ...


@overload
async def player(server: MemoryArena, name: str, subprotocol: str = MSGPACK_SUBPROTOCOL) -> MemoryClient: ...


async def player(server: str | MemoryArena, name: str, subprotocol: str = MSGPACK_SUBPROTOCOL) -> RecordingClient:
    """A signed-in client of ``server``: a real server's URL (through a
    socket) or a ``MemoryArena`` (without one)."""
    client: RecordingClient
    if isinstance(server, MemoryArena):
        client = await server.client(subprotocol)
    else:
        client = await WireClient.open(server, subprotocol)
    await client.hello(name=name)
    return client


HUMAN_STEP_MS = 500
"""Between two moves of a person in the tests that rank: slower than
``cadence_median_ms`` (docs/protocol.md, fair play)."""
_addresses = itertools.count(1)


async def person(
    arena: MemoryArena, clock: FakeClock, name: str, address: str | None = None,
    subprotocol: str = MSGPACK_SUBPROTOCOL,
) -> MemoryClient:
    """A signed-in client of a player created the day before the clock's
    day (so its ranked attempts may count publicly), from an address of
    its own unless ``address`` is given (TEST-NET-2, one per person)."""
    client = await arena.client(subprotocol, address=address or f"198.51.100.{next(_addresses) % 250 + 1}")
    clock.ms -= DAY_MS
    try:
        await client.hello(name=name)
    finally:
        clock.ms += DAY_MS
    return client


async def play_paced(
    client: RecordingClient, clock: FakeClock, game_id: str, moves: tuple[str, ...] | list[str],
    step_ms: int = HUMAN_STEP_MS, last_at: int | None = None,
) -> Any:
    """Play moves in order ``step_ms`` apart on the fake clock, as a person
    would, the last one at ``last_at`` if given (a pause before it);
    return the last reply, failing on a refusal."""
    reply = None
    for number, move in enumerate(moves, start=1):
        clock.ms += step_ms
        if number == len(moves) and last_at is not None:
            assert last_at > clock.ms, "the line takes longer than the time it is given"
            clock.ms = last_at
        reply = await client.request(ts.Move, game_id=game_id, move=move)
        assert reply.type == "diff", reply
    return reply


async def race_event(client: RecordingClient, event: str, race_id: str | None = None) -> tc.Race:
    """The next ``race`` message of this kind (for this race)."""
    return await client.wait_for(
        lambda m: m.type == "race" and m.event == event and race_id in (None, m.race.race_id)
    )


async def progress(
    client: RecordingClient, player_id: str, state: str | None = None, moves: int | None = None
) -> tc.RaceProgress:
    """The next progress message about ``player_id`` matching what is given."""

    def matches(message: Any) -> bool:
        if message.type != "race_progress" or message.racer.player_id != player_id:
            return False
        return state in (None, message.racer.state) and moves in (None, message.racer.moves)

    return await client.wait_for(matches)


def racer_games(race: tc.RaceInfo) -> dict[str, str]:
    """Each racer's game id by player id: a started race has dealt every
    racer a game, so one missing fails the test here."""
    games = {racer.player_id: racer.game_id for racer in race.racers if racer.game_id is not None}
    assert len(games) == len(race.racers), race
    return games


async def play_line(client: RecordingClient, game_id: str, moves: tuple[str, ...] | list[str]) -> list[Any]:
    """Play moves in order; return each reply (diffs), failing on a refusal."""
    replies = []
    for move in moves:
        reply = await client.request(ts.Move, game_id=game_id, move=move)
        assert reply.type == "diff", reply
        replies.append(reply)
    return replies


@pytest.fixture
async def memory_arena() -> AsyncIterator[MemoryArena]:
    async with MemoryArena(race_settings()) as running:
        yield running


@pytest.fixture(name="clock")
def noon_clock() -> FakeClock:
    """The hub's clock, at ``NOON``; a test moves it on by setting ``ms``."""
    fake = FakeClock()
    fake.ms = NOON
    return fake


@pytest.fixture
def arena_settings() -> Settings:
    """The settings of ``noon_arena``; a module imports this fixture with
    it, or defines its own to change them."""
    return make_settings()


@pytest.fixture(name="arena")
async def noon_arena(clock: FakeClock, arena_settings: Settings) -> AsyncIterator[MemoryArena]:
    """A memory arena on the ``clock`` fixture's time."""
    async with MemoryArena(arena_settings, clock=clock) as running:
        yield running


@pytest.fixture
async def redis_arenas(redis_server: Any, redis_namespace: str) -> AsyncIterator[tuple[ArenaServer, ArenaServer]]:
    """Two server processes (each with its own Redis connections) on one
    Redis, with spectators ``FULL_RACE_DELAY_SECONDS`` behind: the full race
    needs its last racer to finish within that time of the first one's win
    (a delayed board releases that win's ``game_over`` by its clock, without
    the deal, if the race is still running), and a loaded machine playing
    the last racer's 125 moves took longer than the usual half second.
    The public board's rules of identities, addresses and cadence are off
    (every racer here is new, on loopback, and plays its line at once);
    their own tests are ``tests/server/test_fair_rank.py``."""
    stores = [RedisStore(redis_server.url, namespace=redis_namespace) for _ in range(2)]
    settings = race_settings(race_spectator_delay_seconds=FULL_RACE_DELAY_SECONDS, **PUBLIC_BOARD_RULES_OFF)
    try:
        async with ArenaServer(settings, store=stores[0]) as first:
            async with ArenaServer(settings, store=stores[1]) as second:
                yield first, second
    finally:
        for store in stores:
            await store.close()


__all__ = [
    "DEAL_1_DRAW_1_WIN",
    "MemoryArena",
    "Mirror",
    "RecordingClient",
    "WireClient",
    "memory_arena",
    "player",
    "progress",
    "race_event",
    "racer_games",
    "redis_arenas",
]
