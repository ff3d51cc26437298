"""Two ``arena serve`` processes on one Redis serve the same players.

A spectator connected to process B sees the moves made through process
A, in order, as the very diffs the player got; a player who reconnects
through the other process finds its game there and plays on, and the
spectators of the first process see those moves in turn.  Everything
crosses processes through Redis only (the log, and pub/sub for the
relay), as in production.  Each test runs on one Redis and again on a
Redis Cluster of three masters, where the relay is sharded pub/sub on the
master of the game's slot.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.integration.arena_processes import (
    ClientOpener,
    Mirror,
    ServerProcess,
    ServerStarter,
    WireClient,
    view_of,
)
from tests.server.arena_positions import REPAIRS, broken_deck_two_halves_left
from tests.redis_server import RedisClusterServers, RedisServer

from protocol import to_server as ts

pytestmark = pytest.mark.redis

MOVES = 12


@pytest.fixture(params=["redis", "cluster"])
def shared_redis_url(request: pytest.FixtureRequest) -> str:
    """The store both processes share, of this test alone: one Redis, or a
    Redis Cluster (skipped, with the reason, without redis-server and
    redis-cli)."""
    shared: RedisServer | RedisClusterServers = request.getfixturevalue(
        "own_redis_cluster" if request.param == "cluster" else "own_redis_server"
    )
    return shared.url


@pytest.fixture
async def a_and_b(shared_redis_url: str, arena_processes: ServerStarter) -> tuple[ServerProcess, ServerProcess]:
    """Two server processes on one store."""
    return await arena_processes(shared_redis_url), await arena_processes(shared_redis_url)


async def diffs_until(watcher: WireClient, game_id: str, last_seq: int) -> list[Any]:
    """The diffs of ``game_id`` numbered up to ``last_seq``, in arrival order."""
    await watcher.wait_for(lambda m: m.type == "diff" and m.game_id == game_id and m.seq == last_seq)
    return [m for m in watcher.received if m.type == "diff" and m.game_id == game_id]


def shared_part(diff: Any) -> dict[str, Any]:
    """A diff without the request id, which only the actor's copy carries."""
    return dict(diff.model_dump(exclude={"id"}))


async def test_a_spectator_on_process_b_sees_every_move_made_through_process_a(
    a_and_b: tuple[ServerProcess, ServerProcess], clients: ClientOpener
) -> None:
    a, b = a_and_b
    player = await clients(a.url)
    await player.hello()
    started, snapshot = await player.new_game(deal=12)
    spectator = await clients(b.url, "arena.v1.json")
    watched = await spectator.request(ts.Watch, game_id=started.game_id)
    assert view_of(watched) == view_of(snapshot)
    spectators_copy, players_copy = Mirror(watched), Mirror(snapshot)

    replies = await player.play_first_legal(started.game_id, snapshot.legal, MOVES)
    seen = await diffs_until(spectator, started.game_id, MOVES)

    assert [diff.seq for diff in seen] == list(range(1, MOVES + 1)), "in order, none missing, none twice"
    assert [shared_part(diff) for diff in seen] == [shared_part(reply) for reply in replies]
    for diff, reply in zip(seen, replies):
        spectators_copy.apply(diff)
        players_copy.apply(reply)
    assert spectators_copy.view == players_copy.view
    resynced = await spectator.request(ts.Resync, game_id=started.game_id)
    assert resynced.type == "snapshot" and resynced.seq == MOVES and view_of(resynced) == players_copy.view


async def test_a_player_resumes_its_game_through_the_other_process(
    a_and_b: tuple[ServerProcess, ServerProcess], clients: ClientOpener
) -> None:
    a, b = a_and_b
    player = await clients(a.url)
    await player.hello(name="Ada")
    started, snapshot = await player.new_game(deal=12)
    mirror = Mirror(snapshot)
    for reply in await player.play_first_legal(started.game_id, snapshot.legal, MOVES // 2):
        mirror.apply(reply)
    spectator_on_a = await clients(a.url)
    await spectator_on_a.request(ts.Watch, game_id=started.game_id)
    await player.close()

    again = await clients(b.url)
    welcome = await again.hello(token=player.token)
    assert welcome.player_id == player.player_id and welcome.name == "Ada"
    assert [game.game_id for game in welcome.games] == [started.game_id]
    resumed = await again.wait_for(lambda m: m.type == "snapshot" and m.game_id == started.game_id)
    assert resumed.seq == MOVES // 2 and view_of(resumed) == mirror.view

    onward = await again.play_first_legal(started.game_id, resumed.legal, MOVES // 2)
    assert [reply.seq for reply in onward] == list(range(MOVES // 2 + 1, MOVES + 1))
    seen_on_a = await diffs_until(spectator_on_a, started.game_id, MOVES)
    assert [shared_part(diff) for diff in seen_on_a] == [shared_part(reply) for reply in onward]


async def test_a_spectator_on_process_b_is_offered_the_finish_and_sees_it_played(
    a_and_b: tuple[ServerProcess, ServerProcess], clients: ClientOpener
) -> None:
    """Each process searches the positions it relays, so a watcher anywhere
    hears the offer; the finishing moves cross processes as ordinary moves."""
    a, b = a_and_b
    player = await clients(a.url)
    await player.hello()
    started, _ = await player.new_game("broken-deck", position=broken_deck_two_halves_left())
    spectator = await clients(b.url, "arena.v1.json")
    await spectator.request(ts.Watch, game_id=started.game_id)
    for move in REPAIRS:
        await player.request(ts.Move, game_id=started.game_id, move=move)
    offered = await spectator.wait_for(lambda m: m.type == "finish_offer")
    assert offered.seq == len(REPAIRS)
    finished = await player.request(ts.Finish, game_id=started.game_id)
    assert finished.type == "finish" and len(finished.moves) == offered.moves
    over = await spectator.wait_for(lambda m: m.type == "game_over")
    assert over.result == "won" and over.moves == len(REPAIRS) + offered.moves
