"""Safe automatic finishing and post-game analysis through the protocol."""

from __future__ import annotations

import asyncio
import random
from typing import Any, AsyncIterator, Callable, Mapping

import pytest
from tests.server.arena_memory import MemoryArena, ThreadWorker
from tests.server.arena_positions import REPAIRS, broken_deck_two_halves_left
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import SEARCH_WAIT_SECONDS, WAIT_SECONDS, Mirror, RecordingClient

import engine
from protocol import ErrorCode
from protocol import to_server as ts
from server.games.assists import played_line
from server.runtime.workers import Answer, Lane, Priority, Worker, WorkerPool
from server.model.records import Action
from tests.solver.positions import broken_deck_needs_search, klondike_hearts_locked
from tests.solver.test_analysis import BLUNDER_LOG

FINISH_PATH_AFTER_REPAIRS = ("r-fs", "t3-fh", "t4-fd", "t2-fs", "t6-fc", "t3-fh", "t5-fd", "t6-fc")
"""The solver's path once both halves of the Q♠ are repaired (checked by the tests that play it)."""


async def _unchanged(player: RecordingClient, game_id: str, seq: int) -> None:
    again = await player.request(ts.Resync, game_id=game_id)
    assert again.type == "snapshot" and again.seq == seq


async def _repaired_game(arena: MemoryArena, difficulty: str = "relaxed") -> tuple[RecordingClient, str, Mirror]:
    player = await arena.client()
    await player.hello()
    started, snapshot = await player.new_game("broken-deck", position=broken_deck_two_halves_left(difficulty))
    mirror = Mirror(snapshot)
    for move in REPAIRS:
        mirror.apply(await player.request(ts.Move, game_id=started.game_id, move=move))
    return player, started.game_id, mirror


async def test_finishing_is_offered_once_every_half_is_repaired_and_plays_the_proven_path(
    arena: MemoryArena,
) -> None:
    """Relaxed and Standard can automatically finish only after all halves
    are repaired and a complete foundation path is proven."""
    player = await arena.client()
    await player.hello()
    started, snapshot = await player.new_game("broken-deck", position=broken_deck_two_halves_left())
    game_id = started.game_id
    spectator = await arena.client()
    watched = await spectator.request(ts.Watch, game_id=game_id)
    mine, theirs = Mirror(snapshot), Mirror(watched)

    mine.apply(await player.request(ts.Move, game_id=game_id, move=REPAIRS[0]))
    early = await player.request(ts.Finish, game_id=game_id)
    assert early.type == "error" and early.code == ErrorCode.UNAVAILABLE and early.reason == "halves_unrepaired"
    await _unchanged(player, game_id, 1)

    mine.apply(await player.request(ts.Move, game_id=game_id, move=REPAIRS[1]))
    offer = await player.next_of("finish_offer")
    assert (offer.seq, offer.moves) == (2, len(FINISH_PATH_AFTER_REPAIRS))
    seen = await spectator.next_of("finish_offer")
    assert (seen.seq, seen.moves) == (2, offer.moves)
    assert not any(m.type == "finish_offer" and m.seq < 2 for m in player.received), "no offer before the last repair"

    finished = await player.request(ts.Finish, game_id=game_id)
    assert finished.type == "finish" and tuple(finished.moves) == FINISH_PATH_AFTER_REPAIRS
    for number in range(1, 3 + len(FINISH_PATH_AFTER_REPAIRS)):
        theirs.apply(await spectator.wait_for(lambda m, n=number: m.type == "diff" and m.seq == n))
    last = [m for m in player.received if m.type == "diff"][-1]
    assert last.status == "won" and last.counters["moves"] == 2 + len(FINISH_PATH_AFTER_REPAIRS)
    over = await spectator.next_of("game_over")
    assert over.result == "won"
    assert theirs.seq == 2 + len(FINISH_PATH_AFTER_REPAIRS)


async def test_playing_the_offered_path_carries_the_offer_and_straying_from_it_searches_again(
    arena: MemoryArena,
) -> None:
    player, game_id, _ = await _repaired_game(arena)
    await player.next_of("finish_offer")
    await player.request(ts.Move, game_id=game_id, move=FINISH_PATH_AFTER_REPAIRS[0])
    carried = await player.next_of("finish_offer")
    assert (carried.seq, carried.moves) == (3, len(FINISH_PATH_AFTER_REPAIRS) - 1)

    strayed = await player.request(ts.Move, game_id=game_id, move="t3-c1")
    assert strayed.type == "diff" and strayed.seq == 4
    fresh = await player.next_of("finish_offer")
    assert fresh.seq == 4
    finished = await player.request(ts.Finish, game_id=game_id)
    assert finished.type == "finish" and len(finished.moves) == fresh.moves
    assert (await player.next_of("game_over")).result == "won"


