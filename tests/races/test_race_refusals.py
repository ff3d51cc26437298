"""Bad race requests: each gets a clear error with a stable code, and the
race is exactly as it was before (one server's hub, in memory: a refusal
is the core's rule, whatever carries the frames)."""

from __future__ import annotations

from tests.server.arena_clock import FakeClock, ManualScheduler
from tests.races.arena_races import MemoryArena, RecordingClient, memory_arena, player, race_event, race_settings, racer_games

import engine
from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts
from server.model.records import SessionHeader

__all__ = ["memory_arena"]


def _unchanged(before: tc.Race, after: tc.Race) -> bool:
    """Two race messages describe the same race (ignoring the clock)."""
    return before.race.model_dump() == after.race.model_dump()


async def _race_of(client: RecordingClient, race_id: str) -> tc.Race:
    """The race as a watcher is shown it now."""
    race = await client.request(ts.WatchRace, race_id=race_id)
    assert race.type == "race", race
    return race


async def _lobby(server: MemoryArena, *names: str) -> tuple[list[RecordingClient], tc.Race]:
    """A race hosted by the first name and joined by the others."""
    clients: list[RecordingClient] = [await player(server, name) for name in names]
    created = await clients[0].request(ts.CreateRace, game="klondike", deal=7)
    assert created.type == "race", created
    for client in clients[1:]:
        joined = await client.request(ts.JoinRace, code=created.race.code)
        assert joined.type == "race" and joined.event == "joined", joined
    return clients, created


async def _started(host: RecordingClient, friend: RecordingClient, race_id: str) -> dict[str, str]:
    """Start the race; each racer's game id, once both boards have come."""
    started = await host.request(ts.StartRace, race_id=race_id)
    assert started.type == "race", started
    games = racer_games(started.race)
    for client in (host, friend):
        await client.wait_for(lambda m, c=client: m.type == "snapshot" and m.game_id == games[c.player_id])
    return games


async def test_joining_with_a_wrong_code_is_race_not_found(memory_arena: MemoryArena) -> None:
    (host,), created = await _lobby(memory_arena, "ann")
    stranger = await player(memory_arena, "eve")
    for code in ("ZZZZZZZZ", "not a code", "O0O0O0O0"):
        refusal = await stranger.request(ts.JoinRace, code=code)
        assert refusal.type == "error" and refusal.code == ErrorCode.RACE_NOT_FOUND
        assert "invite code" in refusal.message
    assert _unchanged(created, await _race_of(host, created.race.race_id))


async def test_a_code_is_read_whatever_its_case_and_dashes(memory_arena: MemoryArena) -> None:
    _, created = await _lobby(memory_arena, "ann")
    code = created.race.code
    assert code is not None, "the host is shown the invite code"
    friend = await player(memory_arena, "bob")
    joined = await friend.request(ts.JoinRace, code=f"{code[:4].lower()}-{code[4:].lower()}")
    assert joined.type == "race" and joined.event == "joined" and [r.name for r in joined.race.racers] == ["ann", "bob"]


async def test_joining_with_an_expired_code_is_invite_expired() -> None:
    clock = FakeClock()
    settings = race_settings(race_invite_seconds=1)
    async with MemoryArena(settings, clock=clock, scheduler=ManualScheduler(clock)) as server:
        (host,), created = await _lobby(server, "ann")
        clock.ms += 999
        assert (await _race_of(host, created.race.race_id)).race.phase == "lobby", "good until its last millisecond"
        clock.ms += 1
        late = await player(server, "bob")
        refusal = await late.request(ts.JoinRace, code=created.race.code)
        assert refusal.type == "error" and refusal.code == ErrorCode.INVITE_EXPIRED and "expired" in refusal.message
        again = await _race_of(host, created.race.race_id)
        assert again.race.phase == "expired" and [r.name for r in again.race.racers] == ["ann"]
        start = await host.request(ts.StartRace, race_id=created.race.race_id)
        assert start.type == "error" and start.code == ErrorCode.RACE_STATE


async def test_a_full_race_refuses_one_more_racer() -> None:
    async with MemoryArena(race_settings(race_limit=2)) as server:
        (host, _), created = await _lobby(server, "ann", "bob")
        before = await _race_of(host, created.race.race_id)
        third = await player(server, "cat")
        refusal = await third.request(ts.JoinRace, code=created.race.code)
        assert refusal.type == "error" and refusal.code == ErrorCode.RACE_FULL and "2 racers" in refusal.message
        assert _unchanged(before, await _race_of(host, created.race.race_id))


