"""What keeps the garbage collector's pauses short (server.runtime.collector,
server.storage.memory_sessions, server.model.records.ActionLog, the
engine's undo history): the games a server holds, in its store, in its
rooms' logs and in their engines, are data the collector does not track,
and ``arena serve`` freezes its start-up; and a connection that closes,
with the game it played, is freed at once, so what a full collection
walks holds no garbage for it to find."""

from __future__ import annotations

import asyncio
import gc
import sys
import weakref
from collections import Counter

import pytest

from tests.server.arena_servers import ClientFactory, make_settings
from tests.server.arena_wire import WireClient

from engine import new_game
from protocol import to_server as ts
from server.model.records import Action, ActionLog
from server.model.session import ActionKind
from server.runtime.collector import LEAST_LOAD, SERVER_THRESHOLDS, HeapWatch, tune_collector
from server.storage.memory import MemoryStore
from server.storage.memory_sessions import CHUNK, EMPTY_LOG, PackedLog, appended, log_length, unpack_log
from server.transport.app import ArenaServer


async def test_a_game_played_through_a_server_is_held_as_data_the_collector_does_not_track(
    server: ArenaServer, connect: ClientFactory
) -> None:
    player = await connect()
    await player.hello(name="ann")
    started, _ = await player.new_game(deal=1, options={"draw": 1})
    for kind in (ts.Move, ts.Move, ts.Undo, ts.Redo):
        fields = {"move": "draw"} if kind is ts.Move else {}
        reply = await player.request(kind, game_id=started.game_id, **fields)
        assert reply.type == "diff", reply
    store = server.store
    assert isinstance(store, MemoryStore)

    gc.collect()

    held = (store._headers[started.game_id], store._logs[started.game_id])
    assert not any(gc.is_tracked(value) for value in held), held
    room_log = server.hub.rooms[started.game_id].session.log
    assert [entry.kind for entry in room_log] == ["move", "move", "undo", "redo"]
    assert not any(gc.is_tracked(entry) for entry in room_log._entries)
    loaded = await store.load_session(started.game_id)
    assert loaded is not None
    header, log = loaded
    assert (header.game_id, header.options) == (started.game_id, started.options)
    assert [(entry.kind, entry.text) for entry in log] == [("move", "draw"), ("move", "draw"), ("undo", ""), ("redo", "")]


def test_a_log_is_untracked_by_the_first_young_collection_that_meets_it() -> None:
    """A log whose chunks were tuples survived its first young collection
    tracked (its new chunk was found reachable after it) and made the
    middle collections walk every game appended to; a log of bytes chunks
    does not, and reads back every entry, whatever its text."""
    texts = ["t1-f", "draw", "", 'a "quoted",\nline', "\u2028é"]
    actions = [Action("move", texts[number % len(texts)], 1_000 + number) for number in range(2 * CHUNK + 5)]
    log: PackedLog = EMPTY_LOG
    for count, action in enumerate(actions, start=1):
        log = appended(log, action)
        gc.collect(0)
        assert not gc.is_tracked(log), count
        assert log_length(log) == count
    assert unpack_log(log) == actions
    assert all(type(entry.kind) is str and type(entry.at_ms) is int for entry in unpack_log(log))


def test_each_actions_position_and_snapshot_are_untracked_by_the_first_young_collection_that_meets_them() -> None:
    """Positions whose new piles were found after their tuple of piles
    stayed tracked, and so did the snapshots made of them, until a middle
    collection: with a thousand players, half of what each one walked."""
    game = new_game("klondike", 1, draw=1)
    # The deal's own tuple of piles, like any tuple made before what it
    # holds was untracked, takes a second collection.
    for _ in range(2):
        gc.collect()
    for count in range(1, 9):
        game.play("draw")
        gc.collect(0)
        assert not gc.is_tracked(game.position.piles), count
        assert not any(gc.is_tracked(snapshot) for snapshot in game._history), count


