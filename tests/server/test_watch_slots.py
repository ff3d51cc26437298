"""A connection's watch limit counts what it still follows: a finished
game frees its slot when a new one needs it, and a new game that cannot
be watched is refused before it is made."""

from __future__ import annotations

from tests.server.arena_memory import MemoryArena
from tests.server.arena_servers import make_settings

from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts

WATCH_LIMIT = 4


async def test_a_player_starts_game_after_game_on_one_connection_past_its_watch_limit() -> None:
    async with MemoryArena(make_settings(watch_limit=WATCH_LIMIT, max_live_games=2)) as arena:
        player = await arena.client()
        await player.hello()
        for deal in range(1, 3 * WATCH_LIMIT):
            started, _ = await player.new_game(deal=deal)
            replies = [m for m in player.received if getattr(m, "id", None) == started.id]
            assert [m.type for m in replies][-1:] == ["game_started"], replies
            assert len(player.peer.watching) <= WATCH_LIMIT
        assert not [m for m in player.received if m.type == "error"], "no start was refused or half-made"


async def test_a_new_game_that_could_not_be_watched_is_refused_before_it_is_made() -> None:
    async with MemoryArena(make_settings(watch_limit=WATCH_LIMIT)) as arena:
        others = []
        for deal in range(1, WATCH_LIMIT + 1):
            other = await arena.client()
            await other.hello()
            others.append((await other.new_game(deal=deal))[0].game_id)
        player = await arena.client()
        await player.hello()
        for game_id in others:
            assert (await player.request(ts.Watch, game_id=game_id)).type == "snapshot"
        live_before = len(arena.hub.rooms)
        refused = await player.request(ts.NewGame, game="klondike", deal=9)
        assert isinstance(refused, tc.Error) and refused.code == ErrorCode.FORBIDDEN, refused
        assert len(arena.hub.rooms) == live_before and not [m for m in player.received if m.type == "game_started"]
        await player.request(ts.Unwatch, game_id=others[0])
        assert (await player.request(ts.NewGame, game="klondike", deal=9)).type == "game_started"


async def test_a_finished_game_keeps_its_slot_until_one_is_needed() -> None:
    async with MemoryArena(make_settings(watch_limit=2)) as arena:
        player, rival, spectator = await arena.client(), await arena.client(), await arena.client()
        await player.hello()
        await rival.hello()
        ended, _ = await player.new_game(deal=1)
        live, _ = await player.new_game(deal=2)
        other, _ = await rival.new_game(deal=3)
        assert (await spectator.request(ts.Watch, game_id=ended.game_id)).type == "snapshot"
        assert (await spectator.request(ts.Watch, game_id=live.game_id)).type == "snapshot"
        await player.request(ts.Resign, game_id=ended.game_id)
        await spectator.wait_for(lambda m: m.type == "game_over" and m.game_id == ended.game_id)
        assert spectator.peer.watching == {ended.game_id, live.game_id}
        assert (await spectator.request(ts.Watch, game_id=other.game_id)).type == "snapshot"
        assert spectator.peer.watching == {live.game_id, other.game_id}
