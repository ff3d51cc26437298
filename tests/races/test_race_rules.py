"""The race without I/O: the ledger's replay, each request's checks, the
results table, invite codes, and the delayed board a spectator sees."""

from __future__ import annotations

import dataclasses

import pytest
from tests.races.arena_races import DEAL_1_DRAW_1_WIN

import engine
from protocol import ErrorCode
from protocol import to_client as tc
from server.games.delay import DelayedBoard, released
from server.model.ids import CODE_ALPHABET, normalize_code
from server.runtime.entropy import SystemEntropy
from server.model.race_phases import COUNTDOWN, EXPIRED, FINISHED, LOBBY, RUNNING
from server.races.state import RaceDeal, RaceLedger, RaceState, RosterChanged, create_entry
from server.model.refusal import Refusal
from server.games.room import Room
from server.model.session import Session
from server.model.records import Action, SessionHeader

T0 = 1_800_000_000_000
ANN = tc.Owner(player_id="p_ann", name="ann")
TYPED_DEAL_1 = RaceDeal(1, None, (), None, None, False, None)
"""Deal 1 as a host types it: an unranked race."""


def _created(limit: int = 3) -> Action:
    return create_entry(
        code="ABCDEFGH", host=ANN, deal=1, limit=limit, countdown_ms=10_000, time_limit_ms=60_000,
        invite_expires_ms=T0 + 3_600_000, racers=[ANN], now_ms=T0,
    )


def _lobby(limit: int = 3) -> RaceState:
    return RaceState.replay(RaceLedger("r_1", "klondike", {"draw": 1}, "p_ann", T0), [_created(limit)])


def _refused(code: ErrorCode) -> pytest.RaisesExc[Refusal]:
    return pytest.raises(Refusal, check=lambda refusal: refusal.code is code)


def _join(state: RaceState, *names: str, at: int = T0 + 1) -> None:
    for name in names:
        entry = state.join_entry(f"p_{name}", name, at)
        assert entry is not None
        state.apply(entry)


def _start(state: RaceState, at: int = T0 + 2) -> None:
    games = {player_id: (f"g_{player_id}", False) for player_id in state.racers}
    state.apply(state.start_entry("p_ann", at, starts_at=at + 10_000, deal=TYPED_DEAL_1, games=games))


def test_a_race_moves_from_lobby_to_countdown_to_running_to_finished() -> None:
    state = _lobby()
    _join(state, "bob")
    assert state.phase(T0 + 1) == LOBBY
    _start(state)
    assert state.phase(T0 + 3) == COUNTDOWN and state.phase(T0 + 10_002) == RUNNING
    assert state.ends_at == T0 + 70_002
    entry = state.finish_entry(T0 + 20_000, [])
    assert entry is not None
    state.apply(entry)
    assert state.phase(T0 + 20_000) == FINISHED and state.seq == 4
    assert state.finish_entry(T0 + 30_000, []) is None, "a race finishes once"


def test_the_ledger_replays_to_the_same_state() -> None:
    """Any process rebuilds the race from its entries alone."""
    state = _lobby()
    ledger = RaceLedger("r_1", "klondike", {"draw": 1}, "p_ann", T0)
    entries = [_created()]
    for name in ("bob", "cat"):
        entry = state.join_entry(f"p_{name}", name, T0 + 1)
        assert entry is not None
        entries.append(entry)
        state.apply(entry)
    assert RaceState.replay(ledger, entries) == state


def test_joining_checks_the_invite_the_stage_and_the_limit() -> None:
    state = _lobby(limit=2)
    assert state.join_entry("p_ann", "ann", T0 + 1) is None, "the host is in already"
    with _refused(ErrorCode.INVITE_EXPIRED):
        state.join_entry("p_bob", "bob", T0 + 3_600_000)
    assert state.phase(T0 + 3_600_000) == EXPIRED
    _join(state, "bob")
    with _refused(ErrorCode.RACE_FULL):
        state.join_entry("p_cat", "cat", T0 + 2)
    _start(state)
    with _refused(ErrorCode.RACE_STATE):
        state.join_entry("p_dan", "dan", T0 + 3)


