"""``kill -9`` the server mid-game, start it again on the same Redis,
reconnect with the token: the same game, and nothing acknowledged lost.

The server writes an action to the log before it replies, so every move a
player saw acknowledged is in Redis when the process dies, whatever it
was doing.  A move that was in flight may be in the log without its
reply having left; the replayed game then includes it (the store's
documented ambiguity), and the player's snapshot says so with its ``seq``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tests.integration.arena_processes import (
    ClientOpener,
    Mirror,
    ServerStarter,
    WireClient,
    stored_log,
    view_of,
)
from tests.integration.convergence_trials import MANY_CLIENTS, Convergence, kill_trial
from tests.redis_server import RedisServer
from tests.server.arena_wire import WAIT_SECONDS

from protocol import to_server as ts

pytestmark = pytest.mark.redis

DOWN_SECONDS = 0.5


async def resume(clients: ClientOpener, url: str, token: str | None, game_id: str) -> tuple[WireClient, Any, Any]:
    """Reconnect with the token; the client, its welcome and the game's snapshot."""
    again = await clients(url)
    welcome = await again.hello(token=token)
    snapshot = await again.wait_for(lambda m: m.type == "snapshot" and m.game_id == game_id)
    return again, welcome, snapshot


async def test_after_kill_9_and_a_restart_the_game_has_the_same_position_counters_and_clock(
    own_redis_server: RedisServer, arena_processes: ServerStarter, clients: ClientOpener
) -> None:
    server = await arena_processes(own_redis_server.url)
    player = await clients(server.url)
    await player.hello()
    started, snapshot = await player.new_game(deal=12)
    mirror = Mirror(snapshot)
    replies = await player.play_first_legal(started.game_id, snapshot.legal, 8)
    for reply in replies:
        mirror.apply(reply)
    await player.request(ts.Hint, game_id=started.game_id)
    hinted = await player.wait_for(lambda m: m.type == "diff" and m.action.kind == "hint")
    last = hinted

    server.kill()
    assert await player.closed() is not None
    await asyncio.sleep(DOWN_SECONDS)
    await server.start()
    resumed_by, welcome, resumed = await resume(clients, server.url, player.token, started.game_id)

    assert [game.game_id for game in welcome.games] == [started.game_id]
    assert resumed.seq == last.seq == 9
    assert view_of(resumed) == mirror.view
    assert resumed.counters == last.counters and resumed.counters["hints"] == 1
    assert resumed.status == "playing" and resumed.legal == last.legal
    assert resumed.clock.started_ms == replies[0].clock.started_ms
    # The clock kept running from the recorded start while the server was down.
    assert resumed.clock.elapsed_ms >= welcome.server_time - resumed.clock.started_ms
    assert resumed.clock.elapsed_ms >= last.clock.elapsed_ms + DOWN_SECONDS * 1000
    onward = await resumed_by.request(ts.Move, game_id=started.game_id, move=resumed.legal[0])
    assert onward.type == "diff" and onward.seq == 10


async def test_every_move_acknowledged_before_kill_9_is_in_the_replayed_game(
    own_redis_server: RedisServer, arena_processes: ServerStarter, clients: ClientOpener
) -> None:
    """Moves are sent back to back, without waiting for replies, and the
    server is killed while they are being processed."""
    server = await arena_processes(own_redis_server.url)
    player = await clients(server.url)
    await player.hello()
    started, snapshot = await player.new_game(deal=7, options={"draw": 3})
    requests = [ts.Move(id=player.next_id(), game_id=started.game_id, move="draw") for _ in range(500)]
    for request in requests:
        await player.send(request)
    await player.wait_for(lambda m: m.type == "diff" and m.seq == 20)
    server.kill()
    await player.closed()
    acknowledged = [m for m in player.received if m.type == "diff" and m.id is not None]
    assert 20 <= len(acknowledged) < len(requests), "the kill came while moves were in flight"

    log = await stored_log(own_redis_server.url, started.game_id)
    assert [reply.seq for reply in acknowledged] == list(range(1, len(acknowledged) + 1))
    assert len(log) >= len(acknowledged)
    for reply in acknowledged:
        entry = log[reply.seq - 1]
        assert (entry.kind, entry.text) == (reply.action.kind, reply.action.text)

    await server.start()
    _, _, resumed = await resume(clients, server.url, player.token, started.game_id)
    assert resumed.seq == len(log)
    assert resumed.counters["moves"] >= acknowledged[-1].counters["moves"]



TRIALS = 20
GAMES_PER_TRIAL = 4
IN_FLIGHT = 200
CONVERGENCE_BOUND_SECONDS = 2.0
"""The bound docs/architecture.md promises ("Scaling out"), reported here
beside the times measured; the assertion itself waits on events with the
wire client's hang bound, so a loaded machine cannot fail it
(``bench/convergence.py`` measures the times, beside another checkout's)."""


async def test_after_kill_9_every_watcher_and_returning_player_on_the_other_process_reaches_the_stored_log(
    own_redis_server: RedisServer, arena_processes: ServerStarter, clients: ClientOpener
) -> None:
    """Players on A, a spectator of each game on B, moves in flight, kill -9
    A: every spectator on B reaches the stored log with no later action, and
    each player's ``hello`` on B gets the stored state and plays on."""
    b = await arena_processes(own_redis_server.url, MANY_CLIENTS)
    a = await arena_processes(own_redis_server.url, MANY_CLIENTS)
    seen = Convergence()
    for trial in range(TRIALS):
        if trial:
            await a.start()
        await kill_trial(a, b, own_redis_server.url, clients, GAMES_PER_TRIAL, IN_FLIGHT, WAIT_SECONDS, seen)
    print(
        f"\n{seen.games} games: {len(seen.behind)} behind; spectators on B reached the stored log at most "
        f"{max(seen.waited):.3f} s after the kill (documented bound {CONVERGENCE_BOUND_SECONDS} s)"
    )
    assert seen.games == TRIALS * GAMES_PER_TRIAL
    assert (seen.behind, seen.stale_hellos, seen.refused_moves) == ([], 0, 0)
