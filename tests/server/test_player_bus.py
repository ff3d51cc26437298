"""The player bus: a message for a player reaches each of its connections,
on this process and on every other one sharing the store, and nobody else.

Two hubs on one memory store stand for two processes (their pub/sub is the
store's); the same bus runs over Redis in the multi-process tests.
"""

from __future__ import annotations

import pytest
from tests.server.arena_memory import MemoryArena
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WAIT_SECONDS

from protocol import to_client as tc
from protocol import to_server as ts
from server.storage.memory import MemoryStore


async def test_a_message_reaches_every_connection_of_its_player_on_every_process() -> None:
    store = MemoryStore()
    async with MemoryArena(make_settings(), store=store) as here, MemoryArena(make_settings(), store=store) as there:
        first = await here.client()
        welcome = await first.request(ts.Hello)
        assert isinstance(welcome, tc.Welcome)
        second = await there.client()
        assert isinstance(await second.request(ts.Hello, token=welcome.token), tc.Welcome)
        stranger = await there.client()
        assert isinstance(await stranger.request(ts.Hello), tc.Welcome)
        await here.hub.bus.tell([welcome.player_id], tc.Pong(server_time=123))
        for connection in (first, second):
            told = await connection.wait_for(lambda m: m.type == "pong" and m.server_time == 123, WAIT_SECONDS)
            assert told.id is None
        await stranger.request(ts.Ping)
        assert not [m for m in stranger.received if m.type == "pong" and m.server_time == 123]


async def test_a_closed_connection_is_no_longer_its_players() -> None:
    async with MemoryArena(make_settings()) as arena:
        client = await arena.client()
        welcome = await client.request(ts.Hello)
        assert isinstance(welcome, tc.Welcome)
        assert arena.hub.bus.players_here() == [welcome.player_id]
        await client.close()
        assert arena.hub.bus.players_here() == []
        assert not arena.hub.bus.connections(welcome.player_id)


@pytest.mark.parametrize("payload", [b"", b"\xc1", b"\x93\xa1x\x90\x80", b"\x93\xa1x\x91\xa1p\x81\xa4type\xa4nope"])
async def test_a_malformed_message_on_the_channel_is_ignored(payload: bytes) -> None:
    store = MemoryStore()
    async with MemoryArena(make_settings(), store=store) as arena:
        client = await arena.client()
        welcome = await client.request(ts.Hello)
        assert isinstance(welcome, tc.Welcome)
        await store.publish("players", payload)
        await arena.hub.bus.tell([welcome.player_id], tc.Pong(server_time=7))
        await client.wait_for(lambda m: m.type == "pong" and m.server_time == 7, WAIT_SECONDS)
