"""The store contract: one suite, run on the memory store and on Redis
(the Redis half marked ``redis``).

Anything the server relies on is here, so a back end that passes this
suite can replace another without the server noticing.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any, AsyncIterator

import pytest
from tests.storage_backends import BACKENDS, Backend, open_backend

from server.model.records import (
    Action,
    Announcement,
    BoardEntry,
    Finish,
    GameResult,
    LeaderEntry,
    PlayerRecord,
    Record,
    ResultEntry,
    SessionHeader,
)
from server.storage import LogConflict, Store, Subscription, board_score
from server.storage.base import Held

BOARD = "broken-deck/relaxed/2024-05-01"
DAY_MS = 1_714_521_600_000  # 2024-05-01T00:00:00Z


@pytest.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest, redis_namespace: str) -> AsyncIterator[Backend]:
    """Every test taking ``backend`` (or ``store``) runs once per back end."""
    chosen = open_backend(request.param, request, redis_namespace)
    yield chosen
    await chosen.close()


@pytest.fixture
def store(backend: Backend) -> Store:
    return backend.store


def header(game_id: str, *, owner: str = "p1", created_ms: int = 1_000, **changes: Any) -> SessionHeader:
    base = SessionHeader(game_id=game_id, game="broken-deck", deal=7, options={"difficulty": "relaxed"},
                         owner=owner, created_ms=created_ms)
    return dataclasses.replace(base, **changes)


def move(text: str, at_ms: int = 5_000) -> Action:
    return Action("move", text, at_ms)


async def next_message(subscription: Subscription, timeout: float = 5.0) -> bytes:
    iterator = aiter(subscription)
    return await asyncio.wait_for(anext(iterator), timeout)


# ---------------------------------------------------------------- life


async def test_ping_answers(store: Store) -> None:
    await store.ping()


# ---------------------------------------------------------------- players


async def test_a_player_is_found_by_id_and_by_token_hash(store: Store) -> None:
    player = PlayerRecord("p1", "Ada", "hash-1", 1_000)
    await store.create_player(player)
    assert await store.get_player("p1") == player
    assert await store.player_by_token_hash("hash-1") == player


async def test_unknown_players_and_tokens_are_none(store: Store) -> None:
    assert await store.get_player("nobody") is None
    assert await store.player_by_token_hash("no-such-hash") is None


async def test_a_display_name_changes_but_not_the_identity(store: Store) -> None:
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 1_000))
    await store.set_display_name("p1", "Ada L. ♠")
    assert await store.player_by_token_hash("hash-1") == PlayerRecord("p1", "Ada L. ♠", "hash-1", 1_000)


async def test_renaming_an_unknown_player_creates_nobody(store: Store) -> None:
    await store.set_display_name("ghost", "Boo")
    assert await store.get_player("ghost") is None


async def test_a_bot_stays_a_bot(store: Store) -> None:
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 1_000))
    await store.create_player(PlayerRecord("p2", "Robo", "hash-2", 1_000, bot=True))
    assert (await store.get_player("p1")).bot is False  # type: ignore[union-attr]
    assert (await store.get_player("p2")).bot is True  # type: ignore[union-attr]
    await store.mark_bot("p1")
    await store.mark_bot("p1")
    assert await store.player_by_token_hash("hash-1") == PlayerRecord("p1", "Ada", "hash-1", 1_000, bot=True)
    await store.mark_bot("ghost")
    assert await store.get_player("ghost") is None


async def test_a_player_keeps_when_it_was_created_and_its_latest_address(store: Store) -> None:
    """What a public rank asks of an identity (``server.model.fair_play``): its
    creation time, and the address of its latest hello."""
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 1_000, address="2001:db8::/64"))
    await store.create_player(PlayerRecord("p2", "Bea", "hash-2", 2_000))
    assert (await store.get_player("p2")).address is None  # type: ignore[union-attr]
    await store.note_address("p1", "192.0.2.7")
    assert await store.player_by_token_hash("hash-1") == PlayerRecord("p1", "Ada", "hash-1", 1_000, address="192.0.2.7")
    await store.note_address("ghost", "192.0.2.8")
    assert await store.get_player("ghost") is None


# ---------------------------------------------------------------- sessions


async def test_a_new_session_has_its_header_and_an_empty_log(store: Store) -> None:
    await store.create_session(header("g1", options={"difficulty": "relaxed", "draw": 3}))
    assert await store.load_session("g1") == (header("g1", options={"difficulty": "relaxed", "draw": 3}), [])


async def test_an_unknown_session_loads_as_none(store: Store) -> None:
    assert await store.load_session("missing") is None


async def test_appends_return_the_new_length_and_keep_their_order(store: Store) -> None:
    await store.create_session(header("g1"))
    actions = [move("7H>F1", 10), Action("undo", "", 20), Action("hint", "", 30), move("QS<>T2", 40)]
    lengths = [await store.append("g1", n, action) for n, action in enumerate(actions)]
    assert lengths == [1, 2, 3, 4]
    loaded = await store.load_session("g1")
    assert loaded is not None and loaded[1] == actions


async def test_a_long_log_keeps_its_length_and_order_across_every_append(store: Store) -> None:
    """Long enough for the memory store's chunks (``memory_sessions.CHUNK``)
    to fill, several times over."""
    await store.create_session(header("g1"))
    actions = [move(f"t{number}", number) for number in range(200)]
    for number, action in enumerate(actions):
        assert await store.append("g1", number, action) == number + 1
        assert await store.log_lengths(["g1"]) == {"g1": number + 1}
        if number in (63, 64, 127, 128):
            with pytest.raises(LogConflict):
                await store.append("g1", number, move("stale"))
    loaded = await store.load_session("g1")
    assert loaded is not None and loaded[1] == actions


async def test_an_append_with_a_stale_length_conflicts_and_changes_nothing(store: Store) -> None:
    await store.create_session(header("g1"))
    await store.append("g1", 0, move("a"))
    await store.append("g1", 1, move("b"))
    with pytest.raises(LogConflict) as raised:
        await store.append("g1", 1, move("c"))
    assert (raised.value.game_id, raised.value.expected, raised.value.actual_length) == ("g1", 1, 2)
    loaded = await store.load_session("g1")
    assert loaded is not None and [action.text for action in loaded[1]] == ["a", "b"]


async def test_an_append_ahead_of_the_log_conflicts_too(store: Store) -> None:
    await store.create_session(header("g1"))
    with pytest.raises(LogConflict) as raised:
        await store.append("g1", 3, move("a"))
    assert raised.value.actual_length == 0


async def test_of_two_concurrent_appenders_with_the_same_length_exactly_one_wins(backend: Backend) -> None:
    """Two processes acting on one game cannot fork its log."""
    first, second = backend.store, backend.peer()
    await first.create_session(header("g1"))
    rounds = 25
    for length in range(rounds):
        outcomes = await asyncio.gather(
            first.append("g1", length, move(f"first-{length}")),
            second.append("g1", length, move(f"second-{length}")),
            return_exceptions=True,
        )
        winners = [outcome for outcome in outcomes if outcome == length + 1]
        losers = [outcome for outcome in outcomes if isinstance(outcome, LogConflict)]
        assert len(winners) == 1 and len(losers) == 1, outcomes
        assert losers[0].actual_length == length + 1
    loaded = await second.load_session("g1")
    assert loaded is not None and len(loaded[1]) == rounds


async def test_appending_to_an_unknown_session_is_a_key_error(store: Store) -> None:
    with pytest.raises(KeyError):
        await store.append("missing", 0, move("a"))


async def test_an_updated_header_replaces_the_old_one_and_keeps_the_log(store: Store) -> None:
    await store.create_session(header("g1"))
    await store.append("g1", 0, move("a"))
    started = header("g1", started_ms=2_000, position="some position")
    await store.update_session(started)
    assert await store.load_session("g1") == (started, [move("a")])


async def test_updating_an_unknown_session_creates_nothing(store: Store) -> None:
    await store.update_session(header("ghost"))
    assert await store.load_session("ghost") is None


async def test_recreating_a_session_starts_an_empty_log(store: Store) -> None:
    await store.create_session(header("g1"))
    await store.append("g1", 0, move("a"))
    await store.create_session(header("g1", deal=8))
    assert await store.load_session("g1") == (header("g1", deal=8), [])


async def test_live_sessions_are_the_unfinished_ones_newest_first(store: Store) -> None:
    for number in range(5):
        await store.create_session(header(f"g{number}", created_ms=1_000 + number))
    await store.finish_session(header("g3", status="won", finished_ms=9_000), keep_seconds=60)
    await store.update_session(header("g1", status="lost"))
    live = await store.live_sessions()
    assert [h.game_id for h in live] == ["g4", "g2", "g0"]
    assert [h.game_id for h in await store.live_sessions(limit=2)] == ["g4", "g2"]


async def test_a_players_sessions_are_listed_newest_first(store: Store) -> None:
    await store.create_session(header("a1", owner="alice", created_ms=1))
    await store.create_session(header("b1", owner="bob", created_ms=2))
    await store.create_session(header("a2", owner="alice", created_ms=3))
    await store.create_session(header("a3", owner="alice", created_ms=4))
    await store.finish_session(header("a2", owner="alice", created_ms=3, status="won"), keep_seconds=60)
    assert [h.game_id for h in await store.sessions_of("alice")] == ["a3", "a2", "a1"]
    assert [h.game_id for h in await store.sessions_of("alice", limit=2)] == ["a3", "a2"]
    assert [h.game_id for h in await store.sessions_of("bob")] == ["b1"]
    assert await store.sessions_of("carol") == []


async def test_a_finished_session_is_kept_for_replay_then_expires(backend: Backend) -> None:
    store = backend.store
    await store.create_session(header("done"))
    await store.create_session(header("live"))
    await store.append("done", 0, move("a"))
    final = header("done", status="won", finished_ms=9_000)
    await store.finish_session(final, keep_seconds=1)
    assert await store.load_session("done") == (final, [move("a")])
    await backend.advance(1.2)
    assert await store.load_session("done") is None
    assert [h.game_id for h in await store.sessions_of("p1")] == ["live"]
    assert await store.load_session("live") == (header("live"), [])


async def test_a_player_whose_games_all_expired_lists_none_then_only_the_next(backend: Backend) -> None:
    store = backend.store
    for game_id in ("old1", "old2"):
        await store.create_session(header(game_id, owner="dora"))
        await store.finish_session(header(game_id, owner="dora", status="won"), keep_seconds=1)
    await backend.advance(1.2)
    assert await store.sessions_of("dora") == []
    await store.create_session(header("new", owner="dora"))
    assert [h.game_id for h in await store.sessions_of("dora")] == ["new"]


async def test_an_action_appended_after_the_finish_expires_with_the_session(backend: Backend) -> None:
    store = backend.store
    await store.create_session(header("g1"))
    await store.finish_session(header("g1", status="lost"), keep_seconds=1)
    await store.append("g1", 0, Action("resign", "", 7_000))
    await backend.advance(1.2)
    assert await store.load_session("g1") is None
    with pytest.raises(KeyError):
        await store.append("g1", 1, move("late"))


# ---------------------------------------------------------------- a game's end


def finish(game_id: str, *, vegas: int | None = None, board: bool = True, **changes: Any) -> Finish:
    """A won game's end: a record, Vegas earnings if given, a board entry."""
    final = header(game_id, status="won", finished_ms=9_000, **changes)
    won = GameResult(True, 90, 60_000, score=vegas, counters={"left": 3})
    result = ResultEntry(final.owner, "wordlink/vegas", won, vegas)
    entry = BoardEntry(BOARD, final.owner, 60_000, 90, DAY_MS + 9_000, 3_600) if board else None
    return Finish(final, 600, result, entry)


