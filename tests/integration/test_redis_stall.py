"""Redis stalls (SIGSTOP) while players act, then goes on (SIGCONT).

An append sent into the stall waits in Redis's socket buffer; the caller
times out and answers ``storage_unavailable``; when Redis goes on it reads
the command.  Before the deadline in the append script, it then ran, and
the action the player was told had failed was in the game after all (18
of 100 stalled actions when it was measured).  Now the script compares Redis's clock with the
append's deadline and refuses: ``storage_unavailable`` means not applied.
"""

from __future__ import annotations

import asyncio
from typing import AsyncIterator

import pytest
from tests.integration.arena_processes import ClientOpener, ServerStarter, WireClient, stored_log
from tests.redis_server import RedisServer

from protocol import ErrorCode
from protocol import to_server as ts
from server.model.records import Action, SessionHeader
from server.storage import StorageUnavailable
from server.storage.redis import RedisStore

pytestmark = pytest.mark.redis

SOCKET_TIMEOUT = 0.5
GAMES = 20
PLAYERS = 8
STALL_REPLY_SECONDS = 30.0
"""Enough for the server's own socket timeout (5 s) and then some."""


@pytest.fixture
async def stalled(own_redis_server: RedisServer) -> AsyncIterator[RedisServer]:
    """The test's Redis, resumed at the end whatever happened."""
    try:
        yield own_redis_server
    finally:
        own_redis_server.resume()


async def test_an_append_that_timed_out_in_a_stall_is_not_written_when_redis_goes_on(
    stalled: RedisServer,
) -> None:
    store = RedisStore(stalled.url, socket_timeout=SOCKET_TIMEOUT)
    try:
        for number in range(GAMES):
            await store.create_session(SessionHeader(f"g{number}", "klondike", 7, {}, "p1", 1_000))
        await store.append("g0", 0, Action("move", "draw", 2_000))
        stalled.pause()
        outcomes = await asyncio.gather(
            *(store.append(f"g{number}", int(number == 0), Action("move", "draw", 3_000), ends=number % 2 == 1)
              for number in range(GAMES)),
            return_exceptions=True,
        )
        assert all(isinstance(outcome, StorageUnavailable) for outcome in outcomes), outcomes
        stalled.resume()
        logs = {}
        for number in range(GAMES):
            loaded = await store.load_session(f"g{number}")
            assert loaded is not None
            logs[number] = len(loaded[1])
        assert logs == {number: int(number == 0) for number in range(GAMES)}, "an append answered unavailable ran"
        assert await store.open_finishes() == [], "no end refused in the stall stays open"
        assert await store.append("g0", 1, Action("move", "draw", 4_000)) == 2, "appends work again at once"
    finally:
        await store.close()


async def test_moves_answered_storage_unavailable_in_a_stall_are_never_applied(
    stalled: RedisServer, arena_processes: ServerStarter, clients: ClientOpener
) -> None:
    server = await arena_processes(stalled.url)
    players: list[tuple[WireClient, str]] = []
    for _ in range(PLAYERS):
        player = await clients(server.url)
        await player.hello()
        started, _ = await player.new_game(deal=7, options={"draw": 3})
        first = await player.request(ts.Move, game_id=started.game_id, move="draw", seq=0)
        assert first.type == "diff"
        players.append((player, started.game_id))

    stalled.pause()
    requests = []
    for player, game_id in players:
        request = ts.Move(id=player.next_id(), game_id=game_id, move="draw", seq=1)
        await player.send(request)
        requests.append(request)
    replies = [
        await player.wait_for(lambda m, r=request: m.id == r.id, STALL_REPLY_SECONDS)
        for (player, _), request in zip(players, requests)
    ]
    assert {(reply.type, reply.code) for reply in replies} == {("error", ErrorCode.STORAGE_UNAVAILABLE)}
    stalled.resume()

    for player, game_id in players:
        assert len(await stored_log(stalled.url, game_id)) == 1, f"a refused move was applied to {game_id}"
        again = await player.request(ts.Move, game_id=game_id, move="draw", seq=1)
        assert again.type == "diff" and again.seq == 2, "the same move, sent again with its seq, applies once"
