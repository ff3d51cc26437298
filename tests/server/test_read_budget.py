"""Lists and boards draw on a budget of their client address
(``server.net.read_budget``): past it a request is refused with
``reads_limited`` and its id, nothing else is affected, and the budget
refills with time."""

from __future__ import annotations

from typing import Any

import pytest
from tests.server.arena_clock import FakeClock
from tests.server.arena_memory import MemoryArena
from tests.server.arena_servers import make_settings

from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts
from server.net.read_budget import READS

REQUIRED: dict[str, Any] = {"game": "klondike", "league_id": "l_nosuchleague"}
"""A value for each field a read requires (a read past the budget is
refused before anything looks at it)."""


def read_of(kind: type[Any]) -> dict[str, Any]:
    return {name: REQUIRED[name] for name, field in kind.model_fields.items() if field.is_required()}


def budget_arena(clock: FakeClock, burst: int) -> MemoryArena:
    settings = make_settings(reads_burst=burst, reads_per_second=1.0)
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
    return str(kind.__name__)


@pytest.mark.parametrize("kind", sorted(READS, key=name_of), ids=name_of)
async def test_every_read_draws_on_the_budget(kind: type[Any]) -> None:
    clock = FakeClock()
    async with budget_arena(clock, burst=1) as arena:
        player = await arena.client()
        await player.hello()
        assert (await player.request(ts.Ping)).type == "pong", "a ping is no read"
        await player.request(kind, **read_of(kind))
        refused = await player.request(kind, **read_of(kind))
        assert isinstance(refused, tc.Error) and refused.code == ErrorCode.READS_LIMITED, refused