async def test_the_append_that_ends_a_game_opens_its_outbox_and_others_do_not(store: Store) -> None:
    await store.create_session(header("g1"))
    await store.create_session(header("g2"))
    await store.append("g1", 0, move("a"))
    await store.append("g2", 0, move("a"))
    assert await store.open_finishes() == []
    await store.append("g1", 1, Action("resign", "", 6_000), ends=True)
    assert await store.open_finishes() == ["g1"]
    with pytest.raises(LogConflict):
        await store.append("g2", 0, Action("resign", "", 6_000), ends=True)
    assert await store.open_finishes() == ["g1"], "a refused end opens nothing"


async def test_settling_an_end_writes_record_earnings_board_and_final_header_and_closes_the_outbox(
    store: Store,
) -> None:
    await store.create_session(header("g1"))
    await store.append("g1", 0, move("win", 9_000), ends=True)
    end = finish("g1", vegas=52)
    await store.settle_finish(end)
    assert await store.open_finishes() == []
    assert (await store.records("p1"))["wordlink/vegas"] == Record(
        games=1, wins=1, moves=90, time_ms=60_000, counters={"left": 3}, best_moves=90, best_time_ms=60_000,
        extra={"best_score": 52},
    )
    assert await store.vegas("p1") == 52
    assert await store.rank(BOARD, "p1") == LeaderEntry(1, "p1", "p1", 60_000, 90, DAY_MS + 9_000)
    assert await store.load_session("g1") == (end.header, [move("win", 9_000)])
    assert await store.live_sessions() == []


