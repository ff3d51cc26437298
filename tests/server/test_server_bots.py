"""Declared bots: ``hello`` says ``"bot": true``, ``Peer.bot`` and the
stored player remember it, and the mark sticks to the identity, so a bot
cannot come back as a human to rank among humans.  The rule is the
hub's, so it is checked in memory; that the Python client library and
the example bot declare themselves is checked against a real server
through their own WebSocket clients."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from tests.server.arena_memory import MemoryArena
from tests.server.arena_wire import RecordingClient

from client import ArenaClient
from protocol import ErrorCode
from protocol import to_server as ts
from server.transport.app import ArenaServer
from server.core import Hub
from server.net.peer import Peer
from server.storage.base import Store



def _example(name: str) -> Any:
    """``examples/NAME.py``, loaded by its path: examples/ is a folder of
    scripts a user copies, not a package."""
    path = Path(__file__).resolve().parents[2] / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"examples_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


example_bot = _example("bot")


def _peer(hub: Hub, player_id: str) -> Peer:
    """The server's side of the connection that said hello as ``player_id``."""
    (peer,) = [peer for peer in hub.peers if peer.player and peer.player.player_id == player_id]
    return peer


async def _stored_bot(store: Store, player_id: str) -> bool:
    player = await store.get_player(player_id)
    assert player is not None
    return player.bot


async def _hello(client: RecordingClient, **fields: Any) -> Any:
    welcome = await client.request(ts.Hello, **fields)
    assert welcome.type == "welcome", welcome
    return welcome


async def test_a_declared_bot_is_a_bot_and_a_player_is_not(arena: MemoryArena) -> None:
    robot, person, spectator = await arena.client(), await arena.client(), await arena.client()
    robot_welcome = await _hello(robot, name="robo", bot=True)
    person_welcome = await _hello(person, name="ann")
    assert robot_welcome.bot is True and person_welcome.bot is False
    assert _peer(arena.hub, robot_welcome.player_id).bot is True
    assert _peer(arena.hub, person_welcome.player_id).bot is False
    assert await _stored_bot(arena.store, robot_welcome.player_id)
    await spectator.request(ts.Ping)
    (anonymous,) = [peer for peer in arena.hub.peers if peer.player is None]
    assert anonymous.bot is False, "no hello, no bot"


async def test_a_bot_identity_stays_a_bot_when_it_comes_back_without_saying_so(arena: MemoryArena) -> None:
    first = await arena.client()
    welcome = await _hello(first, bot=True)
    await first.close()
    for fields in ({}, {"bot": False}):
        again = await arena.client()
        back = await _hello(again, token=welcome.token, **fields)
        assert back.bot is True
        assert _peer(arena.hub, welcome.player_id).bot is True
        await again.close()


async def test_a_player_who_says_bot_once_is_a_bot_for_good(arena: MemoryArena) -> None:
    human = await arena.client()
    welcome = await _hello(human, name="ann")
    await human.close()
    declared = await arena.client()
    assert (await _hello(declared, token=welcome.token, bot=True)).bot is True
    assert _peer(arena.hub, welcome.player_id).bot is True
    await declared.close()
    later = await arena.client()
    assert (await _hello(later, token=welcome.token)).bot is True
    assert await _stored_bot(arena.store, welcome.player_id)


async def test_bot_must_be_a_boolean(arena: MemoryArena) -> None:
    client = await arena.client()
    await client.send_raw(client.codec.encode_data({"type": "hello", "id": 1, "bot": "yes"}))
    refusal = await client.wait_for(lambda message: message.id == 1)
    assert refusal.type == "error" and refusal.code == ErrorCode.BAD_MESSAGE


async def test_the_python_client_declares_a_bot_and_so_does_the_example_bot(server: ArenaServer) -> None:
    async with ArenaClient(server.url, bot=True) as declared:
        assert declared.welcome is not None and declared.welcome.bot is True
        assert _peer(server.hub, declared.player_id or "").bot is True
    async with ArenaClient(server.url) as undeclared:
        assert undeclared.welcome is not None and undeclared.welcome.bot is False
    async with example_bot.bot_client(server.url) as example:
        assert _peer(server.hub, example.player_id or "").bot is True
