"""Mirrors: snapshot + diffs equal the server's state; gaps resync."""

from __future__ import annotations

import random

import pytest
from tests.client.arena_restart import RestartableServer
from tests.server.arena_wire import SEARCH_WAIT_SECONDS, WireClient

from client import ArenaClient, GameMirror, Unavailable
from protocol import ServerMessage
from protocol import to_client as tc
from protocol import to_server as ts

GAMES = ("klondike", "broken-deck", "laras-game", "chequers")
ACTIONS = 40


async def play_randomly(client: ArenaClient, game: GameMirror, actions: int, seed: int) -> None:
    """Moves mostly, with undo, redo, hints, taps and a restart mixed in,
    so that every kind of diff goes through the mirrors.  A hint waits on a
    real search in a worker process, which beside CPU burners took over the
    library's default 10 s: ``client``'s timeout is the search's hang bound."""
    rng = random.Random(seed)
    for step in range(actions):
        if game.finished:
            return
        roll = rng.random()
        try:
            if step == actions // 2:
                await client.restart(game.game_id)
            elif roll < 0.1:
                await client.undo(game.game_id)
            elif roll < 0.15:
                await client.redo(game.game_id)
            elif roll < 0.2:
                await client.hint(game.game_id)
            elif roll < 0.25 and (pile_moves := [move for move in game.legal or [] if "-" in move]):
                await client.auto_move(game.game_id, rng.choice(pile_moves).split("-")[0])
            elif game.legal:
                await client.move(game.game_id, rng.choice(game.legal))
        except Unavailable:
            continue


async def server_truth(url: str, game_id: str) -> tc.Snapshot:
    """The server's own snapshot, read by an independent raw client."""
    raw = await WireClient.open(url)
    try:
        reply: ServerMessage = await raw.request(ts.Resync, game_id=game_id)
    finally:
        await raw.close()
    assert isinstance(reply, tc.Snapshot)
    return reply


def assert_mirrors(mirror: GameMirror, truth: tc.Snapshot) -> None:
    assert mirror.seq == truth.seq
    assert mirror.view == truth.view.model_dump()
    assert mirror.status == truth.status and mirror.counters == truth.counters
    assert mirror.legal == truth.legal


@pytest.mark.parametrize("game_name", GAMES)
async def test_a_mirror_fed_by_diffs_equals_the_servers_snapshot_after_many_moves(
    arena: RestartableServer, subprotocol: str, game_name: str
) -> None:
    async with (
        ArenaClient(arena.url, subprotocol=subprotocol, timeout=SEARCH_WAIT_SECONDS) as player,
        ArenaClient(arena.url, subprotocol=subprotocol, identify=False) as spectator,
    ):
        game = await player.new_game(game_name, deal=5)
        watched = await spectator.watch(game.game_id)
        await play_randomly(player, game, ACTIONS, seed=len(game_name))
        assert game.seq > ACTIONS // 2
        await watched.wait_until(lambda mirror: mirror.seq == game.seq)
        truth = await server_truth(arena.url, game.game_id)
        assert_mirrors(game, truth)
        assert_mirrors(watched, truth)
        assert game.snapshots == watched.snapshots == 1 and game.gaps == watched.gaps == 0


async def test_a_dropped_diff_is_noticed_and_a_resync_repairs_the_mirror(
    arena: RestartableServer, subprotocol: str
) -> None:
    dropped: list[int] = []

    def lose_the_third_diff(message: ServerMessage) -> bool:
        if isinstance(message, tc.Diff) and message.seq == 3 and not dropped:
            dropped.append(message.seq)
            return False
        return True

    async with (
        ArenaClient(arena.url, subprotocol=subprotocol) as player,
        ArenaClient(arena.url, subprotocol=subprotocol, identify=False, message_filter=lose_the_third_diff) as spectator,
    ):
        game = await player.new_game("klondike", deal=8)
        watched = await spectator.watch(game.game_id)
        for _ in range(6):
            await player.move(game.game_id, "draw")
        await watched.wait_until(lambda mirror: mirror.seq == 6 and not mirror.stale)
        assert dropped == [3]
        assert watched.gaps == 1 and watched.snapshots == 2
        assert_mirrors(watched, await server_truth(arena.url, game.game_id))


async def test_a_diff_that_does_not_fit_the_view_also_resyncs(arena: RestartableServer) -> None:
    async with ArenaClient(arena.url) as player, ArenaClient(arena.url, identify=False) as spectator:
        game = await player.new_game("klondike", deal=8)
        watched = await spectator.watch(game.game_id)
        await player.move(game.game_id, "draw")
        await watched.wait_until(lambda mirror: mirror.seq == 1)
        watched.view["piles"]["w"]["up"] = []
        await player.move(game.game_id, "draw")
        await watched.wait_until(lambda mirror: mirror.seq == 2 and not mirror.stale)
        assert watched.gaps == 1 and watched.snapshots == 2
        assert_mirrors(watched, await server_truth(arena.url, game.game_id))


async def test_updates_arrive_in_order_and_end_with_game_over(arena: RestartableServer, subprotocol: str) -> None:
    async with (
        ArenaClient(arena.url, subprotocol=subprotocol) as player,
        ArenaClient(arena.url, subprotocol=subprotocol, identify=False) as spectator,
    ):
        game = await player.new_game("klondike", deal=2)
        watched = await spectator.watch(game.game_id)
        stream = watched.updates()
        for _ in range(3):
            await player.move(game.game_id, "draw")
        await player.resign(game.game_id)
        seen = [update async for update in stream]
        assert [update.type for update in seen] == ["diff"] * 4 + ["game_over"]
        assert [update.seq for update in seen if isinstance(update, tc.Diff)] == [1, 2, 3, 4]
        assert watched.finished and watched.result is not None and watched.result.result == "resigned"
        assert watched.result.deal == 2
        assert [update async for update in watched.updates()] == []


async def test_unwatch_closes_the_mirror_and_stops_its_updates(arena: RestartableServer) -> None:
    async with ArenaClient(arena.url) as player, ArenaClient(arena.url, identify=False) as spectator:
        game = await player.new_game("chequers", deal=4)
        watched = await spectator.watch(game.game_id)
        stream = watched.updates()
        await spectator.unwatch(game.game_id)
        assert game.game_id not in spectator.games and watched.closed
        assert [update async for update in stream] == []
        await player.move(game.game_id, game.legal[0] if game.legal else "draw")
        assert watched.seq == 0
