"""Lists and boards, and starts of games and races, draw on budgets of
their client address (``server.net.address_budgets``): past one a
request is refused (``reads_limited``, ``starts_limited``) with its id,
nothing else is affected, and the budget refills with time."""

from __future__ import annotations

from typing import Any

import pytest
from tests.server.arena_clock import FakeClock
from tests.server.arena_memory import MemoryArena
from tests.server.arena_servers import make_settings

from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts
from server.net.address_budgets import READS, STARTS

REQUIRED: dict[str, Any] = {"game": "klondike", "league_id": "l_nosuchleague", "race_id": "r_nosuchrace"}
"""A value for each field a read requires (a read past the budget is
refused before anything looks at it)."""


def read_of(kind: type[Any]) -> dict[str, Any]:
    return {name: REQUIRED[name] for name, field in kind.model_fields.items() if field.is_required()}


def budget_arena(clock: FakeClock, burst: int) -> MemoryArena:
    settings = make_settings(reads_burst=burst, reads_per_second=1.0, new_games_burst=burst, new_games_per_minute=60.0)
    return MemoryArena(settings, clock=clock, monotonic=clock.seconds)


async def test_reads_past_the_budget_are_refused_with_their_id_and_refill_with_time() -> None:
    clock = FakeClock()
    async with budget_arena(clock, burst=3) as arena:
        player = await arena.client()
        await player.hello()
        started, _ = await player.new_game(deal=3)
        for _ in range(3):
            assert (await player.request(ts.ListGames)).type == "games"
        refused = await player.request(ts.Leaderboard, game="klondike")
        assert isinstance(refused, tc.Error) and refused.code == ErrorCode.READS_LIMITED and refused.id is not None
        assert refused.message.endswith("ask again in 1 s"), refused.message
        assert (await player.request(ts.Move, game_id=started.game_id, move="draw")).type == "diff", "play goes on"
        neighbour = await arena.client(address="192.0.2.7")
        assert (await neighbour.request(ts.ListGames)).type == "games", "the budget is the address's"
        clock.ms += 1000
        assert (await player.request(ts.ListGames)).type == "games"
        assert (await player.request(ts.ListGames)).type == "error"


def name_of(kind: Any) -> str:
    return str(getattr(kind, "__name__", kind))


@pytest.mark.parametrize(
    "kind, code",
    [(kind, ErrorCode.READS_LIMITED) for kind in sorted(READS, key=name_of)]
    + [(kind, ErrorCode.STARTS_LIMITED) for kind in sorted(STARTS, key=name_of)],
    ids=name_of,
)
async def test_every_costly_request_draws_on_its_budget(kind: type[Any], code: ErrorCode) -> None:
    clock = FakeClock()
    async with budget_arena(clock, burst=1) as arena:
        player = await arena.client()
        await player.hello()
        assert (await player.request(ts.Ping)).type == "pong", "a ping draws on neither"
        await player.request(kind, **read_of(kind))
        refused = await player.request(kind, **read_of(kind))
        assert isinstance(refused, tc.Error) and refused.code == code, refused


async def test_starts_past_the_budget_make_nothing() -> None:
    clock = FakeClock()
    async with budget_arena(clock, burst=2) as arena:
        player = await arena.client()
        await player.hello()
        for deal in (1, 2):
            await player.new_game(deal=deal)
        held = set(arena.hub.rooms)
        refused = await player.request(ts.NewGame, game="klondike", deal=3)
        assert isinstance(refused, tc.Error) and refused.code == ErrorCode.STARTS_LIMITED, refused
        assert refused.message.endswith("ask again in 1 s") and set(arena.hub.rooms) == held
        assert (await player.request(ts.ListGames)).type == "games", "reads have a budget of their own"
        clock.ms += 1000
        await player.new_game(deal=3)
