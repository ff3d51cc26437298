"""What replays cost and who pays: a client address's budget of replayed
actions, and the place kept where a page ended, so that reading a replay
page by page replays each action once (``server.games.replays``)."""

from __future__ import annotations

from typing import Any

from tests.server.arena_clock import FakeClock
from tests.server.arena_memory import MemoryArena, MemoryClient
from tests.server.arena_servers import make_settings
from tests.server.test_server_replays import DEAL, RECYCLE, SMALL_FRAMES, _whole_replay

from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts

GAME_ACTIONS = len(RECYCLE) * 2 + 1
"""The recycles below and the resignation."""


async def finished_game(arena: MemoryArena) -> tuple[MemoryClient, str]:
    player = await arena.client()
    await player.hello()
    started, _ = await player.new_game(deal=DEAL)
    for move in RECYCLE * 2:
        await player.request(ts.Move, game_id=started.game_id, move=move)
    await player.request(ts.Resign, game_id=started.game_id)
    return player, started.game_id


def budget_arena(clock: FakeClock, burst: int) -> MemoryArena:
    settings = make_settings(max_frame_bytes=SMALL_FRAMES, replay_actions_burst=burst, replay_actions_per_second=1.0)
    return MemoryArena(settings, clock=clock, monotonic=clock.seconds)


def refused_for_rate(reply: Any) -> bool:
    return reply.type == "error" and reply.code == ErrorCode.UNAVAILABLE and reply.reason == "replay_rate"


async def test_reading_a_replay_page_by_page_replays_each_action_once() -> None:
    clock = FakeClock()
    async with budget_arena(clock, burst=GAME_ACTIONS) as arena:
        player, game_id = await finished_game(arena)
        _, diffs, pages = await _whole_replay(player, game_id)
        assert len(pages) > 2 and len(diffs) == GAME_ACTIONS, "every page read within a budget of the game's length"
        again = await player.request(ts.Replay, game_id=game_id)
        assert isinstance(again, tc.Error) and refused_for_rate(again), again
        assert again.message.endswith("ask again in 1 s"), again.message


async def test_a_page_read_from_the_kept_place_is_the_page_read_from_the_start() -> None:
    clock = FakeClock()
    async with budget_arena(clock, burst=100 * GAME_ACTIONS) as arena:
        player, game_id = await finished_game(arena)
        _, _, pages = await _whole_replay(player, game_id)
        reader = await arena.client()
        for page in reversed(pages):
            fresh = await reader.request(ts.Replay, game_id=game_id, from_seq=page.start.seq)
            assert isinstance(fresh, tc.ReplayReply), fresh
            assert fresh.model_dump(exclude={"id"}) == page.model_dump(exclude={"id"})


async def test_a_replay_past_the_budget_is_refused_until_the_budget_refills() -> None:
    clock = FakeClock()
    async with budget_arena(clock, burst=10) as arena:
        player, game_id = await finished_game(arena)
        last = await player.request(ts.Replay, game_id=game_id, from_seq=GAME_ACTIONS - 1)
        assert isinstance(last, tc.ReplayReply) and len(last.diffs) == 1, "a page starts within the budget, then pays"
        refused = await player.request(ts.Replay, game_id=game_id, from_seq=GAME_ACTIONS - 1)
        assert refused_for_rate(refused) and refused.game_id == game_id, refused
        other_address = await arena.client(address="192.0.2.7")
        assert (await other_address.request(ts.Replay, game_id=game_id)).type == "replay", "the budget is per address"
        moved = await player.request(ts.Move, game_id=game_id, move="draw")
        assert isinstance(moved, tc.Error) and moved.code == ErrorCode.GAME_FINISHED, "the game is as it was"
        clock.ms += (GAME_ACTIONS - 10) * 1000
        assert refused_for_rate(await player.request(ts.Replay, game_id=game_id)), "the debt is not paid yet"
        clock.ms += 1000
        assert (await player.request(ts.Replay, game_id=game_id)).type == "replay"


async def test_watching_a_game_this_process_does_not_hold_pays_for_loading_it() -> None:
    clock = FakeClock()
    async with budget_arena(clock, burst=GAME_ACTIONS + 10) as arena:
        player, game_id = await finished_game(arena)
        await player.request(ts.Unwatch, game_id=game_id)
        assert game_id not in arena.hub.rooms, "nobody watches the finished game: it is let go"
        spectator = await arena.client(address="192.0.2.7")
        for _ in range(2):
            watched = await spectator.request(ts.Watch, game_id=game_id)
            assert isinstance(watched, tc.Snapshot) and watched.seq == GAME_ACTIONS
            await spectator.request(ts.Unwatch, game_id=game_id)
        refused = await spectator.request(ts.Watch, game_id=game_id)
        assert isinstance(refused, tc.Error) and refused_for_rate(refused), "two loads of the game spent the budget"
        held_watch = await player.request(ts.Watch, game_id=game_id)
        assert isinstance(held_watch, tc.Snapshot), "another address pays for its own"
        assert isinstance(await spectator.request(ts.Watch, game_id=game_id), tc.Snapshot), "a held game costs nothing"


async def test_analysing_a_game_this_process_does_not_hold_pays_for_loading_it() -> None:
    clock = FakeClock()
    settings = make_settings(replay_actions_burst=GAME_ACTIONS - 1, replay_actions_per_second=1.0, analysis_nodes=2_000)
    async with MemoryArena(settings, clock=clock, monotonic=clock.seconds) as arena:
        player, game_id = await finished_game(arena)
        await player.request(ts.Unwatch, game_id=game_id)
        analyst = await arena.client(address="192.0.2.7")
        assert isinstance(await analyst.request(ts.Analyse, game_id=game_id), tc.AnalysisReply)
        refused = await analyst.request(ts.Analyse, game_id=game_id)
        assert isinstance(refused, tc.Error) and refused_for_rate(refused), "the load put the address in debt"


async def test_reading_a_game_nobody_watches_page_by_page_loads_it_once() -> None:
    clock = FakeClock()
    async with budget_arena(clock, burst=2 * GAME_ACTIONS) as arena:
        player, game_id = await finished_game(arena)
        await player.request(ts.Unwatch, game_id=game_id)
        reader = await arena.client(address="192.0.2.7")
        _, diffs, pages = await _whole_replay(reader, game_id)
        assert len(pages) > 2 and len(diffs) == GAME_ACTIONS, "one load and each action once: within the budget"
        assert game_id not in arena.hub.rooms, "nobody holds the game between pages"
        assert refused_for_rate(await reader.request(ts.Replay, game_id=game_id))