async def test_settling_one_end_again_or_in_two_processes_at_once_counts_it_once(backend: Backend) -> None:
    """A process may die after some of the writes of an end; the next one
    to find the outbox settles all of it again."""
    stores = [backend.store, backend.peer()]
    for game_id in ("g1", "g2"):
        await stores[0].create_session(header(game_id))
        await stores[0].append(game_id, 0, move("win", 9_000), ends=True)
    await stores[0].settle_finish(finish("g1", vegas=-20))
    await stores[1].settle_finish(finish("g1", vegas=-20))
    await asyncio.gather(*(stores[n % 2].settle_finish(finish("g2", vegas=30)) for n in range(6)))
    record = (await stores[1].records("p1"))["wordlink/vegas"]
    assert (record.games, record.wins, record.moves, record.counters) == (2, 2, 180, {"left": 6})
    assert await stores[0].vegas("p1") == 10
    assert [entry.player_id for entry in await stores[1].leaderboard(BOARD)] == ["p1"]
    assert await stores[1].open_finishes() == []


async def test_an_end_with_nothing_to_record_only_stores_the_final_header(store: Store) -> None:
    await store.create_session(header("g1", practice=True))
    await store.append("g1", 0, Action("resign", "", 6_000), ends=True)
    final = header("g1", practice=True, status="resigned", finished_ms=6_000)
    await store.settle_finish(Finish(final, 600))
    assert await store.open_finishes() == []
    assert await store.records("p1") == {} and await store.vegas("p1") == 0
    assert await store.load_session("g1") == (final, [Action("resign", "", 6_000)])


async def test_the_outbox_of_a_game_no_longer_stored_is_closed(backend: Backend) -> None:
    store = backend.store
    await store.create_session(header("g1"))
    await store.append("g1", 0, Action("resign", "", 6_000), ends=True)
    await store.finish_session(header("g1", status="resigned"), keep_seconds=1)
    await backend.advance(1.2)
    assert await store.open_finishes() == []


# ---------------------------------------------------------------- records


