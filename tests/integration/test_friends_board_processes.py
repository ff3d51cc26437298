"""The friends' board on two ``arena serve`` processes sharing one Redis
(and a Redis Cluster): ann plays the daily on the first and wins it (the
day's winning line, read from the store, standing in for a solve); bob,
her friend, watches his friends' board on the second.  He hears her
start, and her win within a second of its reply; the board he then reads
on his process, which never held her game, shows it placed, with her
time and actions, read from the store.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import pytest
from tests.integration.arena_processes import ClientOpener, ServerStarter, WireClient
from tests.integration.test_fair_rank_processes import PROOF_SECONDS, _known_line
from tests.integration.test_friends_processes import ask, shared_redis_url, signed
from tests.server.test_friends import befriend

from protocol import friends_board as pb
from protocol import to_server as ts
from server.storage.base import Store
from server.storage.redis import RedisStore

pytestmark = pytest.mark.redis

__all__ = ["shared_redis_url"]

KLONDIKE: dict[str, Any] = {"game": "klondike", "options": {"draw": 1}}
TOLD_WITHIN_SECONDS = 1.0


async def win_the_daily(client: WireClient, game_id: str, redis_url: str) -> tuple[list[str], Any]:
    """Win today's WordLink draw 1 daily with the day's winning line, read
    from the store (standing in for a solve): the line and the reply to its
    last move."""
    store: Store = RedisStore(redis_url)
    try:
        line = await _known_line(store, "klondike", {"draw": 1})
    finally:
        await store.close()
    for move in line[:-1]:
        assert (await client.request(ts.Move, game_id=game_id, move=move)).type == "diff"
    won = await client.request(ts.Move, game_id=game_id, move=line[-1])
    assert won.type == "diff" and won.status == "won", won
    return line, won


def board_update(name: str, state: str) -> Callable[[Any], bool]:
    return lambda m: m.type == "friends_board_update" and m.row.player.name == name and m.row.state == state


async def test_a_win_on_one_process_is_on_a_friends_board_on_the_other_within_a_second(
    shared_redis_url: str, arena_processes: ServerStarter, clients: ClientOpener
) -> None:
    a, b = await arena_processes(shared_redis_url), await arena_processes(shared_redis_url)
    ann, bob = await signed(clients, a, "ann"), await signed(clients, b, "bob")
    await befriend(ann, bob)
    watched = await ask(bob, pb.FriendsBoard, **KLONDIKE)
    assert watched.type == "friends_board" and {row.state for row in watched.rows} == {"not_started"}, watched
    started = await ann.request(ts.NewGame, PROOF_SECONDS, deal="daily", **KLONDIKE)
    assert started.type == "game_started" and started.ranked, started
    await bob.wait_for(board_update("ann", "playing"))
    line, won = await win_the_daily(ann, started.game_id, shared_redis_url)
    replied = time.monotonic()
    told = await bob.wait_for(board_update("ann", "finished"))
    assert time.monotonic() - replied < TOLD_WITHIN_SECONDS, "the win reached the other process's watcher within a second"
    assert told.row.result == "won" and told.row.actions == len(line)
    read = await ask(bob, pb.FriendsBoard, **KLONDIKE)
    row = {row.player.name: row for row in read.rows}["ann"]
    assert (row.state, row.result, row.place, row.actions) == ("finished", "won", 1, len(line)), row
    assert row.time_ms == won.clock.elapsed_ms
