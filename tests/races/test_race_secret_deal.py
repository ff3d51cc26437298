"""A winnable race on its secret deal, end to end: committed at the start,
no board for a spectator while it runs, revealed at the end (the reveal
verifies with the public engine), then boards and analyses for everyone."""

from __future__ import annotations

from tests.races.arena_races import MemoryArena, memory_arena, player, race_event

from client.reveal import race_reveal_problems
from protocol import to_server as ts

__all__ = ["memory_arena"]


async def test_a_winnable_race_reveals_its_secret_deal_when_it_ends(memory_arena: MemoryArena) -> None:
    ann, bob = await player(memory_arena, "ann"), await player(memory_arena, "bob")
    created = await ann.request(ts.CreateRace, game="klondike", options={"draw": 1}, deal="winnable")
    assert created.type == "race", created
    race_id = created.race.race_id
    await bob.request(ts.JoinRace, code=created.race.code)
    started = await ann.request(ts.StartRace, race_id=race_id)
    assert started.type == "race", started
    race = started.race
    assert race.ranked and race.commitment is not None and len(race.commitment) == 64 and race.seed is None
    games = {racer.name: racer.game_id for racer in race.racers}
    for client, name in ((ann, "ann"), (bob, "bob")):
        await client.wait_for(lambda m, g=games[name]: m.type == "snapshot" and m.game_id == g)
    spectator = await memory_arena.client()
    assert (await spectator.request(ts.Watch, game_id=games["ann"])).type == "progress"
    refused = await ann.request(ts.Analyse, game_id=games["ann"])
    assert refused.type == "error"

    for client, name in ((ann, "ann"), (bob, "bob")):
        await client.request(ts.Resign, game_id=games[name])
    finished = (await race_event(ann, "finished", race_id)).race
    assert finished.commitment == race.commitment and finished.seed is not None
    assert race_reveal_problems(finished) == [], "the reveal verifies with the public engine"
    assert (await spectator.request(ts.Watch, game_id=games["bob"])).type == "snapshot", "boards open once the deal is revealed"
    analysis = await bob.request(ts.Analyse, game_id=games["bob"])
    assert analysis.type == "analysis" and analysis.line == []
    for client in (ann, bob, spectator):
        await client.close()