async def test_solver_searches_are_counted_in_the_metrics(arena: MemoryArena) -> None:
    player, game_id, _ = await _repaired_game(arena)
    await player.next_of("finish_offer")
    await player.request(ts.Resign, game_id=game_id)
    await player.request(ts.Analyse, game_id=game_id)
    registry = arena.hub.metrics.registry
    assert registry.get_sample_value("arena_finish_search_seconds_count") == 1
    assert registry.get_sample_value("arena_analysis_seconds_count") == 1


async def test_a_watcher_who_arrives_while_an_offer_stands_gets_it_after_the_snapshot(arena: MemoryArena) -> None:
    player, game_id, _ = await _repaired_game(arena)
    await player.next_of("finish_offer")
    late = await arena.client()
    snapshot = await late.request(ts.Watch, game_id=game_id)
    offer = await late.next_of("finish_offer")
    assert snapshot.type == "snapshot" and offer.seq == snapshot.seq == 2
    assert late.received.index(offer) > late.received.index(snapshot)


async def test_challenge_disables_automatic_finishing(arena: MemoryArena) -> None:
    """Challenge keeps the placement rules but disables those assists, including automatic finishing."""
    player, game_id, _ = await _repaired_game(arena, "challenge")
    refused = await player.request(ts.Finish, game_id=game_id)
    assert refused.type == "error" and refused.code == ErrorCode.UNAVAILABLE and refused.reason == "assist_disabled"
    await _unchanged(player, game_id, 2)
    assert not any(m.type == "finish_offer" for m in player.received)