def test_only_the_host_starts_and_only_once() -> None:
    state = _lobby()
    _join(state, "bob")
    with _refused(ErrorCode.FORBIDDEN):
        state.check_start("p_bob", T0 + 2)
    _start(state)
    with _refused(ErrorCode.RACE_STATE):
        state.check_start("p_ann", T0 + 3)


def test_a_start_prepared_for_other_racers_is_refused() -> None:
    state = _lobby()
    _join(state, "bob")
    with pytest.raises(RosterChanged):
        state.start_entry("p_ann", T0 + 2, starts_at=T0, deal=TYPED_DEAL_1, games={"p_ann": ("g", False)})


def test_presence_is_logged_only_when_it_changes() -> None:
    state = _lobby()
    assert state.presence_entry("p_ann", True, T0 + 1) is None
    entry = state.presence_entry("p_ann", False, T0 + 1)
    assert entry is not None
    state.apply(entry)
    assert not state.racers["p_ann"].connected
    assert state.presence_entry("p_nobody", False, T0 + 1) is None


def test_rematch_is_for_racers_of_a_finished_race_and_points_once() -> None:
    state = _lobby()
    _join(state, "bob")
    with _refused(ErrorCode.RACE_STATE):
        state.check_rematch("p_bob", T0 + 2)
    _start(state)
    finish = state.finish_entry(T0 + 20_000, [])
    assert finish is not None
    state.apply(finish)
    with _refused(ErrorCode.FORBIDDEN):
        state.check_rematch("p_eve", T0 + 20_001)
    first = state.rematch_entry("p_bob", "r_2", T0 + 20_001)
    assert first is not None
    state.apply(first)
    assert state.rematch_entry("p_ann", "r_3", T0 + 20_002) is None and state.rematch == "r_2"


def _session(player_id: str, moves: tuple[str, ...], start: int, step: int, resign: bool = False) -> Session:
    header = SessionHeader("g_" + player_id, "klondike", 1, {"draw": 1}, player_id, start, race_id="r_1", started_ms=start)
    log = [Action("move", move, start + step * (n + 1)) for n, move in enumerate(moves)]
    if resign:
        log.append(Action("resign", "", start + step * (len(moves) + 1)))
    return Session.replay(header, log)


def test_results_rank_winners_by_time_then_moves_then_the_rest_by_foundations() -> None:
    state = _lobby(limit=4)
    _join(state, "bob", "cat", "dan")
    _start(state, at=T0)
    start = T0 + 10_000
    sessions: dict[str, Session | None] = {
        "p_ann": _session("p_ann", DEAL_1_DRAW_1_WIN, start, 10),
        "p_bob": _session("p_bob", DEAL_1_DRAW_1_WIN, start, 5),
        "p_cat": _session("p_cat", DEAL_1_DRAW_1_WIN[:20], start, 5, resign=True),
        "p_dan": None,
    }
    rows = state.results_of(sessions)
    assert [(r["place"], r["name"], r["result"]) for r in rows] == [
        (1, "bob", "won"), (2, "ann", "won"), (None, "cat", "resigned"), (None, "dan", "abandoned")
    ]
    assert rows[0]["time_ms"] == 5 * len(DEAL_1_DRAW_1_WIN), "time runs from the race start"


def test_a_race_session_clock_starts_with_the_race() -> None:
    session = _session("p_ann", DEAL_1_DRAW_1_WIN[:1], T0, 2500)
    assert session.started_ms == T0 and session.elapsed_ms(T0 + 4000) == 4000
    casual = dataclasses.replace(session.header, race_id=None, started_ms=None)
    assert Session.replay(casual, session.log).started_ms == T0 + 2500, "a casual game's clock starts at its first action"


