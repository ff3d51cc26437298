"""A rank needs a player who existed before the deal was shown, one public
place per client address and a person's cadence: the second-identity
replay, tried as the attacker who reads the code would.

Identity A starts the ranked daily, looks and resigns; the line is then
known (solved offline for Broken Deck, which shows every card; here it is
read from the day's record, which stands in for any way of finding it).
Identity B replays it.  Each way B can differ (created today, on A's
address or its /64, replaying at machine speed) ends off the public
board, with the reason in ``game_started`` and ``game_over`` and on the
leaderboard page; a person who existed before the day, on an address of
their own and at a person's pace, ranks (so these tests can fail).

The server's core in memory (``tests.server.arena_memory``) with its
clock injected (``FakeClock``), both codecs; the same attack over sockets
and across processes sharing Redis is in
``tests/integration/test_fair_rank_processes.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.races.arena_races import (
    DAY,
    DEAL_1_DRAW_1_WIN,
    HUMAN_STEP_MS,
    NOON,
    arena_settings,
    noon_arena,
    noon_clock,
    person,
    pin_daily_deal,
    play_paced,
    racer_games,
)
from tests.server.arena_clock import FakeClock, ManualScheduler
from tests.server.arena_memory import MemoryArena, MemoryClient
from tests.server.arena_servers import make_settings

import engine
from protocol import to_client as tc
from protocol import to_server as ts
from server.deals.daily import todays_record
from server.model.fair_play import inhuman
from server.model.session import ActionKind, Session
from server.model.records import Action, SessionHeader

__all__ = ["arena_settings", "noon_arena", "noon_clock"]

GAMES = [("broken-deck", {"difficulty": "relaxed"}), ("klondike", {"draw": 1})]
HOME = "192.0.2.10"
PAUSE_MS = 30_000
"""A person's pause to think, somewhere in a won game."""


async def _look(arena: MemoryArena, clock: FakeClock, game: str, options: dict[str, Any], address: str) -> tuple[str, ...]:
    """Identity A, a player since yesterday, starts the ranked daily from
    ``address``, looks and resigns; the line that wins the deal it saw."""
    looker = await person(arena, clock, "looker", address)
    started, _ = await looker.new_game(game, deal="daily", options=options)
    assert started.ranked and started.unlisted == [], "the first look takes the address's public place"
    await looker.request(ts.Resign, game_id=started.game_id)
    record = await todays_record(arena.store, arena.settings, arena.hub.prover, engine.game_class(game), options, clock.ms)
    assert record.line, "the day's deal comes with its winning line"
    return record.line


async def _replay(
    client: MemoryClient, clock: FakeClock, game: str, options: dict[str, Any], line: tuple[str, ...], paced: bool
) -> tuple[tc.GameStarted, tc.GameOver]:
    """Start the ranked daily and play ``line`` to its win, at once or at a
    person's pace with one pause."""
    started, _ = await client.new_game(game, deal="daily", options=options)
    assert started.ranked
    if paced:
        await play_paced(client, clock, started.game_id, line, last_at=clock.ms + HUMAN_STEP_MS * len(line) + PAUSE_MS)
    else:
        for move in line:
            reply = await client.request(ts.Move, game_id=started.game_id, move=move)
            assert reply.type == "diff", reply
    over = await client.wait_for(lambda m: m.type == "game_over" and m.game_id == started.game_id)
    assert over.result == "won"
    return started, over


async def _page(client: MemoryClient, game: str, options: dict[str, Any], bots: bool = False) -> tc.LeaderboardPage:
    page = await client.request(ts.Leaderboard, game=game, options=options, bots=bots)
    assert page.type == "leaderboard", page
    return page


@pytest.mark.parametrize("game, options", GAMES)
async def test_a_fresh_identity_replaying_at_once_from_the_same_address_ranks_nowhere_public(
    arena: MemoryArena, clock: FakeClock, subprotocol: str, game: str, options: dict[str, Any]
) -> None:
    """The attack as reported: a fresh hello from the looker's address,
    the line replayed as fast as the server answers.  Every bar applies;
    the win is on the bots' board, recorded in B's own records."""
    line = await _look(arena, clock, game, options, HOME)
    replayer = await arena.client(subprotocol, address=HOME)
    await replayer.hello(name="replayer")
    started, over = await _replay(replayer, clock, game, options, line, paced=False)
    assert started.unlisted == ["same_network", "new_player"]
    assert over.unlisted == ["cadence", "same_network", "new_player"]
    public = await _page(replayer, game, options)
    assert public.entries == [] and public.unranked == [] and public.me is None
    assert public.me_unranked is not None and public.me_unranked.reason == "cadence"
    bots = await _page(replayer, game, options, bots=True)
    assert [entry.name for entry in bots.entries] == ["replayer"]
    records = await arena.store.records(replayer.player_id)
    assert [record.wins for record in records.values()] == [1], "the win is still the player's own"


