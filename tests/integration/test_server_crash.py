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
from tests.redis_server import RedisServer

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
    legal = snapshot.legal
    replies = []
    for _ in range(8):
        assert legal, "the owner is told the legal moves"
        reply = await player.request(ts.Move, game_id=started.game_id, move=legal[0])
        assert reply.type == "diff", reply
        mirror.apply(reply)
        replies.append(reply)
        legal = reply.legal
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
MANY_CLIENTS = {"ARENA_CONNECTION_RATE_PER_SECOND": "1000", "ARENA_CONNECTION_BURST": "1000",
                "ARENA_IDENTITIES_PER_HOUR": "1000", "ARENA_CONNECTIONS_PER_ADDRESS": "1000"}
"""Every client of the test comes from one loopback address."""
CONVERGENCE_BOUND_SECONDS = 2.0
"""The bound docs/architecture.md promises ("Scaling out"), reported here
beside the times measured; the assertion itself waits on events with the
wire client's hang bound, so a loaded machine cannot fail it."""


async def test_after_kill_9_every_watcher_and_returning_player_on_the_other_process_reaches_the_stored_log(
    own_redis_server: RedisServer, arena_processes: ServerStarter, clients: ClientOpener
) -> None:
    """Players on A, a spectator of each game on B, moves in flight, kill -9
    A: every spectator on B reaches the stored log with no later action, and
    each player's ``hello`` on B gets the stored state and plays on."""
    b = await arena_processes(own_redis_server.url, MANY_CLIENTS)
    a = await arena_processes(own_redis_server.url, MANY_CLIENTS)
    behind: list[tuple[int, str, int]] = []
    waited: list[float] = []
    loop = asyncio.get_running_loop()
    for trial in range(TRIALS):
        if trial:
            await a.start()
        games: list[tuple[WireClient, WireClient, str]] = []
        for _ in range(GAMES_PER_TRIAL):
            player = await clients(a.url)
            await player.hello()
            started, _ = await player.new_game(deal=7, options={"draw": 3})
            spectator = await clients(b.url)
            watched = await spectator.request(ts.Watch, game_id=started.game_id)
            assert watched.type == "snapshot" and watched.seq == 0
            games.append((player, spectator, started.game_id))
        for player, _, game_id in games:
            for _ in range(IN_FLIGHT):
                await player.send(ts.Move(id=player.next_id(), game_id=game_id, move="draw"))
        await games[-1][0].wait_for(lambda m: m.type == "diff" and m.seq == 10)
        a.kill()
        killed = loop.time()
        for player, spectator, game_id in games:
            stored = len(await stored_log(own_redis_server.url, game_id))
            try:
                await spectator.wait_for(
                    lambda m: m.type in ("diff", "snapshot") and m.game_id == game_id and m.seq == stored
                )
            except TimeoutError:
                behind.append((trial, game_id, stored))
                continue
            waited.append(loop.time() - killed)
            returning, _, resumed = await resume(clients, b.url, player.token, game_id)
            assert resumed.seq == stored, "hello gets the stored state"
            onward = await returning.request(ts.Move, game_id=game_id, move=resumed.legal[0])
            assert onward.type == "diff" and onward.seq == stored + 1, onward
    print(
        f"\n{TRIALS * GAMES_PER_TRIAL} games: {len(behind)} behind; spectators on B reached the stored log "
        f"at most {max(waited):.3f} s after the kill (documented bound {CONVERGENCE_BOUND_SECONDS} s)"
    )
    assert behind == []