async def test_records_sum_every_counter_and_keep_the_best_of_wins(store: Store) -> None:
    def result(won: bool, moves: int, time_ms: int, hints: int, undos: int, repairs: int) -> GameResult:
        return GameResult(won, moves, time_ms, hints=hints, undos=undos, counters={"repairs": repairs})

    await store.add_result("p1", "broken-deck/relaxed", result(True, 120, 300_000, 2, 5, 3))
    await store.add_result("p1", "broken-deck/relaxed", result(True, 150, 250_000, 1, 0, 4))
    await store.add_result("p1", "broken-deck/relaxed", result(False, 60, 100_000, 3, 1, 1))
    assert (await store.records("p1"))["broken-deck/relaxed"] == Record(
        games=3, wins=2, moves=330, time_ms=650_000, hints=6, undos=6, counters={"repairs": 8},
        best_moves=120, best_time_ms=250_000,
    )


async def test_a_games_counters_are_summed_by_whatever_names_it_gives(store: Store) -> None:
    """A new game's counter needs nothing of the store, and a counter named
    like one of the record's own sums adds to the counter, not to the sum."""
    await store.add_result("p1", "one-suit/standard", GameResult(False, 10, 1_000, counters={"left": 13, "wins": 4}))
    await store.add_result("p1", "one-suit/standard", GameResult(True, 20, 2_000, counters={"left": 0, "stars": 2}))
    await store.add_result("p1", "one-suit/standard", GameResult(True, 30, 3_000))
    record = (await store.records("p1"))["one-suit/standard"]
    assert record.counters == {"left": 13, "wins": 4, "stars": 2}
    assert (record.games, record.wins, record.moves) == (3, 2, 60)


async def test_a_lost_game_sets_no_best(store: Store) -> None:
    await store.add_result("p1", "wordlink/draw-1", GameResult(False, 80, 90_000))
    record = (await store.records("p1"))["wordlink/draw-1"]
    assert (record.games, record.wins, record.best_moves, record.best_time_ms) == (1, 0, None, None)


async def test_the_best_score_is_the_highest(store: Store) -> None:
    for score in (300, 950, 400):
        await store.add_result("p1", "wordlink/vegas", GameResult(True, 100, 60_000, score=score))
    assert (await store.records("p1"))["wordlink/vegas"].extra == {"best_score": 950}


async def test_records_are_kept_per_player_and_per_record_key(store: Store) -> None:
    await store.add_result("p1", "broken-deck/relaxed", GameResult(True, 100, 1_000))
    await store.add_result("p1", "broken-deck/challenge", GameResult(False, 50, 2_000))
    await store.add_result("p2", "broken-deck/relaxed", GameResult(True, 90, 900))
    mine = await store.records("p1")
    assert set(mine) == {"broken-deck/relaxed", "broken-deck/challenge"}
    assert mine["broken-deck/challenge"].wins == 0
    assert (await store.records("p2"))["broken-deck/relaxed"].best_moves == 90
    assert await store.records("p3") == {}


async def test_concurrent_results_are_all_counted(backend: Backend) -> None:
    stores = [backend.store, backend.peer()]
    results = [GameResult(True, 100 + n, 10_000 + 7 * (n % 9)) for n in range(40)]
    await asyncio.gather(*(stores[n % 2].add_result("p1", "chequers/standard", r) for n, r in enumerate(results)))
    record = (await backend.store.records("p1"))["chequers/standard"]
    assert (record.games, record.wins, record.moves) == (40, 40, sum(r.moves for r in results))
    assert (record.best_moves, record.best_time_ms) == (100, 10_000)


async def test_vegas_earnings_accumulate_across_games(backend: Backend) -> None:
    stores = [backend.store, backend.peer()]
    assert await stores[0].add_vegas("p1", -52) == -52
    assert await stores[1].add_vegas("p1", 130) == 78
    await asyncio.gather(*(stores[n % 2].add_vegas("p1", 5) for n in range(20)))
    assert await stores[0].add_vegas("p1", 0) == 178
    assert await stores[0].add_vegas("p2", 10) == 10
    assert (await stores[1].vegas("p1"), await stores[0].vegas("p2"), await stores[0].vegas("p3")) == (178, 10, 0)


# ---------------------------------------------------------------- leaderboards


async def test_the_leaderboard_orders_by_time_then_moves_then_finish_time(store: Store) -> None:
    await store.submit(BOARD, "slow", 90_000, 50, DAY_MS + 1_000, keep_seconds=3_600)
    await store.submit(BOARD, "late", 60_000, 80, DAY_MS + 9_000, keep_seconds=3_600)
    await store.submit(BOARD, "early", 60_000, 80, DAY_MS + 2_000, keep_seconds=3_600)
    await store.submit(BOARD, "fewer", 60_000, 70, DAY_MS + 9_500, keep_seconds=3_600)
    await store.submit(BOARD, "fast", 30_000, 200, DAY_MS + 50_000, keep_seconds=3_600)
    entries = await store.leaderboard(BOARD)
    assert [(e.rank, e.player_id) for e in entries] == [
        (1, "fast"), (2, "fewer"), (3, "early"), (4, "late"), (5, "slow"),
    ]
    assert entries[2] == LeaderEntry(3, "early", "early", 60_000, 80, DAY_MS + 2_000)


