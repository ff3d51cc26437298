"""Searches run in the worker pool's processes, given data, and a hint rate
per player keeps one client from filling them (``server.runtime.searches``,
``server.runtime.workers``, ``server.games.assists``)."""

from __future__ import annotations

import asyncio
import os
import select
import signal
import subprocess
import sys
from typing import AsyncIterator, Callable

import pytest
from tests.server.arena_positions import NEARLY_WON_KLONDIKE, REPAIRS, broken_deck_two_halves_left
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WireClient
from tests.storage_backends import ManualClock

import engine
import engine.solver.analysis
import engine.solver.assist
import server.runtime.searches
from engine.solver.assist import Hint, hint_with_confidence
from protocol import ErrorCode
from protocol import to_server as ts
from server.transport.app import ArenaServer
from server.runtime.searches import HintSearches, hint_job
from server.runtime.settings import Settings
from server.runtime.workers import Lane, Priority, WorkerPool
from server.model.session import Session
from server.model.records import Action, SessionHeader
from server.storage.memory import MemoryStore


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def pool_server(clock: ManualClock) -> AsyncIterator[ArenaServer]:
    settings = make_settings(search_workers=2, hint_burst=3, hint_rate=0.5)
    async with ArenaServer(settings, store=MemoryStore(), monotonic=clock) as running:
        yield running


@pytest.fixture
async def player(pool_server: ArenaServer) -> AsyncIterator[WireClient]:
    client = await WireClient.open(pool_server.url)
    await client.hello()
    yield client
    await client.close()


async def _hint_in_a_new_game(url: str) -> None:
    """A new player starts a game and is given a hint."""
    client = await WireClient.open(url)
    try:
        await client.hello()
        started, _ = await client.new_game(position=NEARLY_WON_KLONDIKE)
        assert (await client.request(ts.Hint, game_id=started.game_id)).type == "hint"
    finally:
        await client.close()


def _refuse_here(what: str) -> Callable[..., None]:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"{what} ran in the server process")

    return refuse


