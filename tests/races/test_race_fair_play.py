"""Who ranks in a race, and a start that dies half-way: the server's
rules in memory, over both codecs.  The same attack scripts run over
sockets on one and two processes in
``tests/integration/test_race_fair_play_processes``."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import AsyncIterator

import pytest
from tests.races.arena_races import pin_daily_deal, player, race_settings
from tests.races.race_fair_play import DRAW_1, automatic_moves_refused, blocked_start, known_deal_race
from tests.server.arena_clock import FakeClock
from tests.server.arena_fixtures import subprotocol
from tests.server.arena_memory import MemoryArena
from tests.server.arena_positions import NEARLY_WON_KLONDIKE

import engine
from protocol import to_server as ts
from server.model.fair_play import counted_actions
from server.deals.claims import ranked_attempt
from server.races.desk import ORPHAN_AGE_MS
from server.races.start import race_game_id
from server.model.session import Session
from server.model.records import Action, SessionHeader

__all__ = ["subprotocol"]


@pytest.fixture
async def pinned() -> AsyncIterator[MemoryArena]:
    async with MemoryArena(race_settings()) as running:
        await pin_daily_deal(running.store, datetime.now(timezone.utc).date())
        yield running


async def test_a_racer_who_knew_the_daily_deal_is_never_placed_above_one_who_did_not(
    pinned: MemoryArena, subprotocol: str
) -> None:
    await known_deal_race(await player(pinned, "x", subprotocol), await player(pinned, "y", subprotocol))


async def test_a_live_ranked_attempt_sits_its_racer_out_and_the_race_starts_for_the_others(
    pinned: MemoryArena, subprotocol: str
) -> None:
    await blocked_start(await player(pinned, "ann", subprotocol), await player(pinned, "bob", subprotocol))


async def test_automatic_moves_are_refused_where_a_result_ranks(pinned: MemoryArena, subprotocol: str) -> None:
    await automatic_moves_refused(await player(pinned, "ann", subprotocol))


def test_a_move_the_game_makes_by_itself_counts_as_an_action() -> None:
    """A game stored with ``auto_collect`` on (before it was refused where
    it ranks) pays for what it played by itself: one move by the player,
    one by the game, two actions."""
    position = NEARLY_WON_KLONDIKE.replace("auto_collect=false", "auto_collect=true")
    header = SessionHeader(game_id="g_1", game="klondike", deal=1, options={}, owner="p_1", created_ms=0, position=position)
    session = Session.replay(header, [Action("move", "t1-fc", 1)])
    assert session.moves == 2 and session.automatic_moves == 1
    assert counted_actions(session) == 2
    manual = Session.replay(
        SessionHeader(game_id="g_2", game="klondike", deal=1, options={}, owner="p_1", created_ms=0, position=NEARLY_WON_KLONDIKE),
        [Action("move", "t1-fc", 1), Action("move", "t1-fc", 2)],
    )
    assert counted_actions(manual) == 2 and engine.from_text("klondike", position).options["auto_collect"]


async def test_a_start_that_died_after_its_claims_is_taken_over_or_given_back() -> None:
    """A start that stored a racer's game and its ranked claim, then died
    before the ledger took the start, leaves a claim on an unplayed game.
    Starting again takes that game over (same id, still ranked); and if
    nobody starts again, the racer's next hello after the orphan age gives
    the claim back, so their own daily is ranked."""
    clock = FakeClock()
    async with MemoryArena(race_settings(), clock=clock) as arena:
        today = datetime.fromtimestamp(clock() / 1000, timezone.utc).date()
        record = await pin_daily_deal(arena.store, today)
        ann, bob = await player(arena, "ann"), await player(arena, "bob")
        created = await ann.request(ts.CreateRace, game="klondike", options=DRAW_1, deal="daily")
        assert created.type == "race"
        race_id = created.race.race_id
        await bob.request(ts.JoinRace, code=created.race.code)
        state = arena.hub.races.ledgers.rooms[race_id].state
        starts = arena.hub.races._starts
        deal, _ = await starts.deal_for(state, clock())
        for racer in (ann, bob):
            await starts.prepare_game(state, racer.player_id, deal, record, clock() + 1000, clock(), _no_room)
            assert await ranked_attempt(arena.store, record.key, racer.player_id) == race_game_id(race_id, racer.player_id)

        clock.ms += ORPHAN_AGE_MS + 1
        back = await arena.client()
        welcome = await back.request(ts.Hello, token=bob.token)
        assert welcome.type == "welcome" and welcome.games == [], "the dead start's game is dropped"
        assert await ranked_attempt(arena.store, record.key, bob.player_id) is None, "and its claim given back"
        daily, _ = await back.new_game(deal="daily", options=DRAW_1)
        assert daily.ranked, "bob's own daily is his ranked attempt"

        started = await ann.request(ts.StartRace, race_id=race_id)
        assert started.type == "race" and started.event == "started", started
        entries = {racer.player_id: racer for racer in started.race.racers}
        assert entries[ann.player_id].game_id == race_game_id(race_id, ann.player_id)
        assert (entries[ann.player_id].ranked, entries[ann.player_id].apart) == (True, None)
        assert (entries[bob.player_id].game_id, entries[bob.player_id].apart) == (None, "ranked_first")


async def _no_room(player_id: str) -> None:
    """The start's room-making, which this test does not need."""
