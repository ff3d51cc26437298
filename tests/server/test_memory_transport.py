"""The in-memory harness is faithful to the adapter: one scripted
conversation, played against a real server through real WebSocket
clients and against a ``MemoryArena``, gets the same frames (the same
kind of frame, text or binary, the same messages) and the same close.

The rule tests run in memory (``tests.server.arena_memory``); this is
what lets their verdicts stand for what a client on a socket sees.
"""

from __future__ import annotations

import contextlib
from typing import Any, Awaitable, Callable

import pytest
from websockets.exceptions import ConnectionClosed
from tests.server.arena_clock import FakeClock
from tests.server.arena_memory import MemoryArena
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import RecordingClient, WireClient, json_frame

from protocol import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL
from protocol import to_server as ts
from server.transport.app import ArenaServer
from server.runtime.settings import Settings

Opener = Callable[[str | None], Awaitable[RecordingClient]]
Script = Callable[[Opener], Awaitable[list[RecordingClient]]]


CHANCE_KEYS = frozenset({"game_id", "player_id", "token"})
"""Fields whose values two servers draw at random."""


def _normalised(clients: list[RecordingClient]) -> list[list[tuple[str, Any]]]:
    """Each client's frames as (frame kind, message), with the values two
    servers draw by chance (``CHANCE_KEYS``) named by order of first
    appearance instead, wherever they appear."""
    names: dict[str, str] = {}

    def rename(value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {name: rename(item, name) for name, item in value.items()}
        if isinstance(value, list):
            return [rename(item) for item in value]
        if isinstance(value, str) and (key in CHANCE_KEYS or value in names):
            return names.setdefault(value, f"<{key}#{len(names)}>")
        return value

    return [
        [(type(raw).__name__, rename(message.model_dump())) for raw, message in zip(client.raw, client.received)]
        for client in clients
    ]


async def _both(settings: Settings, script: Script) -> tuple[list[RecordingClient], list[RecordingClient]]:
    """``script`` against a real server, then against a memory arena, each
    with its own clock standing at the same instant."""
    wire_clock, memory_clock = FakeClock(), FakeClock()
    async with ArenaServer(settings, clock=wire_clock, monotonic=wire_clock.seconds) as server:

        async def open_wire(subprotocol: str | None) -> RecordingClient:
            return await WireClient.open(server.url, subprotocol)

        over_the_wire = await script(open_wire)
        for client in over_the_wire:
            await client.close()
    async with MemoryArena(settings, clock=memory_clock, monotonic=memory_clock.seconds) as arena:
        in_memory = await script(arena.client)
    return over_the_wire, in_memory


async def _play_and_watch(open_client: Opener, subprotocol: str | None, other: str | None) -> list[RecordingClient]:
    player, watcher = await open_client(subprotocol), await open_client(other)
    await player.hello(name="ann")
    await watcher.hello(name="bob")
    started, _ = await player.new_game(deal=5, options={"draw": 1})
    game_id = started.game_id
    assert (await watcher.request(ts.Watch, game_id=game_id)).type == "snapshot"
    for move in ("draw", "t1-f", "draw"):
        await player.request(ts.Move, game_id=game_id, move=move)
    await player.request(ts.Undo, game_id=game_id)
    await player.request(ts.Move, game_id="g_nothing", move="draw")
    await player.send_raw(json_frame({"type": "teleport", "id": 90}) if player.codec.text else b"\xc1")
    await player.request(ts.Ping)
    await watcher.request(ts.Unwatch, game_id=game_id)
    await player.request(ts.Resign, game_id=game_id)
    await player.next_of("game_over")
    await watcher.request(ts.Ping)
    return [player, watcher]


@pytest.mark.parametrize(
    ("subprotocol", "other"),
    [(MSGPACK_SUBPROTOCOL, JSON_SUBPROTOCOL), (JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL), (None, MSGPACK_SUBPROTOCOL)],
)
async def test_a_game_played_and_watched_gets_the_same_frames_over_a_socket_and_in_memory(
    subprotocol: str | None, other: str | None
) -> None:
    async def script(open_client: Opener) -> list[RecordingClient]:
        return await _play_and_watch(open_client, subprotocol, other)

    over_the_wire, in_memory = await _both(make_settings(), script)
    wire_frames = _normalised(over_the_wire)
    player_frames, watcher_frames = wire_frames
    assert len(player_frames) >= 12 and len(watcher_frames) >= 6, wire_frames
    assert any(message["type"] == "error" for _, message in player_frames)
    assert _normalised(in_memory) == wire_frames


async def test_a_flooding_client_is_closed_with_the_same_code_after_the_same_frames() -> None:
    async def script(open_client: Opener) -> list[RecordingClient]:
        flooder = await open_client(MSGPACK_SUBPROTOCOL)
        with contextlib.suppress(ConnectionError, ConnectionClosed):
            for number in range(1, 40):
                await flooder.send(ts.Ping(id=number))
        await flooder.closed()
        return [flooder]

    settings = make_settings(rate_per_second=1, rate_burst=3, rate_strikes=5)
    over_the_wire, in_memory = await _both(settings, script)
    assert over_the_wire[0].close_code == in_memory[0].close_code == 1008
    assert _normalised(in_memory) == _normalised(over_the_wire)