async def test_hints_finishes_and_analyses_are_searched_in_worker_processes(
    pool_server: ArenaServer, player: WireClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's own interpreter cannot search: every search function is
    replaced here by one that fails, and the answers come all the same."""
    monkeypatch.setattr(server.runtime.searches, "hint_with_confidence", _refuse_here("a hint"))
    monkeypatch.setattr(engine.solver.assist, "auto_finish", _refuse_here("a finishing search"))
    monkeypatch.setattr(engine.solver.analysis, "analyse", _refuse_here("an analysis"))
    started, _ = await player.new_game("broken-deck", position=broken_deck_two_halves_left())
    game_id = started.game_id
    for move in REPAIRS:
        await player.request(ts.Move, game_id=game_id, move=move)
    assert (await player.next_of("finish_offer")).seq == 2
    hint = await player.request(ts.Hint, game_id=game_id)
    assert hint.type == "hint" and hint.move
    await player.request(ts.Resign, game_id=game_id)
    analysis = await player.request(ts.Analyse, game_id=game_id)
    assert analysis.type == "analysis"

    jobs = pool_server.hub.workers.jobs
    assert jobs["hint_job"] == 1 and jobs["finish_job"] >= 1 and jobs["analysis_job"] == 1
    workers = pool_server.hub.workers.pids
    assert workers and os.getpid() not in workers


async def test_a_hint_from_the_pool_is_the_hint_the_game_gives_in_one_process(player: WireClient, clock: ManualClock) -> None:
    """A worker rebuilds the game from its log, history and the previous
    hint's plan included: the same game played here, asked at the same
    points, hints the same moves (two workers: a game keeps to one).  The
    clock moves on before each hint, so the hint rate never refuses one."""
    started, snapshot = await player.new_game(deal=7, options={"draw": 3})
    game_id = started.game_id
    here = engine.new_game("klondike", 7, draw=3)
    script = ["hint", "play", "hint", "play", "hint", "play", "undo", "hint", "play", "hint"]
    hinted: list[str | None] = []
    for step in script:
        if step == "hint":
            expected = hint_with_confidence(here)
            here.note_hint(None if expected is None else expected.move)
            clock.now += 10
            reply = await player.request(ts.Hint, game_id=game_id)
            assert reply.type == "hint", reply
            assert reply.move == (None if expected is None else str(expected.move))
            assert reply.confidence == (None if expected is None else expected.confidence)
            hinted.append(reply.move)
        elif step == "undo":
            here.undo()
            assert (await player.request(ts.Undo, game_id=game_id)).type == "diff"
        elif hinted[-1] is not None:
            here.play(hinted[-1])
            assert (await player.request(ts.Move, game_id=game_id, move=hinted[-1])).type == "diff"
    assert len(hinted) == 5


async def test_the_hint_rate_refuses_past_the_burst_changes_nothing_and_refills(
    pool_server: ArenaServer, player: WireClient, clock: ManualClock
) -> None:
    """``hint_burst`` 3, ``hint_rate`` 0.5 a second, on a clock that stands
    still until the test moves it; the limit is the player's, not the
    game's, and another player is not held back by it."""
    games = [(await player.new_game(position=NEARLY_WON_KLONDIKE))[0].game_id for _ in range(2)]
    for game_id in (games[0], games[1], games[0]):
        assert (await player.request(ts.Hint, game_id=game_id)).type == "hint"
    refused = await player.request(ts.Hint, game_id=games[1])
    assert refused.type == "error" and (refused.code, refused.reason) == (ErrorCode.UNAVAILABLE, "hint_rate")
    assert "2 s" in refused.message
    again = await player.request(ts.Resync, game_id=games[1])
    assert again.type == "snapshot" and again.seq == 1 and again.counters["hints"] == 1, "a refused hint is neither logged nor counted"

    await _hint_in_a_new_game(pool_server.url)

    clock.now += 2.0
    assert (await player.request(ts.Hint, game_id=games[1])).type == "hint"
    spent = await player.request(ts.Hint, game_id=games[1])
    assert spent.type == "error" and spent.code == ErrorCode.UNAVAILABLE


async def test_a_closed_server_stops_its_worker_processes(clock: ManualClock) -> None:
    async with ArenaServer(make_settings(), store=MemoryStore(), monotonic=clock) as running:
        await _hint_in_a_new_game(running.url)
        workers = set(running.hub.workers.pids)
    assert workers
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


async def test_a_worker_outlives_the_signals_that_stop_its_server() -> None:
    """Ctrl-C and ``timeout`` signal the whole process group: the worker
    keeps its search (and the next) for the server, which ends it itself."""
    header = SessionHeader(game_id="g_sig", game="klondike", deal=3, options={"draw": 1}, owner="p_1", created_ms=0)
    pool = WorkerPool({Lane.SEARCH: 1})
    try:
        first = await pool.run(Priority.SEARCH, "g_sig", hint_job, header, 0, (), None)
        for signal_number in (signal.SIGINT, signal.SIGTERM):
            os.kill(first.pid, signal_number)
        again = await pool.run(Priority.SEARCH, "g_sig", hint_job, header, 0, (), None)
        assert again.pid == first.pid and again.value == first.value
    finally:
        await pool.close()
    with pytest.raises(ProcessLookupError):
        os.kill(first.pid, 0)


@pytest.mark.parametrize("niceness", [0, 7])
async def test_a_worker_runs_as_much_nicer_than_its_server_as_worker_niceness_says(niceness: int) -> None:
    """Niced, a search yields the CPU to the event loop; at 0 it competes
    as an equal (the suite's setting: its other tests, not players, are
    what a niced worker would yield to)."""
    header = SessionHeader(game_id="g_nice", game="klondike", deal=3, options={"draw": 1}, owner="p_1", created_ms=0)
    pool = WorkerPool.sized(Settings(worker_niceness=niceness))
    try:
        answer = await pool.run(Priority.SEARCH, "g_nice", hint_job, header, 0, (), None)
        assert os.getpriority(os.PRIO_PROCESS, answer.pid) == min(19, os.getpriority(os.PRIO_PROCESS, 0) + niceness)
    finally:
        await pool.close()


async def test_a_restarted_worker_is_sent_the_whole_log() -> None:
    """The pool sends a worker only the entries logged since the game's
    last hint; a new worker does not hold the rest, says so, and gets the
    whole log: its hint is the hint of the game replayed from the start."""
    header = SessionHeader(game_id="g_kept", game="klondike", deal=3, options={"draw": 1}, owner="p_1", created_ms=0)
    log = [Action("move", "draw", 0)] * 4
    pool = WorkerPool({Lane.SEARCH: 1})
    hints = HintSearches(pool)
    try:
        await hints.hint(header, log[:3])
        await pool.close()
        fresh = hint_with_confidence(Session.replay(header, log).game)
        assert fresh is not None
        assert await hints.hint(header, log) == (str(fresh.move), fresh.confidence)
        assert pool.jobs["hint_job"] == 3, "the first hint, the tail the new worker refused, the whole log"
        assert len(pool.pids) == 2
    finally:
        await pool.close()


KILLED_SERVER = """
import asyncio, os, sys
from server.runtime.searches import hint_job
from server.runtime.workers import Lane, Priority, WorkerPool
from server.model.records import SessionHeader

async def main():
    header = SessionHeader(game_id="g_k", game="klondike", deal=3, options={}, owner="p_1", created_ms=0)
    pool = WorkerPool({Lane.SEARCH: 1})
    answer = await pool.run(Priority.SEARCH, "g_k", hint_job, header, 0, (), None)
    print(answer.pid, flush=True)
    sys.stdin.readline()
    os._exit(9)  # as a killed server: no shutdown

asyncio.run(main())
"""
EXIT_SECONDS = 30.0
"""A liveness bound on a worker noticing that its server is gone (it checks every second)."""


def test_the_workers_of_a_killed_server_end_too() -> None:
    """A server killed outright never shuts its pool down; its worker ends
    by itself instead of waiting on its queue for ever."""
    server = subprocess.Popen(
        [sys.executable, "-c", KILLED_SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        worker = int(server.stdout.readline())
        handle = os.pidfd_open(worker)
        server.stdin.write("die\n")
        server.stdin.flush()
        assert server.wait(EXIT_SECONDS) == 9
        try:
            ready, _, _ = select.select([handle], [], [], EXIT_SECONDS)
            assert ready, f"worker {worker} outlived its server"
        finally:
            os.close(handle)
    finally:
        server.stdin.close()
        server.stdout.close()


def test_a_worker_refuses_entries_that_do_not_follow_the_game_it_kept() -> None:
    header = SessionHeader(game_id="g_other", game="klondike", deal=3, options={"draw": 1}, owner="p_1", created_ms=0)
    draw = Action("move", "draw", 0)
    assert hint_job(header, 0, (draw, draw, draw), None) is not None
    assert hint_job(header, 2, (draw,), draw) is None, "it kept 3 entries, not 2"
    assert hint_job(header, 3, (draw,), draw) is None, "a refusal forgets the game"



def test_a_hint_after_one_that_found_no_win_searches_at_most_the_planless_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Broken Deck deal 776 (Relaxed): the first hint's full search finds
    no win from the deal, so each next hint of that game searches at most
    ``planless_nodes`` (the second one replayed from the start too, as
    after a first hint on an empty log); deal 97's first search finds a
    win, and the hints after it follow that line, uncapped."""
    budgets: list[int | None] = []

    def recorded(game: engine.Game, budget: int | None = None) -> Hint | None:
        budgets.append(budget)
        return hint_with_confidence(game, budget)

    monkeypatch.setattr(server.runtime.searches, "hint_with_confidence", recorded)
    for deal, expected in ((776, [None, 5, 5]), (97, [None, None, None])):
        header = SessionHeader(
            game_id=f"g_cap{deal}", game="broken-deck", deal=deal, options={"difficulty": "relaxed"}, owner="p_1", created_ms=0
        )
        budgets.clear()
        first = hint_job(header, 0, (), None, 5)
        assert first and first.move
        log = (Action("move", first.move, 0),)
        second = hint_job(header, 0, log, None, 5)
        assert second and second.move
        third = hint_job(header, 1, (Action("move", second.move, 0),), log[-1], 5)
        assert third and third.move, "a move each time"
        assert budgets == expected, deal


async def test_a_worker_killed_during_a_hint_refuses_it_as_worker_stopped_and_the_next_is_searched(
    pool_server: ArenaServer, player: WireClient
) -> None:
    """A search process killed mid-job (out of memory, an operator) is not an
    internal error: the request is refused with ``unavailable``, reason
    ``worker_stopped``, the game is unchanged, and the next search runs in
    a new process.  The worker is stopped (SIGSTOP) before the hint is
    asked, so it holds the job until it is killed, whatever the machine's speed."""
    started, _ = await player.new_game(position=NEARLY_WON_KLONDIKE)
    game_id = started.game_id
    assert (await player.request(ts.Hint, game_id=game_id)).type == "hint"
    pool = pool_server.hub.workers
    (first_pid,) = pool.pids
    os.kill(first_pid, signal.SIGSTOP)
    try:
        asked = asyncio.create_task(player.request(ts.Hint, game_id=game_id))
        while not any(place.job for places in pool._lanes.values() for place in places):
            await asyncio.sleep(0)
    finally:
        os.kill(first_pid, signal.SIGKILL)
    refused = await asked
    assert refused.type == "error" and refused.code == ErrorCode.UNAVAILABLE and refused.reason == "worker_stopped", refused
    state = await player.request(ts.Resync, game_id=game_id)
    assert state.type == "snapshot" and state.seq == 1 and state.counters["hints"] == 1, "the refused hint changed nothing"
    again = await player.request(ts.Hint, game_id=game_id)
    assert again.type == "hint" and len(pool.pids - {first_pid}) == 1, "searched again, in a new process"
