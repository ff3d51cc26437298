"""The core without sockets: a hub fed frames, answering into lists.

This is the point of the sans-I/O split: the rules of the server (who may
act, what is sent to whom, what a slow reader costs) are checked here in
memory, and the socket tests only confirm the adapter forwards them.
"""

from __future__ import annotations

from typing import TypeVar

import pytest
from tests.server.arena_clock import FakeClock
from tests.server.arena_servers import make_settings

import engine
from protocol import JSON, MSGPACK, ErrorCode, ServerMessage
from protocol import to_client as tc
from protocol import to_server as ts
from protocol.codec import Codec
from server.core import Hub
from server.net.peer import Peer
from server.net.ratelimit import BucketTable, RateLimiter, TokenBucket, Verdict
from server.model.session import Session
from server.model.records import Action, SessionHeader
from server.storage.memory import MemoryStore

Reply = TypeVar("Reply", bound=tc.Event)


class MemoryOutlet:
    """An outlet whose socket is a list; ``writable`` False models a full socket."""

    def __init__(self, codec: Codec) -> None:
        self.codec = codec
        self.written: list[bytes] = []
        self.writable = True
        self.woken = 0
        self.closed_with: tuple[int, str] | None = None

    def write_now(self, frame: bytes) -> bool:
        if self.writable:
            self.written.append(frame)
        return self.writable

    def wake(self) -> None:
        self.woken += 1

    def close(self, code: int, reason: str) -> None:
        self.closed_with = (code, reason)

    def messages(self) -> list[ServerMessage]:
        return [self.codec.decode_reply(frame) for frame in self.written]

    def message(self, index: int, kind: type[Reply]) -> Reply:
        """The message at ``index`` of ``messages()``, which the test
        expects to be a ``kind`` (its fields are then read typed)."""
        found = self.messages()[index]
        assert isinstance(found, kind), found
        return found


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def hub(clock: FakeClock) -> Hub:
    return Hub(make_settings(send_queue=4, send_overflows=1), MemoryStore(), clock=clock, monotonic=clock.seconds)


def _join(hub: Hub, codec: Codec = MSGPACK) -> tuple[Peer, MemoryOutlet]:
    outlet = MemoryOutlet(codec)
    return hub.connect(codec, outlet, "192.0.2.1"), outlet


async def _say(hub: Hub, peer: Peer, message: ts.Request) -> None:
    await hub.handle(peer, peer.codec.encode(message))


async def test_the_core_answers_into_outlets_without_sockets(hub: Hub, clock: FakeClock) -> None:
    owner, owner_out = _join(hub)
    watcher, watcher_out = _join(hub, JSON)
    await _say(hub, owner, ts.Hello(id=1))
    await _say(hub, owner, ts.NewGame(id=2, game="klondike", deal=5))
    game_id = owner_out.message(1, tc.GameStarted).game_id
    await _say(hub, watcher, ts.Watch(id=1, game_id=game_id))
    clock.ms += 61_000
    await _say(hub, owner, ts.Move(id=3, game_id=game_id, move="draw"))
    owner_got, watcher_got = owner_out.messages(), watcher_out.messages()
    assert [m.type for m in owner_got] == ["welcome", "game_started", "snapshot", "diff"]
    assert [m.type for m in watcher_got] == ["snapshot", "diff"]
    owner_diff, watcher_diff = owner_out.message(-1, tc.Diff), watcher_out.message(-1, tc.Diff)
    assert owner_diff.id == 3 and watcher_diff.id is None
    assert owner_diff.clock.started_ms == clock.ms and owner_diff.clock.elapsed_ms == 0
    assert owner_diff.model_copy(update={"id": None}) == watcher_diff


async def test_a_diff_built_as_data_is_byte_for_byte_the_diff_model(hub: Hub) -> None:
    owner, out = _join(hub)
    await _say(hub, owner, ts.Hello())
    await _say(hub, owner, ts.NewGame(game="klondike", deal=5))
    room = hub.rooms[next(iter(owner.watching))]
    legal = room.session.legal
    assert legal, "a dealt game has moves"
    logged, _ = room.session.perform("move", legal[0])
    data = room.diff(room.session.commit(Action("move", logged, hub.clock())))
    for codec in (JSON, MSGPACK):
        assert codec.encode_data(data) == codec.encode(tc.Diff.model_validate(data))


async def test_the_clock_is_the_servers_and_runs_from_the_first_action(hub: Hub, clock: FakeClock) -> None:
    owner, out = _join(hub)
    await _say(hub, owner, ts.Hello())
    await _say(hub, owner, ts.NewGame(game="klondike", deal=5))
    game_id = out.message(1, tc.GameStarted).game_id
    clock.ms += 5_000
    await _say(hub, owner, ts.Move(game_id=game_id, move="draw"))
    started = clock.ms
    clock.ms += 125_000
    await _say(hub, owner, ts.Move(game_id=game_id, move="draw"))
    clock.ms += 1_000
    await _say(hub, owner, ts.Resync(game_id=game_id))
    second, snapshot = out.message(-2, tc.Diff), out.message(-1, tc.Snapshot)
    assert second.clock.started_ms == started and second.clock.elapsed_ms == 125_000
    assert snapshot.clock.elapsed_ms == 126_000
    assert snapshot.score == second.score == -10, "WordLink loses 5 points per whole minute"


