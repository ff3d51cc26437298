"""Reconnecting: with the token, to the same game at the same position."""

from __future__ import annotations

import asyncio
import random

import pytest
from tests.client.arena_restart import RestartableServer, drop_connections
from websockets.asyncio.server import ServerConnection, serve
from websockets.typing import Subprotocol

from client import ArenaClient, Backoff, ClientClosed, ClientState, ConnectionLost
from protocol import MSGPACK_SUBPROTOCOL, ErrorCode, ServerMessage, codec_for
from protocol import to_client as tc

FAST = Backoff(first=0.05, cap=0.2)


async def play(client: ArenaClient, game_id: str, count: int) -> None:
    game = client.games[game_id]
    for _ in range(count):
        assert game.legal, "the test deal should keep a legal move"
        await client.move(game_id, game.legal[0])


async def test_after_a_server_restart_the_client_resumes_the_same_game_at_the_same_position(
    arena: RestartableServer, subprotocol: str
) -> None:
    async with ArenaClient(arena.url, subprotocol=subprotocol, backoff=FAST) as player:
        game = await player.new_game("klondike", deal=12)
        await play(player, game.game_id, 5)
        before = (game.seq, game.view, game.counters, player.player_id, player.token)

        await arena.stop()
        await player.wait_state(ClientState.RECONNECTING)
        await arena.start()
        await player.wait_open()

        assert player.reconnects == 1 and player.games[game.game_id] is game
        assert (game.seq, game.view, game.counters, player.player_id, player.token) == before
        assert game.snapshots >= 2 and not game.stale
        diff = await player.move(game.game_id, game.legal[0] if game.legal else "draw")
        assert diff.seq == 6 == game.seq


async def test_a_request_made_during_the_outage_waits_for_the_reconnection(arena: RestartableServer) -> None:
    async with ArenaClient(arena.url, backoff=FAST) as player:
        game = await player.new_game("klondike", deal=12)
        await arena.stop()
        await player.wait_state(ClientState.RECONNECTING)
        waiting = asyncio.create_task(player.move(game.game_id, "draw"))
        await asyncio.sleep(0.3)
        assert not waiting.done()
        await arena.start()
        diff = await waiting
        assert diff.seq == 1 and diff.action.text == "draw"


async def test_a_spectator_dropped_by_the_server_comes_back_and_catches_up(
    arena: RestartableServer, subprotocol: str
) -> None:
    async with (
        ArenaClient(arena.url, subprotocol=subprotocol) as player,
        ArenaClient(arena.url, subprotocol=subprotocol, identify=False, backoff=Backoff(first=0.3, cap=0.3)) as spectator,
    ):
        game = await player.new_game("broken-deck", deal=30)
        watched = await spectator.watch(game.game_id)
        drop_connections(arena, None)
        await spectator.wait_state(ClientState.RECONNECTING)
        await play(player, game.game_id, 3)
        await spectator.wait_open()
        await watched.wait_until(lambda mirror: mirror.seq == 3)
        assert spectator.reconnects == 1 and watched.snapshots == 2
        assert watched.view == game.view and watched.counters == game.counters


async def test_a_request_cut_off_by_a_drop_fails_and_the_mirror_tells_whether_it_happened(
    arena: RestartableServer,
) -> None:
    def lose_diffs(message: ServerMessage) -> bool:
        return not isinstance(message, tc.Diff)

    async with (
        ArenaClient(arena.url, backoff=FAST, message_filter=lose_diffs) as player,
        ArenaClient(arena.url, identify=False) as spectator,
    ):
        game = await player.new_game("klondike", deal=12)
        watched = await spectator.watch(game.game_id)
        move = asyncio.create_task(player.move(game.game_id, "draw"))
        await watched.wait_until(lambda mirror: mirror.seq == 1)
        drop_connections(arena, player.player_id)
        with pytest.raises(ConnectionLost):
            await move
        await player.wait_open()
        assert game.seq == 1 and game.counters["moves"] == 1 and game.view == watched.view


async def test_a_new_client_with_the_token_mirrors_the_players_live_games(
    arena: RestartableServer, subprotocol: str
) -> None:
    async with ArenaClient(arena.url, subprotocol=subprotocol, name="ada") as first:
        game = await first.new_game("laras-game", deal=3)
        await play(first, game.game_id, 2)
        token, view = first.token, game.view
    async with ArenaClient(arena.url, subprotocol=subprotocol, token=token) as second:
        assert second.name == "ada" and list(second.games) == [game.game_id]
        resumed = second.games[game.game_id]
        assert resumed.seq == 2 and resumed.view == view


async def test_a_client_that_cannot_reconnect_gives_up_and_says_so(arena: RestartableServer) -> None:
    player = ArenaClient(arena.url, backoff=Backoff(first=0.02, cap=0.05, attempts=3))
    await player.start()
    game = await player.new_game("klondike", deal=1)
    stream = game.updates()
    await arena.stop()
    assert await player.wait_state(ClientState.CLOSED) is ClientState.CLOSED
    assert isinstance(player.failure, ConnectionLost)
    with pytest.raises(ClientClosed):
        await player.move(game.game_id, "draw")
    assert [update async for update in stream] == []
    await player.close()


def test_backoff_doubles_up_to_its_cap_with_jitter_in_the_upper_half() -> None:
    policy = Backoff(first=0.1, factor=2.0, cap=1.0, attempts=8, rng=random.Random(7))
    delays = list(policy.delays())
    steps = [0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0, 1.0]
    assert len(delays) == len(steps)
    assert all(step / 2 <= delay <= step for delay, step in zip(delays, steps))
    assert len(set(delays)) == len(delays)
    assert list(Backoff(attempts=0).delays()) == []


class FlakyServer:
    """A scripted peer on a real socket: the first connection is dropped
    after welcome, the second is refused with ``shutting_down`` (the
    server is restarting), the third works."""

    def __init__(self) -> None:
        self.connections = 0

    async def handle(self, connection: ServerConnection) -> None:
        self.connections += 1
        codec = codec_for(connection.subprotocol)
        async for frame in connection:
            request = codec.decode(frame)
            if request.type == "hello" and self.connections == 2:
                refusal = tc.Error(id=request.id, code=ErrorCode.SHUTTING_DOWN, message="restarting")
                await connection.send(codec.encode(refusal), text=codec.text)
                return
            if request.type == "hello":
                limits = tc.Limits(max_frame_bytes=65536, messages_per_second=100, burst=100)
                reply: tc.Event = tc.Welcome(
                    id=request.id, player_id="p_1", name="ada", token="t", server_time=0, protocol=1, games=[], limits=limits
                )
            else:
                reply = tc.Pong(id=request.id, server_time=self.connections)
            await connection.send(codec.encode(reply), text=codec.text)
            if self.connections == 1 and request.type == "ping":
                return


async def test_a_server_that_says_not_now_during_a_reconnection_is_tried_again() -> None:
    flaky = FlakyServer()
    async with serve(flaky.handle, "127.0.0.1", 0, subprotocols=[Subprotocol(MSGPACK_SUBPROTOCOL)]) as running:
        url = f"ws://127.0.0.1:{running.sockets[0].getsockname()[1]}/"
        async with ArenaClient(url, backoff=FAST) as client:
            await client.wait_state(ClientState.RECONNECTING)
            await client.wait_open()
            assert flaky.connections == 3 and client.reconnects == 1
            assert await client.ping() == 3
