"""Graceful shutdown: stop accepting, finish in-flight actions, close with 1001."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys

import pytest
from arena_servers import make_settings
from arena_stores import FaultyStore
from arena_wire import WireClient

from protocol import ErrorCode
from protocol import to_server as ts
from server.app import ArenaServer

GOING_AWAY = 1001


async def test_shutdown_finishes_the_action_in_flight_then_closes_with_1001() -> None:
    store = FaultyStore()
    server = ArenaServer(make_settings(), store=store)
    await server.start()
    url = server.url
    player = await WireClient.open(url)
    await player.hello()
    started, snapshot = await player.new_game(deal=3)
    latecomer = await WireClient.open(url)
    await latecomer.hello()

    store.delay = 0.3
    store.appending.clear()
    await player.send(ts.Move(id=99, game_id=started.game_id, move=snapshot.legal[0]))
    await store.appending.wait()
    stopping = asyncio.create_task(server.shutdown())
    while not server.hub.closing:
        await asyncio.sleep(0.001)

    refused = await latecomer.request(ts.NewGame, game="klondike")
    assert refused.code == ErrorCode.SHUTTING_DOWN
    finished = await player.wait_for(lambda m: m.id == 99)
    assert finished.type == "diff" and finished.seq == 1
    assert await player.closed() == GOING_AWAY
    assert await latecomer.closed() == GOING_AWAY
    await stopping
    _, log = await store.load_session(started.game_id)
    assert [entry.text for entry in log] == [finished.action.text]
    with pytest.raises(OSError):
        await WireClient.open(url)


async def test_sigterm_stops_the_command_gracefully() -> None:
    environment = {**os.environ, "ARENA_PING_INTERVAL": "none", "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )
    try:
        assert process.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(process.stdout.readline), 20)
        assert "listening on ws://" in line, line
        url = line.split()[-1]
        client = await WireClient.open(url)
        await client.hello()
        started, snapshot = await client.new_game(deal=3)
        moved = await client.request(ts.Move, game_id=started.game_id, move=snapshot.legal[0])
        assert moved.type == "diff"
        process.send_signal(signal.SIGTERM)
        assert await client.closed() == GOING_AWAY
        assert await asyncio.to_thread(process.wait, 20) == 0
        assert "stopped" in process.stdout.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stdout:
            process.stdout.close()
        if process.stderr:
            process.stderr.close()
