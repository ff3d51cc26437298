"""Slow readers are closed: a client that stops reading while the server
pushes a busy game's diffs to it is closed by the write timeout (1013),
with keepalive pings off, and the player it watched goes on unhindered."""

from __future__ import annotations

import asyncio
import socket

from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WireClient

from protocol import to_server as ts
from server.transport.app import ArenaServer
from server.runtime.settings import Settings
from server.storage.memory import MemoryStore

SMALL_BUFFER = 4096
GENEROUS_SECONDS = 30.0
CLOSED_BY_SERVER = (1013, 1006)
"""The close frame waits behind frames the client never reads, so the
client sees 1013 if it reads again before the closing handshake times
out, 1006 (no close frame) after."""


def test_a_write_timeout_and_a_bounded_kernel_buffer_are_on_by_default() -> None:
    defaults = Settings()
    assert defaults.write_timeout_seconds is not None and defaults.kernel_send_buffer_bytes is not None


async def test_a_client_that_stops_reading_is_closed_while_the_game_goes_on() -> None:
    settings = make_settings(
        write_timeout_seconds=0.2,
        close_timeout=0.2,
        kernel_send_buffer_bytes=SMALL_BUFFER,
        write_buffer_bytes=SMALL_BUFFER,
        send_queue=100_000,
        send_overflows=1_000,
    )
    async with ArenaServer(settings, store=MemoryStore()) as server:
        player = await WireClient.open(server.url)
        await player.hello()
        started, _ = await player.new_game(deal=3)
        sleeper = await WireClient.open(server.url)
        assert (await sleeper.request(ts.Watch, game_id=started.game_id)).type == "snapshot"
        sleeper.connection.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL_BUFFER)
        sleeper.connection.transport.pause_reading()

        slow = max(server.hub.peers, key=lambda peer: peer.number)
        async with asyncio.timeout(GENEROUS_SECONDS):
            while not slow.closed:
                for _ in range(20):
                    assert (await player.request(ts.Move, game_id=started.game_id, move="draw")).type == "diff"
                await asyncio.sleep(0.05)  # the moves' pace: a busy game, not a flood
            while slow in server.hub.peers:  # the connection itself is gone, the client still not reading
                assert (await player.request(ts.Move, game_id=started.game_id, move="draw")).type == "diff"
                await asyncio.sleep(0.05)
        assert (await player.request(ts.Move, game_id=started.game_id, move="draw")).type == "diff"

        sleeper.connection.transport.resume_reading()
        assert await sleeper.closed() in CLOSED_BY_SERVER
        await player.close()
