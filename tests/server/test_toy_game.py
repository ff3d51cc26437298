"""A fifth game is its module and its registration: the toy game
(``tests.server.toy_game``), registered here in the tests only, is offered
in the catalogue, played over the wire, watched, raced, and its own
counter summed in its players' records on every back end, with nothing in
``server/`` or ``protocol/`` knowing it.

The race is run over real sockets (``toy_server``), so a game the server
has never heard of crosses the adapter too: a racer plays it there and a
spectator opens the racer's board.  The others check rules the core
decides (what the catalogue offers, what a watcher is shown, what a record
sums), so they run in memory (``toy_arena``), where the memory harness is
checked against the socket path (``tests/server/test_memory_transport.py``);
the records' Redis back ends are real Redis servers all the same."""

from __future__ import annotations

import contextlib
from typing import Any, AsyncIterator

import pytest
from tests.races.arena_races import player
from tests.server.arena_clock import FakeClock, ManualScheduler
from tests.server.arena_memory import MemoryArena
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import Mirror, RecordingClient, WireClient
from tests.server.toy_game import COLUMNS, SPADES, TOY, winning_deal
from tests.storage_backends import BACKENDS, open_backend

from engine.games import registered
from protocol import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL
from protocol import to_server as ts
from server.transport.app import ArenaServer
from server.storage import Store
from server.storage.memory import MemoryStore

COUNTDOWN_MS = 1_000


@contextlib.asynccontextmanager
async def toy_server() -> AsyncIterator[tuple[ArenaServer, ManualScheduler]]:
    """A real server on a stepped clock (race countdowns pass when the test
    says), with the toy game registered for its whole life."""
    clock = FakeClock()
    scheduler = ManualScheduler(clock)
    settings = make_settings(race_countdown_seconds=COUNTDOWN_MS / 1000, race_spectator_delay_seconds=0)
    with registered(TOY):
        async with ArenaServer(settings, store=MemoryStore(), clock=clock, scheduler=scheduler) as server:
            yield server, scheduler


@contextlib.asynccontextmanager
async def toy_arena(store: Store | None = None) -> AsyncIterator[MemoryArena]:
    """The hub in memory with the toy game registered for its whole life;
    on a memory store unless given one."""
    with registered(TOY):
        async with MemoryArena(make_settings(), store) as arena:
            yield arena


@pytest.fixture(params=BACKENDS)
async def store(request: pytest.FixtureRequest, redis_namespace: str) -> AsyncIterator[Store]:
    """The memory store, a real Redis and a real Redis Cluster, in turn."""
    backend = open_backend(request.param, request, redis_namespace)
    yield backend.store
    await backend.close()


async def play(client: RecordingClient, game_id: str, line: list[str]) -> Any:
    """Play ``line``; the last reply (the winning move's diff)."""
    reply: Any = None
    for move in line:
        reply = await client.request(ts.Move, game_id=game_id, move=move)
        assert reply.type == "diff", reply
    return reply


async def test_the_toy_game_is_offered_played_and_watched_over_both_codecs() -> None:
    deal, line = winning_deal()
    async with toy_arena() as arena:
        ann = await player(arena, "ann", JSON_SUBPROTOCOL)
        catalogue = await ann.request(ts.Catalogue)
        assert catalogue.type == "catalogue"
        (toy,) = [entry for entry in catalogue.games if entry.game == "one-suit"]
        assert (toy.title, toy.cards, toy.last_deal, toy.deal_kinds) == ("One Suit", 13, 1_000, ["number"])
        assert [(c.name, c.label, c.out_of) for c in toy.counters] == [("left", "Left to send home", None)]

        started, snapshot = await ann.new_game("one-suit", deal=deal)
        assert snapshot.view.game == "one-suit" and set(snapshot.view.piles) == {*COLUMNS, "f"}
        spectator = await arena.client(MSGPACK_SUBPROTOCOL)
        watched = await spectator.request(ts.Watch, game_id=started.game_id)
        assert watched.type == "snapshot" and watched.view == snapshot.view
        mirror = Mirror(watched)

        refused = await ann.request(ts.Move, game_id=started.game_id, move="f-t1")
        assert refused.type == "error" and refused.code == "illegal_move" and refused.reason == "not_legal"
        last = await play(ann, started.game_id, line)
        over = await spectator.wait_for(lambda m: m.type == "game_over" and m.game_id == started.game_id)
        assert over.result == "won" and over.counters["left"] == 0 and over.counters["foundation"] == 13
        for diff in [m for m in spectator.received if m.type == "diff" and m.game_id == started.game_id]:
            mirror.apply(diff)
        assert mirror.seq == last.seq == len(line) and mirror.view["piles"]["f"]["up"][-1] == "KS"


