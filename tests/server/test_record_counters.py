"""A game's own counters in the records: named by its descriptor, summed
by the store under those names, and read back as the descriptor names
them.  Records stored with the old ``repairs`` hash field read back the
same: ``tests/storage/test_redis.py``."""

from __future__ import annotations

from tests.server.arena_memory import MemoryArena

from protocol import to_server as ts
from server.model.records import GameResult

RELAXED = "broken-deck/difficulty=relaxed"


async def test_a_games_recorded_counter_adds_to_what_its_record_holds(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello(name="ann")
    earlier = GameResult(True, 140, 400_000, hints=1, counters={"repairs": 6})
    await arena.store.add_result(player.player_id, RELAXED, earlier)
    started, snapshot = await player.new_game("broken-deck", deal=3, options={"difficulty": "relaxed"})
    assert snapshot.legal
    await player.request(ts.Move, game_id=started.game_id, move=snapshot.legal[0])
    await player.request(ts.Resign, game_id=started.game_id)

    reply = await player.request(ts.Records)
    assert reply.type == "records"
    (record,) = reply.records
    assert (record.game, record.variant, record.games, record.wins) == ("broken-deck", "difficulty=relaxed", 2, 1)
    assert record.counters == {"repairs": 6}, "the earlier game's six repairs, the resigned game's none"


async def test_a_game_without_counters_of_its_own_records_none(arena: MemoryArena) -> None:
    player = await arena.client()
    await player.hello(name="bob")
    started, _ = await player.new_game(deal=7, options={"draw": 1})
    await player.request(ts.Resign, game_id=started.game_id)
    reply = await player.request(ts.Records)
    assert reply.type == "records" and [record.counters for record in reply.records] == [{}]
