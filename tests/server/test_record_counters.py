"""A game's own counters in the records: named by its descriptor, read
from the store's sums, and records stored before ``counters`` replaced the
wire's ``repairs`` field read back the same."""

from __future__ import annotations

from tests.server.arena_servers import ClientFactory

from protocol import to_server as ts
from server.app import ArenaServer
from server.storage.base import GameResult

RELAXED = "broken-deck/difficulty=relaxed"


async def test_a_record_stored_with_repairs_reads_back_as_its_counter(server: ArenaServer, connect: ClientFactory) -> None:
    player = await connect()
    await player.hello(name="ann")
    await server.store.add_result(player.player_id, RELAXED, GameResult(True, 140, 400_000, hints=1, repairs=6))
    started, snapshot = await player.new_game("broken-deck", deal=3, options={"difficulty": "relaxed"})
    assert snapshot.legal
    await player.request(ts.Move, game_id=started.game_id, move=snapshot.legal[0])
    await player.request(ts.Resign, game_id=started.game_id)

    reply = await player.request(ts.Records)
    assert reply.type == "records"
    (record,) = reply.records
    assert (record.game, record.variant, record.games, record.wins) == ("broken-deck", "difficulty=relaxed", 2, 1)
    assert record.counters == {"repairs": 6}, "the earlier game's six repairs, the resigned game's none"


async def test_a_game_without_counters_of_its_own_records_none(connect: ClientFactory) -> None:
    player = await connect()
    await player.hello(name="bob")
    started, _ = await player.new_game(deal=7, options={"draw": 1})
    await player.request(ts.Resign, game_id=started.game_id)
    reply = await player.request(ts.Records)
    assert reply.type == "records" and [record.counters for record in reply.records] == [{}]