async def _play_watch_and_leave(players: int) -> Counter[str]:
    """The objects left in reference cycles once ``players`` connections
    played a few moves each, one watching another's game, and closed."""
    async with ArenaServer(make_settings(), store=MemoryStore()) as server:
        clients = [await WireClient.open(server.url) for _ in range(players)]
        games = []
        for number, client in enumerate(clients):
            await client.hello(name=f"leaver{number}")
            started, _ = await client.new_game(deal=number + 1, options={"draw": 1})
            for _ in range(3):
                assert (await client.request(ts.Move, game_id=started.game_id, move="draw")).type == "diff"
            games.append(started.game_id)
        assert (await clients[0].request(ts.Watch, game_id=games[1])).type == "snapshot"
        handlers = list(server._handlers)
        connections = [outlet.connection for outlet in server._outlets]
        gc.collect()
        gc.freeze()
        try:
            for client in clients:
                await client.close()
            await asyncio.gather(*handlers, *(connection.connection_lost_waiter for connection in connections))
            assert not server.hub.rooms and not server.hub.peers
            del clients, client, handlers, connections
        finally:
            gc.unfreeze()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            return Counter(f"{type(thing).__module__}.{type(thing).__qualname__}" for thing in gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()


def test_closed_connections_and_their_games_leave_nothing_in_reference_cycles() -> None:
    """What a full collection walks is mostly connections (about 150 objects
    each); it can be rare (``SERVER_THRESHOLDS``) because what the server
    lets go of is freed by reference counting.  Before the peer let go of
    its outlet and the connection of websockets' subprotocol chooser, every
    closed connection waited in two cycles for a full collection.  Run on
    uvloop, as ``arena serve`` is: asyncio's own socket transport holds
    itself in a cycle (its read callback) until it is collected."""
    uvloop = pytest.importorskip("uvloop")
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        left = runner.run(_play_watch_and_leave(6))
    assert not left, left.most_common(12)


async def test_a_server_collector_freezes_what_start_up_made_sets_the_server_thresholds_and_watches_the_heap() -> None:
    defaults = gc.get_threshold()
    watching = None
    try:
        watching = tune_collector(make_settings(gc_tuning=True))
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == SERVER_THRESHOLDS
        assert watching is not None and not watching.done()
    finally:
        if watching is not None:
            watching.cancel()
        gc.unfreeze()
        gc.set_threshold(*defaults)


def test_the_interpreters_collector_is_left_alone_when_the_tuning_is_off() -> None:
    defaults = gc.get_threshold()
    assert tune_collector(make_settings(gc_tuning=False)) is None
    assert (gc.get_freeze_count(), gc.get_threshold()) == (0, defaults)


def test_a_full_collection_comes_once_the_heap_has_doubled_since_the_last_or_its_smallest_since() -> None:
    sizes = iter([100, 150, 199, 90, 179, 180, 120, 200, 239, 240, 130])
    collections: list[int] = []

    def collect() -> int:
        collections.append(1)
        return 0

    watch = HeapWatch(blocks=lambda: next(sizes), collect=collect)
    assert [watch.check() for _ in range(3)] == [False, False, False]
    assert watch.floor == 90 / LEAST_LOAD, "the heap shrank: its smallest size is the new floor"
    assert (watch.check(), watch.check(), collections) == (False, True, [1])
    assert watch.floor == 120 / LEAST_LOAD, "the size right after the collection"
    assert [watch.check() for _ in range(3)] == [False, False, True] and len(collections) == 2
    assert watch.floor == 130 / LEAST_LOAD


class Heap:
    """A heap's size and load as a test sets them, watched by a
    ``HeapWatch`` whose full collections note the size they met."""

    def __init__(self) -> None:
        self.blocks = 400_000
        self.load = 0
        self.collections: list[int] = []
        self.watch = HeapWatch(blocks=lambda: self.blocks, collect=self._collect, load=lambda: self.load)

    def _collect(self) -> int:
        self.collections.append(self.blocks)
        return 0

    def arrive(self, players: int) -> bool:
        """``players`` connected, 300 blocks each; whether a collection came."""
        self.load, self.blocks = players, 400_000 + 300 * players
        return self.watch.check()

    def grow(self) -> None:
        """50,000 blocks of garbage more, and a check."""
        self.blocks += 50_000
        self.watch.check()


def test_a_heap_that_grows_with_the_load_starts_no_full_collection_and_garbage_at_a_steady_load_does() -> None:
    """Players arriving grow the heap with the load: a full collection then
    walks every connection and finds nothing, so none starts.  The same
    growth at a steady load is garbage, and starts one."""
    heap = Heap()
    for players in range(100, 10_001, 100):
        assert not heap.arrive(players), f"{players} players, {heap.blocks} blocks: the heap grew with the load"
    steady = heap.blocks
    assert heap.watch.floor == steady / heap.load
    while heap.blocks < 2 * steady:
        heap.grow()
    assert heap.collections == [heap.blocks], "one collection, once the heap is twice what the load needs"


def test_players_leaving_start_no_full_collection_and_garbage_after_they_left_does() -> None:
    """Players leave at once and their games stay in the store: divided by
    the load left, the heap would look many times what the load needs.
    It is divided by the highest load since the last collection, so only
    garbage that doubles the heap starts one."""
    heap = Heap()
    for players in range(100, 10_001, 100):
        heap.arrive(players)
    for players in range(9_900, -1, -100):
        heap.load, heap.blocks = players, 400_000 + 300 * players + 100 * (10_000 - players)
        assert not heap.watch.check(), f"{players} players left, {heap.blocks} blocks: their games stay in the store"
    left = heap.blocks
    while not heap.collections:
        heap.grow()
    assert heap.collections == [2 * left], "one collection, once garbage has doubled the heap they left"
    assert heap.watch.floor == heap.blocks / LEAST_LOAD, "after it, the load of the moment counts again"


def test_below_the_least_load_the_heap_watch_counts_the_least_load() -> None:
    """A handful of connections coming and going would halve or double the
    heap per connection: below ``LEAST_LOAD`` the whole heap counts, as
    without a load."""
    collections: list[int] = []

    def collect() -> int:
        collections.append(1)
        return 0

    load = [1]
    watch = HeapWatch(blocks=lambda: 1_000, collect=collect, load=lambda: load[0])
    for connections in (3, 1, 50, 0, LEAST_LOAD):
        load[0] = connections
        assert not watch.check()
    assert watch.floor == 1_000 / LEAST_LOAD and not collections


class _Cycle:
    def __init__(self) -> None:
        self.me = self
        self.payload = [[number] for number in range(20)]


def test_cycles_that_outlived_a_young_collection_wait_for_the_heap_watch_and_it_frees_them() -> None:
    """With only young collections, a cycle that was still reachable when
    one ran is promoted out of their reach: the heap watch's full
    collection, once the heap has grown enough, is what frees it."""
    defaults = gc.get_threshold()
    gc.collect()
    try:
        gc.set_threshold(*SERVER_THRESHOLDS)
        watch = HeapWatch(growth=1.05)
        assert not watch.check()
        cycles: list[_Cycle] = []
        while sys.getallocatedblocks() < watch.floor * LEAST_LOAD * 1.1:
            cycles.extend(_Cycle() for _ in range(1_000))
        canary = weakref.ref(cycles[0])
        gc.collect(0)
        del cycles
        for _ in range(3):
            gc.collect(0)
        assert canary() is not None, "young collections do not reach a promoted cycle"
        assert watch.check()
        assert canary() is None
        assert not watch.check()
    finally:
        gc.set_threshold(*defaults)


def test_a_session_log_reads_back_what_was_appended_as_actions() -> None:
    actions = [Action(ActionKind.MOVE, "draw", 5), Action("undo", "", 7), Action(ActionKind.HINT, "t1-t2", 9)]
    log = ActionLog(actions[:1])
    for action in actions[1:]:
        log.append(action)
    assert len(log) == 3 and list(log) == actions and log == actions
    assert log[-1] == actions[-1] and log[1:] == actions[1:] and log[5:] == []
    assert all(type(entry) is Action and type(entry.kind) is str for entry in log)
    assert log[0].kind == ActionKind.MOVE and log[2].at_ms == 9
    assert ActionLog(actions) == log and ActionLog(actions[:2]) != log
