"""Graceful shutdown: stop accepting, finish in-flight actions, answer every
request received, close with 1012 and a reason."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys

import pytest
from tests.server.arena_servers import make_settings
from tests.server.arena_stores import FaultyStore
from tests.server.arena_wire import WireClient
from tests.storage.lost_cancellation import LosesCancellation, closes_in_time
from websockets.exceptions import ConnectionClosed

from protocol import ErrorCode
from protocol import to_server as ts
from server.transport.app import ArenaServer
from server.transport.outlet import RESTART_REASON
from server.net.peer import Peer

SERVICE_RESTART = 1012


GRACE_SECONDS = 60.0
"""The shutdown tests' grace: what they check must happen within it (the
action in flight finishes, every request read is answered), and a loaded
machine can take longer than the tests' usual 2 s.  A shutdown ends as soon
as that is done, so a passing run never waits for it."""
START_SECONDS = 120.0
"""Bounds a hang of the ``arena serve`` child starting or stopping."""

async def test_shutdown_finishes_the_action_in_flight_then_closes_with_1012() -> None:
    store = FaultyStore()
    server = ArenaServer(make_settings(shutdown_grace_seconds=GRACE_SECONDS), store=store)
    await server.start()
    url = server.url
    player = await WireClient.open(url)
    await player.hello()
    started, snapshot = await player.new_game(deal=3)
    latecomer = await WireClient.open(url)
    await latecomer.hello()

    assert snapshot.legal, "the owner's snapshot lists the legal moves"
    store.delay = 0.3
    store.appending.clear()
    await player.send(ts.Move(id=99, game_id=started.game_id, move=snapshot.legal[0]))
    await store.appending.wait()
    stopping = asyncio.create_task(server.shutdown())
    while not server.hub.closing:
        await asyncio.sleep(0.001)

    refused = await latecomer.request(ts.NewGame, game="klondike")
    assert refused.type == "error" and refused.code == ErrorCode.SHUTTING_DOWN
    finished = await player.wait_for(lambda m: m.id == 99)
    assert finished.type == "diff" and finished.seq == 1
    assert await player.closed() == SERVICE_RESTART
    assert await latecomer.closed() == SERVICE_RESTART
    await stopping
    stored = await store.load_session(started.game_id)
    assert stored is not None and [entry.text for entry in stored[1]] == [finished.action.text]
    with pytest.raises(OSError):
        await WireClient.open(url)


async def test_sigterm_stops_the_command_gracefully() -> None:
    environment = {**os.environ, "ARENA_PING_INTERVAL": "none", "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--memory", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )
    try:
        assert process.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(process.stdout.readline), START_SECONDS)
        assert "listening on ws://" in line, line
        url = line.split()[-1]
        client = await WireClient.open(url)
        await client.hello()
        started, snapshot = await client.new_game(deal=3)
        assert snapshot.legal, "the owner's snapshot lists the legal moves"
        moved = await client.request(ts.Move, game_id=started.game_id, move=snapshot.legal[0])
        assert moved.type == "diff"
        process.send_signal(signal.SIGTERM)
        assert await client.closed() == SERVICE_RESTART
        assert client.connection.close_reason == RESTART_REASON
        assert await asyncio.to_thread(process.wait, START_SECONDS) == 0
        assert "stopped" in process.stdout.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stdout:
            process.stdout.close()
        if process.stderr:
            process.stderr.close()


async def test_every_request_received_before_the_close_gets_its_reply() -> None:
    server = ArenaServer(make_settings(shutdown_grace_seconds=GRACE_SECONDS), store=FaultyStore())
    await server.start()
    handled = 0
    handle = server.hub.handle

    async def counting(peer: Peer, frame: bytes | str) -> None:
        nonlocal handled
        handled += 1
        await handle(peer, frame)

    server.hub.handle = counting  # type: ignore[method-assign]
    client = await WireClient.open(server.url)
    sent = 0

    async def keep_asking() -> None:
        nonlocal sent
        with contextlib.suppress(ConnectionClosed):
            while True:
                await client.send(ts.Ping(id=sent + 1))
                sent += 1
                if sent % 20 == 0:
                    await asyncio.sleep(0)

    asking = asyncio.create_task(keep_asking())
    await client.wait_for(lambda m: m.id == 50)
    await server.shutdown()
    await asking
    assert await client.closed() == SERVICE_RESTART
    assert client.connection.close_reason == RESTART_REASON
    answered = [message.id for message in client.received]
    assert answered == list(range(1, len(answered) + 1)), "replies in order, none missing"
    assert len(answered) == handled, "every request the server read has its reply"


async def test_a_request_that_never_ends_does_not_hold_the_shutdown_past_its_grace() -> None:
    """websockets waits for every connection's handler to return; one stuck
    in a request (here, one that waits for ever) is cancelled once the grace
    is over, and the connection still closes with 1012."""
    server = ArenaServer(make_settings(shutdown_grace_seconds=0.2), store=FaultyStore())
    await server.start()
    handle = server.hub.handle
    stuck = asyncio.Event()

    async def never_ending_ping(peer: Peer, frame: bytes | str) -> None:
        if peer.player is not None:
            stuck.set()
            await asyncio.Event().wait()
        await handle(peer, frame)

    server.hub.handle = never_ending_ping  # type: ignore[method-assign]
    client = await WireClient.open(server.url)
    await client.hello()
    await client.send(ts.Ping(id=7))
    await stuck.wait()
    await asyncio.wait_for(server.shutdown(), START_SECONDS)
    assert await client.closed() == SERVICE_RESTART


async def test_the_background_loops_end_even_when_their_store_calls_lose_the_cancellation() -> None:
    """The daily keeper, the store-epoch watcher and the presence lease
    each wait in a store call as the server shuts down, and each call
    answers as if it had not been cancelled: the shutdown must end them
    all the same."""
    store = LosesCancellation("get_setting")
    server = ArenaServer(make_settings(prepare_dailies=True, shutdown_grace_seconds=GRACE_SECONDS), store=store)
    await server.start()
    store.hung.add("renew_presence_lease")
    await store.waiting("get_setting", lambda task: task == "store epoch")
    await store.waiting("get_setting", lambda task: task != "store epoch")
    await store.waiting("renew_presence_lease", lambda task: task == "presence lease")
    shutting_down = asyncio.create_task(server.shutdown())
    loops = {"daily-keeper", "store epoch", "presence lease"}
    assert await closes_in_time(shutting_down, loops, store), "the shutdown waited on a loop that went on"
