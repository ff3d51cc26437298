"""The race's clocks: spectators' delay, the time limit, rivals' progress,
and the race as a ledger that other processes follow (memory store).

Each server is a hub in memory (``MemoryArena``): these are the core's
rules.  The delay, the time limit and a racer's time away are stepped on
an injected clock and ``Scheduler`` (``arena_clock``): a test that slept
through them instead failed on a loaded machine, both ways (the moves
took longer than the delay, or the sleep overran it)."""

from __future__ import annotations

import contextlib
import time
from typing import Any, AsyncIterator

import pytest
from tests.server.arena_clock import FakeClock, ManualScheduler
from tests.server.test_pacing import turns_while
from tests.races.arena_races import (
    DEAL_1_DRAW_1_WIN,
    DELAY_SECONDS,
    MemoryArena,
    Mirror,
    RecordingClient,
    memory_arena,
    play_line,
    player,
    progress,
    race_event,
    race_settings,
    racer_games,
)

from protocol import JSON_SUBPROTOCOL
from protocol import to_client as tc
from protocol import to_server as ts
from server.games.pacing import CHUNK
from server.storage.memory import MemoryStore

__all__ = ["memory_arena"]

DELAY_MS = round(DELAY_SECONDS * 1000)


class SteppedArena:
    """A server whose race clocks move only when the test steps them."""

    def __init__(self, server: MemoryArena, scheduler: ManualScheduler) -> None:
        self.server = server
        self.scheduler = scheduler

    async def step(self, ms: int, *clients: RecordingClient) -> None:
        """Move time on by ``ms``, then a ping round trip on each of
        ``clients``: the server sends what the timers released before it
        answers, so a message not received by then was never sent."""
        self.scheduler.advance(ms)
        for client in clients:
            assert (await client.request(ts.Ping)).type == "pong"


@contextlib.asynccontextmanager
async def stepped_server(**changes: Any) -> AsyncIterator[SteppedArena]:
    clock = FakeClock()
    scheduler = ManualScheduler(clock)
    async with MemoryArena(race_settings(**changes), clock=clock, scheduler=scheduler) as server:
        yield SteppedArena(server, scheduler)


@pytest.fixture
async def stepped_arena() -> AsyncIterator[SteppedArena]:
    async with stepped_server() as stepped:
        yield stepped


async def _running(
    server: MemoryArena, *names: str, deal: int | str = 1, stepped: SteppedArena | None = None
) -> tuple[list[RecordingClient], tc.Race]:
    """A started race of WordLink draw 1 once every racer has its board
    (the countdown stepped through if the clock is the test's)."""
    clients: list[RecordingClient] = [await player(server, name) for name in names]
    created = await clients[0].request(ts.CreateRace, game="klondike", options={"draw": 1}, deal=deal)
    assert created.type == "race", created
    for client in clients[1:]:
        await client.request(ts.JoinRace, code=created.race.code)
    started = await clients[0].request(ts.StartRace, race_id=created.race.race_id)
    assert started.type == "race", started
    if stepped is not None:
        await stepped.step(round(server.settings.race_countdown_seconds * 1000))
    for client in clients:
        game_id = next(r.game_id for r in started.race.racers if r.player_id == client.player_id)
        await client.wait_for(lambda m, g=game_id: m.type == "snapshot" and m.game_id == g)
    return clients, started


def _game(started: tc.Race, client: RecordingClient) -> str:
    return racer_games(started.race)[client.player_id]


async def test_a_late_spectator_sees_the_board_as_it_was_the_delay_ago(stepped_arena: SteppedArena) -> None:
    server = stepped_arena.server
    (ann, bob), started = await _running(server, "ann", "bob", stepped=stepped_arena)
    board = _game(started, ann)
    await play_line(ann, board, DEAL_1_DRAW_1_WIN[:5])
    early = await server.client()
    first = await early.request(ts.Watch, game_id=board)
    assert first.type == "snapshot" and first.seq == 0, "no move is a delay old yet"
    await stepped_arena.step(DELAY_MS, early)
    late = await server.client(JSON_SUBPROTOCOL)
    second = await late.request(ts.Watch, game_id=board)
    assert second.type == "snapshot" and second.seq == 5
    mirror = Mirror(first)
    for seq in range(1, 6):
        mirror.apply(await early.wait_for(lambda m, n=seq: m.type == "diff" and m.seq == n))
    assert mirror.view == second.view.model_dump()
    live = await ann.request(ts.Resync, game_id=board)
    assert live.type == "snapshot" and live.seq == 5 and live.view == second.view
    await play_line(ann, board, DEAL_1_DRAW_1_WIN[5:6])
    await stepped_arena.step(DELAY_MS - 1, late)
    assert not any(m.type == "diff" and m.seq == 6 for m in late.received), "a diff came before the delay"
    await stepped_arena.step(1)
    assert (await late.wait_for(lambda m: m.type == "diff" and m.seq == 6)).action.text == DEAL_1_DRAW_1_WIN[5]
    for client in (early, late):
        await client.close()