async def test_only_the_host_starts_the_race(memory_arena: MemoryArena) -> None:
    (host, friend), created = await _lobby(memory_arena, "ann", "bob")
    race_id = created.race.race_id
    before = await _race_of(host, race_id)
    refusal = await friend.request(ts.StartRace, race_id=race_id)
    assert refusal.type == "error" and refusal.code == ErrorCode.FORBIDDEN and "host" in refusal.message
    after = await _race_of(host, race_id)
    assert _unchanged(before, after) and after.race.phase == "lobby"


async def test_nobody_acts_or_watches_before_the_countdown_ends(memory_arena: MemoryArena) -> None:
    (host, friend), created = await _lobby(memory_arena, "ann", "bob")
    started = await host.request(ts.StartRace, race_id=created.race.race_id)
    assert started.type == "race" and started.event == "started" and started.race.phase == "countdown"
    mine = next(r.game_id for r in started.race.racers if r.player_id == host.player_id)
    early = await host.request(ts.Move, game_id=mine, move="draw")
    assert early.type == "error" and early.code == ErrorCode.RACE_STATE and "starts in" in early.message
    spectator = await memory_arena.client()
    peek = await spectator.request(ts.Watch, game_id=mine)
    assert peek.type == "error" and peek.code == ErrorCode.RACE_STATE
    board = await host.wait_for(lambda m: m.type == "snapshot" and m.game_id == mine)
    assert board.seq == 0 and board.clock.started_ms == started.race.starts_at
    await spectator.close()


async def test_a_racer_may_not_watch_a_rival_while_the_race_runs(memory_arena: MemoryArena) -> None:
    (host, friend), created = await _lobby(memory_arena, "ann", "bob")
    started = await host.request(ts.StartRace, race_id=created.race.race_id)
    assert started.type == "race", started
    rival = next(r.game_id for r in started.race.racers if r.player_id == host.player_id)
    await host.wait_for(lambda m: m.type == "snapshot" and m.game_id == rival)
    refusal = await friend.request(ts.Watch, game_id=rival)
    assert refusal.type == "error" and refusal.code == ErrorCode.FORBIDDEN and "rivals' boards stay hidden" in refusal.message
    assert not any(m.type == "snapshot" and m.game_id == rival for m in friend.received)
    refusal = await friend.request(ts.Resync, game_id=rival)
    assert refusal.type == "error" and refusal.code == ErrorCode.FORBIDDEN


async def test_nothing_is_accepted_after_the_race_ended(memory_arena: MemoryArena) -> None:
    (host, friend), created = await _lobby(memory_arena, "ann", "bob")
    race_id = created.race.race_id
    games = await _started(host, friend, race_id)
    for client in (host, friend):
        assert (await client.request(ts.Resign, game_id=games[client.player_id])).type == "diff"
    finished = await race_event(host, "finished", race_id)
    assert finished.race.phase == "finished" and finished.race.deal == 7
    late = await host.request(ts.Move, game_id=games[host.player_id], move="draw")
    assert late.type == "error" and late.code == ErrorCode.GAME_FINISHED
    again = await host.request(ts.StartRace, race_id=race_id)
    assert again.type == "error" and again.code == ErrorCode.RACE_STATE
    rejoin = await (await player(memory_arena, "cat")).request(ts.JoinRace, code=created.race.code)
    assert rejoin.type == "error" and rejoin.code == ErrorCode.RACE_STATE
    assert _unchanged(finished, await _race_of(host, race_id))


async def test_rematch_needs_a_finished_race_and_a_racer(memory_arena: MemoryArena) -> None:
    (host, _), created = await _lobby(memory_arena, "ann", "bob")
    too_early = await host.request(ts.Rematch, race_id=created.race.race_id)
    assert too_early.type == "error" and too_early.code == ErrorCode.RACE_STATE
    outsider = await player(memory_arena, "eve")
    refusal = await outsider.request(ts.Rematch, race_id=created.race.race_id)
    assert refusal.type == "error" and refusal.code == ErrorCode.FORBIDDEN


async def test_an_unknown_race_id_is_race_not_found(memory_arena: MemoryArena) -> None:
    client = await memory_arena.client()
    refusal = await client.request(ts.WatchRace, race_id="r_nothing")
    assert refusal.type == "error" and refusal.code == ErrorCode.RACE_NOT_FOUND
    await client.close()


async def test_a_race_ledger_is_not_a_game(memory_arena: MemoryArena) -> None:
    (host,), created = await _lobby(memory_arena, "ann")
    refusal = await host.request(ts.Watch, game_id=created.race.race_id)
    assert refusal.type == "error" and refusal.code == ErrorCode.GAME_NOT_FOUND and "watch_race" in refusal.message
    listed = await host.request(ts.ListGames)
    assert listed.type == "games" and listed.games == []