async def test_a_full_tie_is_ordered_by_player_id(store: Store) -> None:
    for player in ("zed", "amy", "kim"):
        await store.submit(BOARD, player, 60_000, 80, DAY_MS + 2_000, keep_seconds=3_600)
    assert [e.player_id for e in await store.leaderboard(BOARD)] == ["amy", "kim", "zed"]


async def test_only_a_better_entry_replaces_a_players_entry(store: Store) -> None:
    await store.submit(BOARD, "p1", 60_000, 80, DAY_MS + 1_000, keep_seconds=3_600)
    await store.submit(BOARD, "p1", 70_000, 10, DAY_MS + 2_000, keep_seconds=3_600)
    await store.submit(BOARD, "p1", 60_000, 90, DAY_MS + 3_000, keep_seconds=3_600)
    assert await store.rank(BOARD, "p1") == LeaderEntry(1, "p1", "p1", 60_000, 80, DAY_MS + 1_000)
    await store.submit(BOARD, "p1", 60_000, 79, DAY_MS + 4_000, keep_seconds=3_600)
    assert await store.leaderboard(BOARD) == [LeaderEntry(1, "p1", "p1", 60_000, 79, DAY_MS + 4_000)]


async def test_concurrent_submits_keep_the_best(backend: Backend) -> None:
    stores = [backend.store, backend.peer()]
    times = [50_000 + 10 * ((n * 37) % 41) for n in range(41)]
    await asyncio.gather(*(stores[n % 2].submit(BOARD, "p1", t, 90, DAY_MS, keep_seconds=3_600)
                           for n, t in enumerate(times)))
    entry = await backend.store.rank(BOARD, "p1")
    assert entry is not None and entry.time_ms == min(times)


async def test_a_rank_and_its_neighbours(store: Store) -> None:
    for n in range(10):
        await store.submit(BOARD, f"p{n}", 10_000 * (n + 1), 100, DAY_MS, keep_seconds=3_600)
    mine = await store.rank(BOARD, "p6")
    assert mine is not None and mine.rank == 7
    around = await store.leaderboard(BOARD, offset=mine.rank - 2, count=3)
    assert [(e.rank, e.player_id) for e in around] == [(6, "p5"), (7, "p6"), (8, "p7")]
    assert [e.player_id for e in await store.leaderboard(BOARD, offset=8, count=5)] == ["p8", "p9"]
    assert [e.rank for e in await store.leaderboard(BOARD, count=3)] == [1, 2, 3]
    assert await store.board_size(BOARD) == 10
    await store.submit(BOARD, "p6", 5_000, 100, DAY_MS, keep_seconds=3_600)
    assert await store.board_size(BOARD) == 10, "a better entry replaces the player's own"


async def test_absent_players_and_boards_have_no_entries(store: Store) -> None:
    await store.submit(BOARD, "p1", 60_000, 80, DAY_MS, keep_seconds=3_600)
    assert await store.rank(BOARD, "p2") is None
    assert await store.rank("broken-deck/relaxed/2024-05-02", "p1") is None
    assert await store.leaderboard("broken-deck/relaxed/2024-05-02") == []
    assert await store.leaderboard(BOARD, offset=1) == []
    assert await store.board_size("broken-deck/relaxed/2024-05-02") == 0


async def test_leaderboards_show_the_current_display_name(store: Store) -> None:
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 0))
    await store.submit(BOARD, "p1", 60_000, 80, DAY_MS, keep_seconds=3_600)
    await store.set_display_name("p1", "Countess")
    assert [e.display_name for e in await store.leaderboard(BOARD)] == ["Countess"]


async def test_entries_near_the_score_limits_keep_their_order(store: Store) -> None:
    """board_score is exact within 2**53, so a double-scored back end must
    not merge neighbours at the top of the range."""
    cap_ms = ((1 << 24) - 1) * 10
    last_second = DAY_MS + 86_399_000
    await store.submit(BOARD, "a", cap_ms, 4_095, last_second, keep_seconds=3_600)
    await store.submit(BOARD, "b", cap_ms, 4_095, last_second - 1_000, keep_seconds=3_600)
    await store.submit(BOARD, "c", cap_ms - 10, 4_095, last_second, keep_seconds=3_600)
    assert board_score(cap_ms, 4_095, last_second) < 2**53
    assert [e.player_id for e in await store.leaderboard(BOARD)] == ["c", "b", "a"]


async def test_boards_are_separate(store: Store) -> None:
    await store.submit(BOARD, "p1", 60_000, 80, DAY_MS, keep_seconds=3_600)
    await store.submit("broken-deck/challenge/2024-05-01", "p2", 60_000, 80, DAY_MS, keep_seconds=3_600)
    assert [e.player_id for e in await store.leaderboard(BOARD)] == ["p1"]


async def test_a_board_expires_after_its_retention(backend: Backend) -> None:
    await backend.store.submit(BOARD, "p1", 60_000, 80, DAY_MS, keep_seconds=1)
    await backend.advance(1.2)
    assert await backend.store.leaderboard(BOARD) == []
    assert await backend.store.rank(BOARD, "p1") is None
    assert await backend.store.board_size(BOARD) == 0