async def test_a_late_spectators_board_and_the_races_read_of_its_games_give_way_to_the_others(stepped_arena: SteppedArena) -> None:
    """The delayed mirror a late spectator opens, and the race's own read of
    its racers' games, replay the logs a chunk at a time
    (``server.games.pacing``; a race's log may be an hour of play): with a
    slice of 0 they give way after each chunk, beside the same work unpaced."""
    server = stepped_arena.server
    racers, started = await _running(server, "ann", "bob", stepped=stepped_arena)
    moves = 2 * CHUNK + 1
    for racer in racers:
        await play_line(racer, _game(started, racer), DEAL_1_DRAW_1_WIN[:moves])
    await stepped_arena.step(DELAY_MS)

    async def opened(racer: RecordingClient, slice_seconds: float) -> int:
        server.hub.tables.pacing.slice_seconds = slice_seconds
        late = await server.client()
        snapshot, turns = await turns_while(lambda: late.request(ts.Watch, game_id=_game(started, racer)))
        assert snapshot.type == "snapshot" and snapshot.seq == moves
        live = await racer.request(ts.Resync, game_id=_game(started, racer))
        assert live.type == "snapshot" and live.view == snapshot.view
        await late.close()
        return turns

    unpaced = await opened(racers[0], float("inf"))
    assert await opened(racers[1], 0) >= unpaced + moves // CHUNK, "the board's replay gave way after its chunks"

    ledgers = server.hub.races.ledgers
    state = (await ledgers.room(started.race.race_id)).state
    ledgers.pacing.slice_seconds = float("inf")
    _, reads_turns = await turns_while(lambda: ledgers.sessions(state))
    ledgers.pacing.slice_seconds = 0
    sessions, turns = await turns_while(lambda: ledgers.sessions(state))
    assert all(session is not None and session.seq == moves for session in sessions.values())
    assert turns >= reads_turns + len(racers) * (moves // CHUNK), "the race's read of its games gave way after their chunks"


async def test_racers_see_each_others_progress_but_not_their_cards(memory_arena: MemoryArena) -> None:
    (ann, bob), started = await _running(memory_arena, "ann", "bob")
    await play_line(ann, _game(started, ann), DEAL_1_DRAW_1_WIN[:2])
    seen = await progress(bob, ann.player_id, moves=2)
    assert seen.racer.foundation == 1 and seen.racer.state == "playing" and seen.racer.elapsed_ms >= 0
    shown = seen.racer.model_dump()
    assert set(shown) == {
        "player_id", "name", "game_id", "state", "ranked", "apart", "moves", "foundation", "counters", "elapsed_ms"
    }


async def test_the_race_ends_at_its_time_limit_and_abandons_games_still_playing() -> None:
    async with stepped_server(race_countdown_seconds=0, race_time_limit_seconds=1) as stepped:
        (ann, bob), started = await _running(stepped.server, "ann", "bob", stepped=stepped)
        await play_line(ann, _game(started, ann), DEAL_1_DRAW_1_WIN[:3])
        await bob.request(ts.Resign, game_id=_game(started, bob))
        await stepped.step(999, ann)
        assert not any(m.type == "race" and m.event == "finished" for m in ann.received), "the limit is not up yet"
        await stepped.step(1)
        finished = await race_event(ann, "finished", started.race.race_id)
        finished_ms, ends_at, results = finished.race.finished_ms, started.race.ends_at, finished.race.results
        assert finished_ms is not None and ends_at is not None and results is not None, finished
        assert finished_ms >= ends_at
        assert [(r.name, r.result, r.moves, r.place) for r in results] == [
            ("ann", "abandoned", 3, None),
            ("bob", "resigned", 0, None),
        ]
        over = await ann.wait_for(lambda m: m.type == "game_over" and m.game_id == _game(started, ann))
        assert over.result == "abandoned"


async def test_a_disconnected_racer_keeps_running_on_the_clock(stepped_arena: SteppedArena) -> None:
    server = stepped_arena.server
    (ann, bob), started = await _running(server, "ann", "bob", stepped=stepped_arena)
    await bob.close()
    gone = await progress(ann, bob.player_id, state="disconnected")
    await stepped_arena.step(300)
    back = await server.client()
    await back.hello(token=bob.token)
    board = await back.wait_for(lambda m: m.type == "snapshot" and m.game_id == _game(started, bob))
    assert board.clock.started_ms == started.race.starts_at
    assert board.clock.elapsed_ms >= gone.racer.elapsed_ms + 300
    await progress(ann, bob.player_id, state="playing")
    await back.close()


async def test_another_process_follows_the_race_through_the_store() -> None:
    store = MemoryStore()
    async with MemoryArena(race_settings(), store=store) as here, MemoryArena(race_settings(), store=store) as there:
        ann = await player(here, "ann")
        created = await ann.request(ts.CreateRace, game="laras-game", deal="winnable")
        assert created.type == "race", created
        bob = await player(there, "bob")
        joined = await bob.request(ts.JoinRace, code=created.race.code)
        heard = await race_event(ann, "joined", created.race.race_id)
        assert joined.type == "race" and heard.race.racers == joined.race.racers
        await ann.request(ts.StartRace, race_id=created.race.race_id)
        started = await race_event(bob, "started", created.race.race_id)
        board = await bob.wait_for(lambda m: m.type == "snapshot" and m.game_id == _game(started, bob))
        assert started.race.starts_at is not None and board.game == "laras-game"
        assert time.time() * 1000 >= started.race.starts_at
        await bob.request(ts.Resign, game_id=_game(started, bob))
        assert (await progress(ann, bob.player_id, state="resigned")).racer.game_id == _game(started, bob)