async def test_a_race_game_is_analysed_only_after_the_race(memory_arena: MemoryArena) -> None:
    """Rivals play the same deal: its solution stays untold until the race ends."""
    (host, friend), created = await _lobby(memory_arena, "ann", "bob")
    race_id = created.race.race_id
    games = await _started(host, friend, race_id)
    await host.request(ts.Resign, game_id=games[host.player_id])
    secret = await host.request(ts.Analyse, game_id=games[host.player_id])
    assert secret.type == "error" and secret.code == ErrorCode.UNAVAILABLE and secret.reason == "deal_secret"
    await friend.request(ts.Resign, game_id=games[friend.player_id])
    await race_event(host, "finished", race_id)
    analysis = await host.request(ts.Analyse, game_id=games[host.player_id])
    assert analysis.type == "analysis" and analysis.line == []


async def test_races_are_counted_in_the_metrics(memory_arena: MemoryArena) -> None:
    (host, friend), created = await _lobby(memory_arena, "ann", "bob")
    race_id = created.race.race_id
    sample = memory_arena.hub.metrics.registry.get_sample_value
    assert sample("arena_races", {"phase": "lobby"}) == 1 and sample("arena_race_events_total", {"event": "created"}) == 1
    games = await _started(host, friend, race_id)
    for client in (host, friend):
        await client.request(ts.Resign, game_id=games[client.player_id])
    await race_event(host, "finished", race_id)
    assert sample("arena_race_events_total", {"event": "started"}) == 1
    assert sample("arena_race_events_total", {"event": "finished"}) == 1
    assert sample("arena_races", {"phase": "finished"}) == 1 and sample("arena_races", {"phase": "lobby"}) == 0
    await friend.request(ts.Rematch, race_id=race_id)
    assert sample("arena_race_events_total", {"event": "created"}) == 2, "a rematch is a race created"


async def test_a_game_left_by_a_start_that_failed_is_discarded_when_its_racer_returns(
    memory_arena: MemoryArena,
) -> None:
    """A store failure between preparing the racers' games and the race's
    start entry leaves games no race lists; they must not linger as live."""
    (host, friend), created = await _lobby(memory_arena, "ann", "bob")
    prepared_long_ago = memory_arena.hub.clock() - 120_000
    orphan = SessionHeader(
        game_id="g_orphan", game="klondike", deal=7, options=dict(engine.new_game("klondike", 7).options),
        owner=host.player_id, created_ms=prepared_long_ago, race_id=created.race.race_id,
    )
    await memory_arena.store.create_session(orphan)
    back = await memory_arena.client()
    welcome = await back.hello(token=host.token)
    await back.close()
    assert [game.game_id for game in welcome.games] == []
    assert await memory_arena.store.load_session("g_orphan") is None, "discarded, as a failed start's games are"
    race = (await _race_of(host, created.race.race_id)).race
    assert race.phase == "lobby" and [r.player_id for r in race.racers] == [host.player_id, friend.player_id]


async def test_a_connection_follows_at_most_watch_limit_races() -> None:
    async with MemoryArena(race_settings(watch_limit=2)) as server:
        host = await player(server, "ann")
        races = []
        for _ in range(2):
            created = await host.request(ts.CreateRace, game="klondike", deal=7)
            assert created.type == "race", created
            races.append(created)
        refused = await host.request(ts.CreateRace, game="klondike", deal=7)
        assert refused.type == "error" and refused.code == ErrorCode.FORBIDDEN and "at most 2 races" in refused.message
        watcher = await server.client()
        for race in races:
            assert (await watcher.request(ts.WatchRace, race_id=race.race.race_id)).type == "race"
        third = await host.request(ts.CreateRace, game="chequers", deal=3)
        assert third.type == "error", "the host still follows two races"
        await host.request(ts.UnwatchRace, race_id=races[0].race.race_id)
        assert (await host.request(ts.CreateRace, game="chequers", deal=3)).type == "race", "room again after unwatch"


async def test_unwatching_a_race_acks_and_stops_its_news(memory_arena: MemoryArena) -> None:
    (host, friend), created = await _lobby(memory_arena, "ann", "bob")
    race_id = created.race.race_id
    spectator = await memory_arena.client()
    await spectator.request(ts.WatchRace, race_id=race_id)
    ack = await spectator.request(ts.UnwatchRace, race_id=race_id)
    assert ack.type == "ack"
    seen = len(spectator.received)
    await host.request(ts.StartRace, race_id=race_id)
    await race_event(friend, "started", race_id)
    await spectator.request(ts.Ping)
    assert [m.type for m in spectator.received[seen:]] == ["pong"], "no race news after unwatch_race"
