"""Attacks on what a daily race ranks, as scripts any client can run: the
memory harness runs them for the rule (``test_race_fair_play``), and the
integration tests run the same scripts over sockets, on one process and
on two sharing a real Redis (``tests/integration/test_race_fair_play_processes``).

Each takes signed-in clients of the server under attack whose daily
WordLink draw-1 deal is pinned to deal 1 (``pin_daily_deal``), whose
winning line the attacker knows.
"""

from __future__ import annotations

from tests.races.arena_races import DEAL_1_DRAW_1_WIN, play_line, race_event
from tests.server.arena_wire import RecordingClient

from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts

DRAW_1 = {"draw": 1}
LOOK = 5
"""Moves the attacker plays of its ranked attempt before resigning: a look at the deal."""


async def _board(client: RecordingClient, game_id: str) -> tc.Snapshot:
    snapshot: tc.Snapshot = await client.wait_for(lambda m: m.type == "snapshot" and m.game_id == game_id)
    return snapshot


async def _daily_race(host: RecordingClient, *friends: RecordingClient) -> str:
    created = await host.request(ts.CreateRace, game="klondike", options=DRAW_1, deal="daily")
    assert created.type == "race", created
    for friend in friends:
        joined = await friend.request(ts.JoinRace, code=created.race.code)
        assert joined.type == "race", joined
    return created.race.race_id


async def known_deal_race(attacker: RecordingClient, fresh: RecordingClient) -> tc.RaceInfo:
    """The attacker plays and resigns today's daily, hosts a daily race and
    replays the winning line at once; a fresh racer wins it later.  The
    attacker must take no place, and be listed after the fresh racer."""
    started, _ = await attacker.new_game(deal="daily", options=DRAW_1)
    assert started.ranked
    await play_line(attacker, started.game_id, DEAL_1_DRAW_1_WIN[:LOOK])
    assert (await attacker.request(ts.Resign, game_id=started.game_id)).type == "diff"

    race_id = await _daily_race(attacker, fresh)
    begun = await attacker.request(ts.StartRace, race_id=race_id)
    assert begun.type == "race" and begun.event == "started", begun
    entries = {racer.player_id: racer for racer in begun.race.racers}
    assert (entries[attacker.player_id].ranked, entries[attacker.player_id].apart) == (False, "deal_seen")
    assert (entries[fresh.player_id].ranked, entries[fresh.player_id].apart) == (True, None)
    games = {player_id: racer.game_id for player_id, racer in entries.items()}
    for client in (attacker, fresh):
        game_id = games[client.player_id]
        assert game_id is not None
        await _board(client, game_id)
        await play_line(client, game_id, DEAL_1_DRAW_1_WIN)
    race = (await race_event(fresh, "finished", race_id)).race
    assert race.results is not None
    rows = [(row.player_id, row.place, row.result, row.apart) for row in race.results]
    assert rows == [
        (fresh.player_id, 1, "won", None),
        (attacker.player_id, None, "won", "deal_seen"),
    ], "a racer who knew the deal is never placed above one who did not"
    assert race.results[1].time_ms < race.results[0].time_ms, "the attacker was faster, and still below"
    return race


async def blocked_start(host: RecordingClient, busy: RecordingClient) -> None:
    """A racer whose ranked daily attempt is still live cannot block a daily
    race: it starts for the others, and they sit it out, told why.  Their
    own attempt is untouched.  Alone with a live attempt, a start is
    refused (``ranked_first``) and stays possible."""
    attempt, _ = await busy.new_game(deal="daily", options=DRAW_1)
    assert attempt.ranked
    race_id = await _daily_race(host, busy)
    begun = await host.request(ts.StartRace, race_id=race_id)
    assert begun.type == "race" and begun.event == "started", begun
    entries = {racer.player_id: racer for racer in begun.race.racers}
    out = entries[busy.player_id]
    assert (out.game_id, out.state, out.apart, out.ranked) == (None, "sitting_out", "ranked_first", False)
    assert (entries[host.player_id].ranked, entries[host.player_id].apart) == (True, None)
    heard = await race_event(busy, "started", race_id)
    assert {racer.player_id: racer.state for racer in heard.race.racers}[busy.player_id] == "sitting_out"
    host_game = entries[host.player_id].game_id
    assert host_game is not None
    await _board(host, host_game)
    moved = await busy.request(ts.Move, game_id=attempt.game_id, move=DEAL_1_DRAW_1_WIN[0])
    assert moved.type == "diff", "the racer's own ranked attempt plays on"
    await host.request(ts.Resign, game_id=host_game)
    race = (await race_event(host, "finished", race_id)).race
    assert race.results is not None and [row.player_id for row in race.results] == [host.player_id]

    alone = await busy.request(ts.CreateRace, game="klondike", options=DRAW_1, deal="daily")
    assert alone.type == "race", alone
    refused = await busy.request(ts.StartRace, race_id=alone.race.race_id)
    assert refused.type == "error" and (refused.code, refused.reason) == (ErrorCode.UNAVAILABLE, "ranked_first"), refused
    assert (await busy.request(ts.Resign, game_id=attempt.game_id)).type == "diff"
    again = await busy.request(ts.StartRace, race_id=alone.race.race_id)
    assert again.type == "race" and again.event == "started", again
    assert [(racer.ranked, racer.apart) for racer in again.race.racers] == [(False, "deal_seen")]


async def automatic_moves_refused(player: RecordingClient) -> None:
    """``auto_collect`` is refused in a ranked daily attempt and in races
    (``unavailable``, reason ``ranked``), and the refusal spends nothing:
    the ranked attempt is still there; practice after it may use it."""
    for request, fields in (
        (ts.NewGame, {"game": "klondike", "deal": "daily"}),
        (ts.CreateRace, {"game": "klondike", "deal": "daily"}),
        (ts.CreateRace, {"game": "klondike", "deal": 1}),
    ):
        refused = await player.request(request, **fields, options={**DRAW_1, "auto_collect": True})
        assert refused.type == "error" and (refused.code, refused.reason) == (ErrorCode.UNAVAILABLE, "ranked"), refused
        assert "auto_collect" in refused.message
    autoplay = await player.request(ts.CreateRace, game="laras-game", deal=1, options={"autoplay": True})
    assert autoplay.type == "error" and autoplay.reason == "ranked", autoplay
    started, _ = await player.new_game(deal="daily", options=DRAW_1)
    assert started.ranked and started.options["auto_collect"] is False
    assert (await player.request(ts.Resign, game_id=started.game_id)).type == "diff"
    practice, _ = await player.new_game(deal="daily", options={**DRAW_1, "auto_collect": True})
    assert practice.practice and not practice.ranked and practice.options["auto_collect"] is True