# ---------------------------------------------------------------- settings


async def test_the_first_stored_setting_wins(store: Store) -> None:
    assert await store.setting("daily-secret", "first") == "first"
    assert await store.setting("daily-secret", "second") == "first"
    assert await store.setting("other", "x") == "x"


async def test_reading_a_setting_stores_nothing(store: Store) -> None:
    assert await store.get_setting("daily/klondike") is None
    assert await store.setting("daily/klondike", "fixed") == "fixed"
    assert await store.get_setting("daily/klondike") == "fixed"
    assert await store.setting("daily/klondike", "later") == "fixed"


async def test_a_stock_gives_its_items_first_in_first_out_and_then_none(store: Store) -> None:
    assert await store.stock_pop("race/klondike") is None and await store.stock_size("race/klondike") == 0
    assert [await store.stock_push("race/klondike", item) for item in ("a", "b")] == [1, 2]
    assert await store.stock_size("race/chequers") == 0
    assert [await store.stock_pop("race/klondike") for _ in range(3)] == ["a", "b", None]


async def test_two_processes_never_take_the_same_stock_item(backend: Backend) -> None:
    stores = [backend.store, backend.peer()]
    for n in range(20):
        await stores[0].stock_push("race/klondike", f"deal-{n}")
    taken = await asyncio.gather(*(stores[n % 2].stock_pop("race/klondike") for n in range(24)))
    assert sorted(item for item in taken if item is not None) == sorted(f"deal-{n}" for n in range(20))


async def test_concurrent_processes_agree_on_one_setting(backend: Backend) -> None:
    stores = [backend.store, backend.peer()]
    values = await asyncio.gather(*(stores[n % 2].setting("daily-secret", f"candidate-{n}") for n in range(30)))
    assert len(set(values)) == 1 and values[0].startswith("candidate-")


async def test_a_setting_stored_with_a_lifetime_expires_and_can_be_claimed_again(backend: Backend) -> None:
    store = backend.store
    assert await store.setting("ranked/day/p1", "g_first", keep_seconds=1) == "g_first"
    assert await store.setting("ranked/day/p1", "g_second", keep_seconds=1) == "g_first"
    assert await store.setting("forever", "kept") == "kept"
    await backend.advance(1.2)
    assert await store.setting("ranked/day/p1", "g_third", keep_seconds=1) == "g_third"
    assert await store.setting("forever", "other") == "kept"


async def test_a_setting_is_replaced_or_removed_only_while_it_holds_the_expected_value(backend: Backend) -> None:
    """The repair of a claim on a game that was never played: it gives the
    claim back, but never one another process wrote in the meantime."""
    store = backend.store
    assert await store.setting("ranked/day/p1", "g_unplayed", keep_seconds=60) == "g_unplayed"
    assert not await store.replace_setting("ranked/day/p1", "g_other", None, 1)
    assert await store.get_setting("ranked/day/p1") == "g_unplayed"
    assert await store.replace_setting("ranked/day/p1", "g_unplayed", None, 1)
    assert await store.get_setting("ranked/day/p1") is None
    assert not await store.replace_setting("ranked/day/p1", "g_unplayed", None, 1), "nothing left to remove"
    assert await store.setting("ranked/day/p1", "g_daily", keep_seconds=60) == "g_daily", "the next claim wins"
    assert await store.replace_setting("ranked/day/p1", "g_daily", "g_moved", 1)
    assert await store.get_setting("ranked/day/p1") == "g_moved"
    await backend.advance(1.2)
    assert await store.get_setting("ranked/day/p1") is None, "a replaced value keeps the lifetime it was given"


async def test_a_claim_is_written_only_while_the_setting_it_depends_on_holds_its_mark(backend: Backend) -> None:
    """A ranked claim names its daily record by the record's nonce: a record
    gone (a wiped store) or replaced by another writes no claim."""
    store = backend.store
    record = ("ranked_daily/klondike/draw-1/2024-05-01", '{"nonce": "n-1", "seed": 7}')
    on_record = (record[0], '"nonce": "n-1"')
    assert await store.claim("ranked/day/p1", "g_1", 60, while_holding=on_record) is None
    assert await store.get_setting("ranked/day/p1") is None, "no record, no claim"
    await store.setting(*record)
    assert await store.claim("ranked/day/p1", "g_1", 60, while_holding=on_record) == "g_1"
    assert await store.claim("ranked/day/p1", "g_2", 60, while_holding=on_record) == "g_1", "the first claim wins"
    on_another = (record[0], '"nonce": "n-2"')
    assert await store.claim("ranked/day/p2", "g_3", 60, while_holding=on_another) is None
    assert await store.get_setting("ranked/day/p2") is None
    claims = await asyncio.gather(
        *(([store, backend.peer()][n % 2]).claim("ranked/day/p3", f"g_{n}", 60, while_holding=on_record) for n in range(10))
    )
    assert len(set(claims)) == 1 and claims[0] is not None


# ---------------------------------------------------------------- documents