def test_invite_codes_are_unambiguous_and_forgiving() -> None:
    codes = {SystemEntropy().new_code() for _ in range(200)}
    assert len(codes) == 200 and all(len(code) == 8 and set(code) <= set(CODE_ALPHABET) for code in codes)
    assert not set("01ILO") & set(CODE_ALPHABET)
    assert normalize_code("abcd-efgh") == "ABCDEFGH"
    assert normalize_code("ABCDEFG") is None and normalize_code("ABCDEFG0") is None


def _live_room(times: list[int]) -> Room:
    header = SessionHeader("g_1", "klondike", 1, {"draw": 1}, "p_ann", T0, race_id="r_1", started_ms=T0)
    log = [Action("move", move, at) for move, at in zip(DEAL_1_DRAW_1_WIN, times)]
    return Room(Session.replay(header, log), ANN)


def _delayed(room: Room, delay_ms: int, now_ms: int) -> DelayedBoard:
    """The board ``watch`` opens at ``now_ms`` (there paced, here at once)."""
    log = room.session.log
    return DelayedBoard(room, delay_ms, Session.replay(room.session.header, log[:released(log, delay_ms, now_ms)]))


def test_released_counts_the_entries_at_least_the_delay_old() -> None:
    log = _live_room([T0 + 1000, T0 + 2000, T0 + 3000]).session.log
    assert [released(log, 1500, now) for now in (T0 + 2499, T0 + 2500, T0 + 3499, T0 + 3500, T0 + 10_000)] == [0, 1, 1, 2, 3]


def test_a_delayed_board_shows_only_what_is_older_than_the_delay() -> None:
    room = _live_room([T0 + 1000, T0 + 2000, T0 + 3000])
    board = _delayed(room, 1500, T0 + 3600)
    snapshot = board.snapshot(T0 + 3600)
    assert snapshot.seq == 2 and snapshot.clock.elapsed_ms == 2100
    early = Session.replay(room.session.header, room.session.log[:2])
    assert snapshot.view.model_dump() == early.view
    assert board.next_due_ms() == T0 + 4500
    assert board.due(T0 + 4499) == []
    (diff,) = board.due(T0 + 4500)
    assert isinstance(diff, dict) and diff["seq"] == 3 and diff["action"]["text"] == DEAL_1_DRAW_1_WIN[2]
    assert board.next_due_ms() is None


def test_a_delayed_board_catches_up_at_once_when_the_race_ends() -> None:
    room = _live_room([T0 + 1000, T0 + 2000])
    board = _delayed(room, 60_000, T0 + 2000)
    assert board.snapshot(T0 + 2000).seq == 0
    assert [message["seq"] for message in board.drain() if isinstance(message, dict)] == [1, 2]
    assert board.mirror.session.view == room.session.view


def test_the_game_in_a_delayed_diff_is_the_live_diff() -> None:
    room = _live_room([T0 + 1000])
    board = _delayed(room, 10, T0)
    fresh = engine.new_game("klondike", 1, draw=1)
    before = fresh.view()
    fresh.play(DEAL_1_DRAW_1_WIN[0])
    (diff,) = board.due(T0 + 2000)
    assert isinstance(diff, dict)
    assert diff["ops"] == engine.diff({k: v for k, v in before.items() if k != "deal"}, {k: v for k, v in fresh.view().items() if k != "deal"})


def test_a_ledger_is_stored_as_a_race_header_and_read_back_from_it_alone() -> None:
    """Ledgers keep the stored shape races always had (a header with status
    ``race``), so ledgers stored before this type existed still load; a
    game's header is no ledger."""
    ledger = RaceLedger("r_1", "klondike", {"draw": 1}, "p_ann", T0)
    stored = ledger.stored()
    assert (stored.game_id, stored.status, stored.race_id, stored.deal, stored.owner) == ("r_1", "race", "r_1", 0, "p_ann")
    assert RaceLedger.read(stored) == ledger
    game = SessionHeader(game_id="g_1", game="klondike", deal=3, options={}, owner="p_ann", created_ms=T0, race_id="r_1")
    assert RaceLedger.read(game) is None