async def test_games_without_torn_cards_never_finish_automatically(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello()
    started, _ = await player.new_game(deal=3)
    refused = await player.request(ts.Finish, game_id=started.game_id)
    assert refused.type == "error" and refused.reason == "finish_not_offered"
    await _unchanged(player, started.game_id, 0)


async def test_only_the_owner_finishes_and_a_finished_game_refuses(arena: MemoryArena) -> None:
    player, game_id, _ = await _repaired_game(arena)
    stranger = await arena.client()
    await stranger.hello()
    refused = await stranger.request(ts.Finish, game_id=game_id)
    assert refused.type == "error" and refused.code == ErrorCode.FORBIDDEN
    await _unchanged(player, game_id, 2)
    await player.request(ts.Resign, game_id=game_id)
    late = await player.request(ts.Finish, game_id=game_id)
    assert late.type == "error" and late.code == ErrorCode.GAME_FINISHED


@pytest.fixture
async def no_budget_arena() -> AsyncIterator[MemoryArena]:
    async with MemoryArena(make_settings(finish_search_nodes=2)) as running:
        yield running


async def test_without_a_proven_path_nothing_is_offered_and_finish_is_refused(no_budget_arena: MemoryArena) -> None:
    player = await no_budget_arena.client()
    await player.hello()
    started, _ = await player.new_game("broken-deck", position=broken_deck_needs_search().to_text())
    for _ in range(3):
        refused = await player.request(ts.Finish, game_id=started.game_id)
        assert refused.type == "error" and refused.reason == "no_finish_path"
    await _unchanged(player, started.game_id, 0)
    assert not any(m.type == "finish_offer" for m in player.received)


def test_the_analysed_line_leaves_out_undone_moves_and_starts_again_at_a_restart() -> None:
    def log(*entries: str) -> list[Action]:
        return [Action(kind, text, 0) for kind, _, text in (entry.partition(":") for entry in entries)]

    assert played_line(log("move:a", "move:b", "undo", "move:c")) == ["a", "c"]
    assert played_line(log("move:a", "move:b", "undo", "hint:x", "redo")) == ["a", "b"]
    assert played_line(log("move:a", "restart", "move:d", "undo", "undo")) == []
    assert played_line(log("move:a", "undo", "move:b", "redo")) == ["b"]


async def test_a_resigned_game_is_analysed_for_anyone_who_may_watch_it(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello()
    position = klondike_hearts_locked(empty_seventh=True).to_text()
    started, _ = await player.new_game(position=position)
    game_id = started.game_id
    live = await player.request(ts.Analyse, game_id=game_id)
    assert live.type == "error" and live.code == ErrorCode.UNAVAILABLE and live.reason == "game_live"

    await player.request(ts.Move, game_id=game_id, move="draw")
    await player.request(ts.Undo, game_id=game_id)
    for move in BLUNDER_LOG:
        await player.request(ts.Move, game_id=game_id, move=move)
    await player.request(ts.Resign, game_id=game_id)

    spectator = await arena.client()
    analysis = await spectator.request(ts.Analyse, game_id=game_id)
    assert analysis.type == "analysis" and analysis.verdict == "lost_at"
    assert analysis.line == BLUNDER_LOG, "the undone draw is not part of the line"
    assert (analysis.last_winnable, analysis.losing_move, analysis.certain) == (4, "w-t7", True)
    assert analysis.solution and analysis.nodes > 0
    again = await player.request(ts.Analyse, game_id=game_id)
    assert again.model_dump(exclude={"id"}) == analysis.model_dump(exclude={"id"})


async def test_a_resigned_game_that_could_still_be_won_shows_the_win(arena: MemoryArena) -> None:
    player, game_id, _ = await _repaired_game(arena)
    await player.request(ts.Resign, game_id=game_id)
    analysis = await player.request(ts.Analyse, game_id=game_id)
    assert analysis.type == "analysis" and analysis.verdict == "still_winnable" and analysis.last_winnable == 2
    assert len(analysis.solution) == len(FINISH_PATH_AFTER_REPAIRS)


async def test_a_daily_deal_is_not_analysed_before_its_day_is_revealed(arena: MemoryArena) -> None:
    """Neither the ranked attempt nor a practice one after it."""
    player = await arena.client()
    await player.hello()
    for practice in (False, True):
        started, _ = await player.new_game(deal="daily", practice=practice)
        await player.request(ts.Resign, game_id=started.game_id)
        refused = await player.request(ts.Analyse, game_id=started.game_id)
        assert refused.type == "error" and refused.reason == "deal_secret", practice


def random_line(deal: int, moves: int, seed: int) -> list[str]:
    """A random player's WordLink draw 3 line (usually a lost one)."""
    chooser = random.Random(seed)
    game = engine.new_game("klondike", deal, draw=3)
    line: list[str] = []
    while len(line) < moves and (legal := game.legal_moves()):
        line.append(str(game.play(chooser.choice(legal))))
    return line


class HeldAnalyses(WorkerPool):
    """The real pool (its workers threads, as every pool of a
    ``MemoryArena``), whose analyses start only once ``release`` is set:
    the test, not the machine's speed, decides how long an analysis runs."""

    def __init__(self, sizes: Mapping[Lane, int], start_worker: Callable[[], Worker]) -> None:
        super().__init__(sizes, start_worker)
        self.asked = asyncio.Event()
        self.release = asyncio.Event()

    async def run(self, priority: Priority, key: str | None, job: Callable[..., Any], *args: Any, asker: str | None = None) -> Answer:
        if priority is Priority.ANALYSIS:
            self.asked.set()
            await self.release.wait()
        return await super().run(priority, key, job, *args, asker=asker)


@pytest.fixture
async def one_analysis_arena() -> AsyncIterator[tuple[MemoryArena, HeldAnalyses]]:
    settings = make_settings(analysis_slots=1, analysis_queue=0, analysis_nodes=20_000)
    workers = HeldAnalyses.sized(settings, ThreadWorker)
    async with MemoryArena(settings, workers=workers) as running:
        yield running, workers


async def test_watchers_share_a_running_analysis_and_a_full_queue_refuses_more(
    one_analysis_arena: tuple[MemoryArena, HeldAnalyses],
) -> None:
    """The one analysis slot is held busy (``HeldAnalyses``) while a
    watcher asks for the same game and for another, then released."""
    arena, analyses = one_analysis_arena
    player = await arena.client()
    spectator = await arena.client()
    await player.hello()
    slow, _ = await player.new_game(deal=4, options={"draw": 3})
    for move in random_line(4, 200, seed=7):
        await player.request(ts.Move, game_id=slow.game_id, move=move)
    await player.request(ts.Resign, game_id=slow.game_id)
    quick, _ = await player.new_game(deal=5, options={"draw": 1})
    await player.request(ts.Resign, game_id=quick.game_id)

    first = asyncio.ensure_future(player.request(ts.Analyse, SEARCH_WAIT_SECONDS, game_id=slow.game_id))
    async with asyncio.timeout(WAIT_SECONDS):
        await analyses.asked.wait()
    shared = asyncio.ensure_future(spectator.request(ts.Analyse, SEARCH_WAIT_SECONDS, game_id=slow.game_id))
    busy = await spectator.request(ts.Analyse, game_id=quick.game_id)
    assert busy.type == "error" and busy.code == ErrorCode.UNAVAILABLE and busy.reason == "analysis_busy"
    analyses.release.set()
    mine, theirs = await first, await shared
    assert mine.type == theirs.type == "analysis" and mine.verdict == "lost_at"
    assert mine.model_dump(exclude={"id"}) == theirs.model_dump(exclude={"id"})
    assert arena.hub.metrics.registry.get_sample_value("arena_analysis_seconds_count") == 1
    after = await spectator.request(ts.Analyse, SEARCH_WAIT_SECONDS, game_id=quick.game_id)
    assert after.type == "analysis", "the queue has room again"