async def test_a_document_round_trips(store: Store) -> None:
    race = {"id": "r1", "players": ["p1", "p2"], "deal": 7, "name": "Ünïcode ♣", "nested": {"a": [1, 2.5, None]}}
    await store.put_document("race", "r1", race)
    assert await store.get_document("race", "r1") == race
    await store.put_document("race", "r1", {"id": "r1", "state": "over"})
    assert await store.get_document("race", "r1") == {"id": "r1", "state": "over"}


async def test_documents_of_different_kinds_are_separate(store: Store) -> None:
    await store.put_document("race", "k", {"kind": "race"})
    await store.put_document("daily", "k", {"kind": "daily"})
    assert await store.get_document("race", "k") == {"kind": "race"}
    assert await store.get_document("session", "k") is None


async def test_a_document_with_a_lifetime_expires(backend: Backend) -> None:
    store = backend.store
    await store.put_document("race", "short", {"n": 1}, keep_seconds=1)
    await store.put_document("race", "renewed", {"n": 2}, keep_seconds=1)
    await store.put_document("race", "renewed", {"n": 3})
    await backend.advance(1.2)
    assert await store.get_document("race", "short") is None
    assert await store.get_document("race", "renewed") == {"n": 3}


async def test_an_index_lists_documents_newest_first_without_expired_ones(backend: Backend) -> None:
    store = backend.store
    for number in range(6):
        keep = 1 if number == 4 else None
        await store.put_document("race", f"r{number}", {"n": number}, keep_seconds=keep)
        await store.index_document("race", "player:p1", f"r{number}", score=1_000 + number)
    await store.index_document("race", "player:p2", "r0", score=5)
    assert [d["n"] for d in await store.list_documents("race", "player:p1")] == [5, 4, 3, 2, 1, 0]
    await backend.advance(1.2)
    assert [d["n"] for d in await store.list_documents("race", "player:p1", limit=3)] == [5, 3, 2]
    assert await store.list_documents("race", "player:p2") == [{"n": 0}]
    assert await store.list_documents("race", "player:p3") == []


async def test_reindexing_a_document_moves_it(store: Store) -> None:
    for number in range(3):
        await store.put_document("race", f"r{number}", {"n": number})
        await store.index_document("race", "all", f"r{number}", score=number)
    await store.index_document("race", "all", "r0", score=10)
    assert [d["n"] for d in await store.list_documents("race", "all")] == [0, 2, 1]


# ---------------------------------------------------------------- pub/sub


async def test_a_message_reaches_a_subscriber_of_another_process(backend: Backend) -> None:
    listener = backend.peer()
    subscription = await listener.subscribe("game:g1")
    payload = bytes(range(256))  # msgpack frames are arbitrary bytes
    await backend.store.publish("game:g1", payload)
    assert await next_message(subscription) == payload
    await subscription.close()


async def test_every_subscriber_gets_every_message_in_order(backend: Backend) -> None:
    first = await backend.store.subscribe("race:r1")
    second = await backend.peer().subscribe("race:r1")
    payloads = [f"event {n}".encode() for n in range(50)]
    for payload in payloads:
        await backend.store.publish("race:r1", payload)
    for subscription in (first, second):
        assert [await next_message(subscription) for _ in payloads] == payloads
        await subscription.close()


async def test_a_subscription_never_yields_what_its_skip_matches(backend: Backend) -> None:
    """A process subscribes without its own messages (the relay's origin):
    those never come, the others come in order, from either process."""
    mine = await backend.store.subscribe("game:g1", skip=lambda payload: payload.startswith(b"mine"))
    plain = await backend.peer().subscribe("game:g1")
    payloads = [b"mine 1", b"theirs 1", b"mine 2", b"mine 3", b"theirs 2", b"theirs 3"]
    for number, payload in enumerate(payloads):
        await (backend.store if number % 2 else backend.peer()).publish("game:g1", payload)
    assert [await next_message(mine) for _ in range(3)] == [b"theirs 1", b"theirs 2", b"theirs 3"]
    assert [await next_message(plain) for _ in payloads] == payloads
    await backend.store.publish("game:g1", b"theirs 4")
    assert await next_message(mine) == b"theirs 4"
    for subscription in (mine, plain):
        await subscription.close()


async def test_an_append_publishes_its_announcement_with_the_entry_and_only_with_it(backend: Backend) -> None:
    """The relay's guarantee: no entry is written without its announcement
    (a process dying right after the append has told the others), and a
    refused append announces nothing."""
    listener = await backend.peer().subscribe("game:g1")
    await backend.store.create_session(header("g1"))
    await backend.store.append("g1", 0, move("a"), announce=Announcement("game:g1", b"entry 1"))
    with pytest.raises(LogConflict):
        await backend.store.append("g1", 0, move("b"), announce=Announcement("game:g1", b"refused"))
    with pytest.raises(KeyError):
        await backend.store.append("missing", 0, move("b"), announce=Announcement("game:g1", b"missing"))
    await backend.store.append("g1", 1, move("c"), ends=True, announce=Announcement("game:g1", b"entry 2"))
    assert [await next_message(listener) for _ in range(2)] == [b"entry 1", b"entry 2"]
    await backend.store.publish("game:g1", b"nothing else came before this")
    assert await next_message(listener) == b"nothing else came before this"
    await listener.close()