@pytest.mark.parametrize("game, options", GAMES)
async def test_a_player_since_yesterday_on_the_lookers_network_is_shown_apart(
    arena: MemoryArena, clock: FakeClock, subprotocol: str, game: str, options: dict[str, Any]
) -> None:
    """An aged second identity at a person's pace, from another address of
    the looker's IPv6 /64: shown apart on the public board, unranked, as
    "same network"."""
    line = await _look(arena, clock, game, options, "2001:db8:1:2::1")
    replayer = await person(arena, clock, "neighbour", "2001:db8:1:2:ffff::9", subprotocol)
    started, over = await _replay(replayer, clock, game, options, line, paced=True)
    assert started.unlisted == over.unlisted == ["same_network"]
    public = await _page(replayer, game, options)
    assert public.entries == [] and public.me is None
    assert [(entry.name, entry.reason) for entry in public.unranked] == [("neighbour", "same_network")]
    assert public.me_unranked == public.unranked[0]


@pytest.mark.parametrize("game, options", GAMES)
async def test_a_player_created_today_is_ranked_off_the_public_board_and_told_why(
    arena: MemoryArena, clock: FakeClock, subprotocol: str, game: str, options: dict[str, Any]
) -> None:
    """Another address, a person's pace, but created after the day began:
    kept on the new players' board, which no public page shows."""
    line = await _look(arena, clock, game, options, HOME)
    replayer = await arena.client(subprotocol, address="203.0.113.77")
    await replayer.hello(name="newcomer")
    started, over = await _replay(replayer, clock, game, options, line, paced=True)
    assert started.unlisted == over.unlisted == ["new_player"]
    public = await _page(replayer, game, options)
    assert public.entries == [] and public.unranked == []
    assert public.me_unranked is not None and (public.me_unranked.name, public.me_unranked.reason) == ("newcomer", "new_player")


@pytest.mark.parametrize("game, options", GAMES)
async def test_a_player_since_yesterday_on_an_address_of_their_own_ranks(
    arena: MemoryArena, clock: FakeClock, subprotocol: str, game: str, options: dict[str, Any]
) -> None:
    """The control: what none of the bars touches ranks publicly, and the
    same line replayed at once by such a player is flagged to the bots'
    board instead."""
    line = await _look(arena, clock, game, options, HOME)
    honest = await person(arena, clock, "honest", "203.0.113.5", subprotocol)
    started, over = await _replay(honest, clock, game, options, line, paced=True)
    assert "unlisted" not in started.model_fields_set and over.unlisted == []
    public = await _page(honest, game, options)
    assert [(entry.rank, entry.name) for entry in public.entries] == [(1, "honest")]
    assert public.me is not None and public.me_unranked is None
    hasty = await person(arena, clock, "hasty", "203.0.113.6")
    _, flagged = await _replay(hasty, clock, game, options, line, paced=False)
    assert flagged.unlisted == ["cadence"]
    assert [entry.name for entry in (await _page(hasty, game, options)).entries] == ["honest"]
    assert [entry.name for entry in (await _page(hasty, game, options, bots=True)).entries] == ["hasty"]