async def test_a_slow_peer_gets_a_fresh_snapshot_and_then_is_closed(hub: Hub) -> None:
    owner, _ = _join(hub)
    slow, slow_out = _join(hub)
    await _say(hub, owner, ts.Hello())
    await _say(hub, owner, ts.NewGame(game="klondike", deal=5, options={"draw": 3}))
    game_id = next(iter(owner.watching))
    await _say(hub, slow, ts.Watch(game_id=game_id))
    slow_out.writable = False
    for _ in range(hub.settings.send_queue + 1):
        await _say(hub, owner, ts.Move(game_id=game_id, move="draw"))
    assert [slow.codec.decode_reply(frame).type for frame in slow.backlog] == ["snapshot"]
    fresh = slow.codec.decode_reply(slow.backlog[0])
    assert fresh.type == "snapshot" and fresh.seq == hub.settings.send_queue + 1
    for _ in range(hub.settings.send_queue):
        await _say(hub, owner, ts.Move(game_id=game_id, move="draw"))
    assert slow_out.closed_with is not None and slow_out.closed_with[0] == 1013
    assert hub.metrics.registry.get_sample_value("arena_send_queue_overflows_total") == 2


async def test_rate_limited_messages_are_dropped_unread(clock: FakeClock) -> None:
    hub = Hub(make_settings(rate_per_second=1, rate_burst=2, rate_strikes=2), MemoryStore(), clock, clock.seconds)
    peer, out = _join(hub)
    for _ in range(4):
        await _say(hub, peer, ts.Ping(id=7))
    assert [m.type for m in out.messages()] == ["pong", "pong", "error", "error"]
    refused = out.message(-1, tc.Error)
    assert refused.code == ErrorCode.RATE_LIMITED and refused.id is None
    await _say(hub, peer, ts.Ping())
    assert out.closed_with is not None and out.closed_with[0] == 1008


def test_a_token_bucket_refills_with_time() -> None:
    bucket = TokenBucket(2, 1.0, now=0.0)
    assert [bucket.take(0.0) for _ in range(3)] == [True, True, False]
    assert bucket.take(0.5) is False and bucket.take(1.0) is True
    assert bucket.take(100.0) and bucket.take(100.0) and not bucket.take(100.0), "capacity caps the refill"


def test_a_bucket_table_says_when_the_next_token_comes_and_forgets_only_full_buckets() -> None:
    table = BucketTable(2, 0.5, now=0.0)
    assert [table.take("a", 0.0), table.take("a", 0.0), table.take("a", 0.0)] == [None, None, 2.0]
    assert table.take("b", 0.0) is None, "each key has its own bucket"
    table.sweep(59.0)
    assert len(table._buckets) == 2, "no sweep within SWEEP_SECONDS of the last"
    assert table.take("a", 60.0) is None and table.take("a", 60.0) is None
    table.sweep(61.0)
    assert list(table._buckets) == ["a"], "b filled up again and is forgotten; a is not full"


def test_strikes_recover_so_an_occasional_burst_is_never_closed() -> None:
    limiter = RateLimiter(rate=1, burst=1, strikes=2, now=0.0)
    verdicts = [limiter.admit(second + offset) for second in range(0, 20, 2) for offset in (0.0, 0.01)]
    assert Verdict.CLOSE not in verdicts and Verdict.REJECT in verdicts


def test_replaying_a_log_gives_the_live_session() -> None:
    header = SessionHeader("g_x", "klondike", 8, engine.new_game("klondike", 8).options, "p_x", 0)
    live = Session(header, engine.new_game("klondike", 8))
    for at, (kind, text) in enumerate([("move", "draw"), ("hint", ""), ("undo", ""), ("redo", ""), ("move", "draw")]):
        logged, _ = live.perform(kind, text)
        live.commit(Action(kind, logged, at))
    replayed = Session.replay(header, live.log)
    assert replayed.view == live.view and replayed.counters == live.counters and replayed.seq == 5
    assert replayed.game.position == live.game.position


def test_a_live_view_never_carries_the_deal_number() -> None:
    header = SessionHeader("g_x", "klondike", 8, {}, "p_x", 0)
    assert "deal" not in Session(header, engine.new_game("klondike", 8)).view


async def test_a_stranger_refused_an_action_leaves_no_room_loaded(hub: Hub) -> None:
    owner, owner_out = _join(hub)
    await _say(hub, owner, ts.Hello())
    await _say(hub, owner, ts.NewGame(game="klondike", deal=5))
    game_id = owner_out.message(1, tc.GameStarted).game_id
    hub.disconnect(owner)
    assert game_id not in hub.rooms
    stranger, stranger_out = _join(hub)
    await _say(hub, stranger, ts.Hello())
    await _say(hub, stranger, ts.Resign(id=1, game_id=game_id))
    assert stranger_out.message(-1, tc.Error).code == ErrorCode.FORBIDDEN
    assert game_id not in hub.rooms