async def test_log_lengths_reads_the_stored_length_of_each_game_and_leaves_out_missing_ones(store: Store) -> None:
    for game_id, entries in (("g1", 3), ("g2", 0), ("g3", 1)):
        await store.create_session(header(game_id))
        for number in range(entries):
            await store.append(game_id, number, move(str(number)))
    assert await store.log_lengths(["g1", "g2", "missing", "g3"]) == {"g1": 3, "g2": 0, "g3": 1}
    assert await store.log_lengths([]) == {}


async def test_a_subscriber_hears_only_its_channel(store: Store) -> None:
    subscription = await store.subscribe("game:g1")
    await store.publish("game:g2", b"not for you")
    await store.publish("game:g1", b"for you")
    assert await next_message(subscription) == b"for you"
    await subscription.close()


async def test_closing_a_subscription_ends_its_iteration(store: Store) -> None:
    subscription = await store.subscribe("game:g1")
    other = await store.subscribe("game:g1")
    await store.publish("game:g1", b"before")
    await asyncio.sleep(0.05)
    await subscription.close()
    await store.publish("game:g1", b"after")
    assert [payload async for payload in subscription] == [b"before"]
    assert [await next_message(other) for _ in range(2)] == [b"before", b"after"]
    await other.close()


async def test_closing_the_store_ends_its_subscriptions(backend: Backend) -> None:
    listener = backend.peer() if backend.redis_url is not None else backend.store
    subscription = await listener.subscribe("game:g1")
    await listener.close()
    assert [payload async for payload in subscription] == []


async def test_many_subscriptions_come_and_go_without_losing_a_listener(backend: Backend) -> None:
    listener = backend.peer()
    same = await asyncio.gather(*(listener.subscribe("game:busy") for _ in range(10)))
    others = await asyncio.gather(*(listener.subscribe(f"game:g{n}") for n in range(10)))
    await asyncio.gather(*(subscription.close() for subscription in same[:5]))
    again = await listener.subscribe("game:busy")
    await backend.store.publish("game:busy", b"busy")
    for n in range(10):
        await backend.store.publish(f"game:g{n}", f"g{n}".encode())
    for subscription in [*same[5:], again]:
        assert await next_message(subscription) == b"busy"
    for n, subscription in enumerate(others):
        assert await next_message(subscription) == f"g{n}".encode()
    for subscription in [*same, *others, again]:
        await subscription.close()
    await asyncio.sleep(0.05)
    late = await listener.subscribe("game:busy")
    await backend.store.publish("game:busy", b"still here")
    assert await next_message(late) == b"still here"
    await late.close()


async def test_held_lists_everything_stored_with_its_remaining_lifetime(store: Store) -> None:
    """What ``arena export`` reads: every name of each space, expired ones
    left out, each with what is left of its lifetime."""
    await store.create_player(PlayerRecord("p1", "Ada", "hash-1", 1_000))
    await store.create_session(header("live"))
    await store.create_session(header("done"))
    await store.finish_session(header("done", status="won"), keep_seconds=600)
    await store.create_session(header("gone"))
    await store.finish_session(header("gone", status="won"), keep_seconds=0)
    await store.submit(BOARD, "p1", 60_000, 80, DAY_MS, keep_seconds=3_600)
    await store.setting("secret", "s")
    await store.setting("setting:ranked/p1", "g1", keep_seconds=300)
    await store.stock_push("deals", "a")
    await store.stock_push("deals", "b")
    await store.stock_push("spent", "x")
    await store.stock_pop("spent")
    await store.put_document("race", "r1", {"n": 1}, keep_seconds=900)
    await store.put_document("race", "r2", {"n": 2})
    await store.index_document("race", "of:p1", "r2", 2.0)
    await store.index_document("race", "of:p1", "r1", 5.0)

    def lifetimes(held: list[Held]) -> dict[tuple[str, str], float | None]:
        return {(item.kind, item.name): item.keep_seconds for item in held}

    assert lifetimes(await store.held("player")) == {("", "p1"): None}
    sessions = lifetimes(await store.held("session"))
    assert sessions.keys() == {("", "live"), ("", "done")} and sessions[("", "live")] is None
    assert 590 < (sessions[("", "done")] or 0) <= 600
    boards = lifetimes(await store.held("board"))
    assert boards.keys() == {("", BOARD)} and 3_590 < (boards[("", BOARD)] or 0) <= 3_600
    settings = lifetimes(await store.held("setting"))
    assert settings[("", "secret")] is None and 290 < (settings[("", "setting:ranked/p1")] or 0) <= 300
    assert lifetimes(await store.held("stock")) == {("", "deals"): None}
    documents = lifetimes(await store.held("document"))
    assert documents.keys() == {("race", "r1"), ("race", "r2")} and documents[("race", "r2")] is None
    assert [(item.kind, item.name) for item in await store.held("index")] == [("race", "of:p1")]
    assert await store.stock_items("deals") == ["a", "b"]
    assert await store.stock_size("deals") == 2
    assert await store.index_entries("race", "of:p1") == [("r1", 5.0), ("r2", 2.0)]
    assert await store.index_entries("race", "of:nobody") == []