async def test_a_race_on_the_daily_deal_counts_under_its_racers_address(clock: FakeClock, subprotocol: str) -> None:
    """A second identity that never saw the deal, from the looker's
    address, wins it in a daily race instead: its race game counts under
    the address of its latest hello, so it is shown apart too."""
    scheduler = ManualScheduler(clock)
    async with MemoryArena(make_settings(), clock=clock, scheduler=scheduler) as arena:
        await pin_daily_deal(arena.store, DAY)
        await _look(arena, clock, "klondike", {"draw": 1}, HOME)
        host = await person(arena, clock, "host", "203.0.113.20")
        racer = await person(arena, clock, "racer", HOME, subprotocol)
        created = await host.request(ts.CreateRace, game="klondike", options={"draw": 1}, deal="daily")
        assert created.type == "race", created
        assert (await racer.request(ts.JoinRace, code=created.race.code)).type == "race"
        started = await host.request(ts.StartRace, race_id=created.race.race_id)
        assert started.type == "race", started
        scheduler.advance(round(arena.settings.race_countdown_seconds * 1000))
        game_id = racer_games(started.race)[racer.player_id]
        await racer.wait_for(lambda m: m.type == "snapshot" and m.game_id == game_id)
        await play_paced(racer, clock, game_id, DEAL_1_DRAW_1_WIN, last_at=clock.ms + 100_000)
        over = await racer.wait_for(lambda m: m.type == "game_over" and m.game_id == game_id)
        assert over.result == "won" and over.unlisted == ["same_network"]
        public = await _page(racer, "klondike", {"draw": 1})
        assert public.entries == [] and [entry.name for entry in public.unranked] == ["racer"]


async def test_a_bots_look_takes_its_addresss_public_place(arena: MemoryArena, clock: FakeClock) -> None:
    """A bot identity that looks at the deal first is told nothing (it
    ranks on its own board), but the person replaying after it from its
    address is shown apart."""
    bot = await arena.client(address=HOME)
    clock.ms -= 86_400_000
    assert (await bot.request(ts.Hello, name="robot", bot=True)).type == "welcome"
    clock.ms += 86_400_000
    looked, _ = await bot.new_game("chequers", deal="daily")
    assert looked.ranked and "unlisted" not in looked.model_fields_set
    person_after = await person(arena, clock, "person", HOME)
    started, _ = await person_after.new_game("chequers", deal="daily")
    assert started.unlisted == ["same_network"]


async def test_a_race_start_that_did_not_happen_gives_its_public_place_back(clock: FakeClock) -> None:
    """A daily race's game takes its racer's public place when its claim
    is made; a start discarded before the ledger took it gives the place
    back with the claim, so the racer's own daily counts publicly."""
    async with MemoryArena(make_settings(), clock=clock) as arena:
        record = await pin_daily_deal(arena.store, DAY)
        host = await person(arena, clock, "host", "203.0.113.30")
        created = await host.request(ts.CreateRace, game="klondike", options={"draw": 1}, deal="daily")
        assert created.type == "race", created
        state = arena.hub.races.ledgers.rooms[created.race.race_id].state
        starts = arena.hub.races._starts
        deal, _ = await starts.deal_for(state, clock.ms)
        prepared = await starts.prepare_game(state, host.player_id, deal, record, clock.ms + 1000, clock.ms, _no_room)
        assert prepared.header is not None and prepared.ranked and prepared.header.unlisted == []
        place = f"public/{record.key}/203.0.113.30/0"
        assert await arena.store.get_setting(place) == prepared.header.game_id
        await starts.discard_games([prepared.header])
        assert await arena.store.get_setting(place) is None
        daily, _ = await host.new_game(deal="daily", options={"draw": 1})
        assert daily.ranked and "unlisted" not in daily.model_fields_set


async def _no_room(player_id: str) -> None:
    """The start's room-making, which this test does not need."""


def _session(times: list[int], won: bool) -> Session:
    """A WordLink game whose log holds draws at ``times`` (and, for a won
    one, a result the cadence rule reads as a win)."""
    header = SessionHeader("g_1", "klondike", 1, {"draw": 1}, "p_1", times[0])
    session = Session.replay(header, [Action(ActionKind.MOVE, "draw", at) for at in times])
    if won:
        session.result = engine.WON
    return session


@pytest.mark.parametrize(
    "intervals, won, flagged",
    [
        ([249] * 29, False, True),
        ([250] * 29, False, False),
        ([100] * 28, False, False),
        ([900] * 60, True, True),
        ([900] * 59 + [1001], True, False),
        ([900] * 60, False, False),
        ([2000] * 20 + [10] * 19, False, False),
        ([2000] * 19 + [10] * 20, False, True),
    ],
)
def test_the_cadence_rule_at_its_bounds(intervals: list[int], won: bool, flagged: bool) -> None:
    """At least 30 actions with a median interval under 250 ms, or a win
    with no interval over 1 s, by the server's clock."""
    times = [NOON]
    for interval in intervals:
        times.append(times[-1] + interval)
    assert inhuman(make_settings(), _session(times, won)) is flagged