async def test_the_toy_game_is_raced_with_its_counters_in_the_racers_rows() -> None:
    deal, line = winning_deal()
    async with toy_server() as (server, scheduler):
        ann, bob = await player(server.url, "ann"), await player(server.url, "bob", JSON_SUBPROTOCOL)
        created = await ann.request(ts.CreateRace, game="one-suit", deal=deal)
        assert created.type == "race" and created.race.title == "One Suit", created
        await bob.request(ts.JoinRace, code=created.race.code)
        race_id = created.race.race_id
        sue = await WireClient.open(server.url, MSGPACK_SUBPROTOCOL)
        followed = await sue.request(ts.WatchRace, race_id=race_id)
        assert followed.type == "race" and [racer.counters for racer in followed.race.racers] == [{}, {}]

        started = await ann.request(ts.StartRace, race_id=race_id)
        assert started.type == "race", started
        scheduler.advance(COUNTDOWN_MS)
        games = {racer.name: str(racer.game_id) for racer in started.race.racers}
        for client, name in ((ann, "ann"), (bob, "bob")):
            await client.wait_for(lambda m, g=games[name]: m.type == "snapshot" and m.game_id == g)
        board = await sue.request(ts.Watch, game_id=games["ann"])
        assert board.type == "snapshot", "a typed deal's race is unranked: its boards may be watched"

        await play(ann, games["ann"], line[:1])
        first = await sue.wait_for(lambda m: m.type == "race_progress" and m.racer.name == "ann" and m.racer.moves == 1)
        home = first.racer.foundation
        assert first.racer.counters == {"left": 13 - home}
        await play(ann, games["ann"], line[1:])
        resigned = await bob.request(ts.Resign, game_id=games["bob"])
        assert resigned.type == "diff" and resigned.status == "resigned", resigned
        finished = await sue.wait_for(lambda m: m.type == "race" and m.event == "finished")
        rows = {racer.name: racer for racer in finished.race.racers}
        assert rows["ann"].state == "won" and rows["ann"].counters == {"left": 0} and rows["ann"].foundation == 13
        assert rows["bob"].state == "resigned" and rows["bob"].counters == {"left": 13}
        assert [(row.name, row.place) for row in finished.race.results] == [("ann", 1), ("bob", None)]
        for client in (ann, bob, sue):
            await client.close()


async def test_the_toy_games_own_counter_is_summed_in_its_players_record(store: Store) -> None:
    """The toy records ``left`` (cards its games left out): a won game, one
    resigned with one card home and one resigned at once add 0, 12 and 13,
    read back through ``records``."""
    deal, line = winning_deal()
    first_home = next(index for index, move in enumerate(line) if move.endswith("-f"))
    async with toy_arena(store) as arena:
        ann = await player(arena, "ann")
        won, _ = await ann.new_game("one-suit", deal=deal)
        await play(ann, won.game_id, line)
        one_home, _ = await ann.new_game("one-suit", deal=deal)
        await play(ann, one_home.game_id, line[: first_home + 1])
        await ann.request(ts.Resign, game_id=one_home.game_id)
        at_once, _ = await ann.new_game("one-suit", deal=deal)
        await ann.request(ts.Resign, game_id=at_once.game_id)

        reply = await ann.request(ts.Records)
        assert reply.type == "records", reply
        (record,) = reply.records
        assert (record.game, record.title, record.games, record.wins) == ("one-suit", "One Suit", 3, 1)
        assert record.counters == {"left": 0 + (len(SPADES) - 1) + len(SPADES)}
        await ann.close()
