"""Ghost races in memory, on an injected clock: a friend's finished ranked
daily attempt replayed beside your own at the same offsets from each
first snapshot, at most one update a second; who may be raced and when;
the ends (your finish, the connection's close, ``stop_ghost``, the
limit); bad input; and what an attacker learns from a ghost while the
deal is secret: counts, never a card, a pile or a move, in either codec.
"""

from __future__ import annotations

import json
from typing import Any, AsyncIterator

import pytest
from tests.races.arena_races import DEAL_1_DRAW_1_WIN, PUBLIC_BOARD_RULES_OFF, pin_daily_deal, play_paced
from tests.server.arena_leaks import assert_counts_only, decoded
from tests.server.arena_clock import FakeClock, ManualScheduler
from tests.server.arena_memory import MemoryArena, MemoryClient
from tests.server.arena_servers import make_settings
from tests.server.test_friends import befriend, player
from tests.server.test_pacing import turns_while

from protocol import JSON_SUBPROTOCOL, ErrorCode
from protocol import ghosts as pg
from protocol import leagues as pl
from protocol import to_client as tc
from protocol import to_server as ts
from server.deals.daily import utc_day
from server.games.pacing import CHUNK
from server.social.friends import BLOCKED
from server.storage.social import SocialRecords

KLONDIKE: dict[str, Any] = {"game": "klondike", "options": {"draw": 1}}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def scheduler(clock: FakeClock) -> ManualScheduler:
    return ManualScheduler(clock)


@pytest.fixture(name="arena")
async def paced_arena(clock: FakeClock, scheduler: ManualScheduler) -> AsyncIterator[MemoryArena]:
    async with MemoryArena(make_settings(ghost_limit=2, **PUBLIC_BOARD_RULES_OFF), clock=clock, scheduler=scheduler) as running:
        await pin_daily_deal(running.store, utc_day(clock.ms))
        yield running


async def daily(client: MemoryClient) -> tuple[tc.GameStarted, tc.Snapshot]:
    started, snapshot = await client.new_game(deal="daily", **KLONDIKE)
    assert started.ranked
    return started, snapshot


async def finished_with_draws(client: MemoryClient, clock: FakeClock, at: list[int], end_at: int) -> str:
    """A ranked attempt: a draw at each offset in ``at`` (ms from its first
    snapshot), resigned at ``end_at``."""
    started, _ = await daily(client)
    begun = clock.ms
    for offset in at:
        clock.ms = begun + offset
        assert (await client.request(ts.Move, game_id=started.game_id, move="draw")).type == "diff"
    clock.ms = begun + end_at
    assert (await client.request(ts.Resign, game_id=started.game_id)).type == "diff"
    return started.game_id


async def race(client: MemoryClient, game_id: str, **ghost: Any) -> Any:
    return await client.request(pg.RaceGhost, game_id=game_id, **ghost)


def ghost_updates(client: MemoryClient) -> list[pg.GhostUpdate]:
    return [message for message in client.received if isinstance(message, pg.GhostUpdate)]


async def settled(client: MemoryClient) -> None:
    """Every frame the hub wrote before now has arrived."""
    assert (await client.request(ts.Ping)).type == "pong"


async def players(arena: MemoryArena, *names: str) -> list[MemoryClient]:
    return [await player(arena, name) for name in names]


def refused(reply: Any, reason: str) -> bool:
    return isinstance(reply, tc.Error) and reply.code == ErrorCode.GHOST_UNAVAILABLE and reply.reason == reason


async def test_a_ghost_replays_at_the_same_offsets_at_most_once_a_second(
    arena: MemoryArena, clock: FakeClock, scheduler: ManualScheduler
) -> None:
    ann, bob = await player(arena, "ann"), await player(arena, "bob")
    await befriend(ann, bob)
    await finished_with_draws(ann, clock, [2_000, 2_500, 6_000], 9_000)
    clock.ms += 3_600_000
    started, _ = await daily(bob)
    begun = clock.ms
    reply = await race(bob, started.game_id, player_id=ann.player_id)
    assert reply.type == "ghost", reply
    assert (reply.ghost.player.name, reply.ghost.offset_ms, reply.ghost.actions, reply.ghost.state) == ("ann", 0, 0, "playing")
    assert not reply.ghost.leader
    for _ in range(20):
        scheduler.advance(500)
    await settled(bob)
    shown = [(update.server_time - begun, update.ghost.offset_ms, update.ghost.actions, update.ghost.state)
             for update in ghost_updates(bob)]
    assert shown == [
        (2_000, 2_000, 1, "playing"),
        (3_000, 2_500, 2, "playing"),
        (6_000, 6_000, 3, "playing"),
        (9_000, 9_000, 3, "resigned"),
    ], "each change at its offset; the second within a second of the first waits for that second's end"
    assert arena.hub.ghosts.raced(started.game_id) == 1, "a ghost that ended stays counted"
    assert not [timer for timer in scheduler.timers if not timer.cancelled and timer.due_ms > clock.ms + 60_000]


async def test_a_ghost_asked_late_starts_where_your_clock_is(
    arena: MemoryArena, clock: FakeClock, scheduler: ManualScheduler
) -> None:
    ann, bob = await player(arena, "ann"), await player(arena, "bob")
    await befriend(ann, bob)
    await finished_with_draws(ann, clock, [1_000, 20_000], 30_000)
    started, _ = await daily(bob)
    clock.ms += 5_000
    reply = await race(bob, started.game_id, player_id=ann.player_id)
    assert reply.type == "ghost" and (reply.ghost.offset_ms, reply.ghost.actions) == (1_000, 1), "never further than you"
    scheduler.advance(14_999)
    await settled(bob)
    assert ghost_updates(bob) == []
    scheduler.advance(1)
    assert (await bob.wait_for(lambda m: m.type == "ghost_update")).ghost.actions == 2


async def test_ghosts_are_raced_only_during_your_own_ranked_daily_attempt(arena: MemoryArena, clock: FakeClock) -> None:
    ann, bob = await player(arena, "ann"), await player(arena, "bob")
    await befriend(ann, bob)
    anns = await finished_with_draws(ann, clock, [1_000], 2_000)
    assert refused(await race(bob, anns, player_id=ann.player_id), "attempt_required"), "someone else's attempt"
    assert refused(await race(bob, "g_nothing", player_id=ann.player_id), "attempt_required")
    casual, _ = await bob.new_game(deal=7, **KLONDIKE)
    assert refused(await race(bob, casual.game_id, player_id=ann.player_id), "attempt_required")
    started, _ = await daily(bob)
    await bob.request(ts.Resign, game_id=started.game_id)
    assert refused(await race(bob, started.game_id, player_id=ann.player_id), "attempt_required"), "no ghost after it"
    anonymous = await arena.client()
    assert (await race(anonymous, started.game_id, player_id=ann.player_id)).code == ErrorCode.HELLO_REQUIRED


async def test_only_a_friend_who_finished_may_be_raced(arena: MemoryArena, clock: FakeClock) -> None:
    ann, bob, cat, eve = await players(arena, "ann", "bob", "cat", "eve")
    for friend in (bob, cat):
        await befriend(ann, friend)
    await finished_with_draws(eve, clock, [1_000], 2_000)
    await daily(cat)
    started, _ = await daily(ann)
    assert refused(await race(ann, started.game_id, player_id=eve.player_id), "not_raceable"), "a stranger"
    assert refused(await race(ann, started.game_id, player_id="p_nobody"), "not_raceable"), "unknown reads the same"
    assert refused(await race(ann, started.game_id, player_id=ann.player_id), "not_raceable"), "yourself"
    assert refused(await race(ann, started.game_id, player_id=cat.player_id), "not_finished"), "still playing"
    assert refused(await race(ann, started.game_id, player_id=bob.player_id), "not_finished"), "not started"
    await finished_with_draws(bob, clock, [1_000], 2_000)
    assert (await race(ann, started.game_id, player_id=bob.player_id)).type == "ghost"
    await SocialRecords(arena.store).put_edge(bob.player_id, ann.player_id, BLOCKED, clock.ms, None)
    assert refused(await race(ann, started.game_id, player_id=bob.player_id), "not_raceable"), "a block ends it"


async def test_a_league_mate_may_be_raced_until_one_blocks_the_other_or_leaves(arena: MemoryArena, clock: FakeClock) -> None:
    ann, dan = await players(arena, "ann", "dan")
    league = await ann.request(pl.CreateLeague, name="Lunch", variants=[KLONDIKE])
    assert league.type == "league", league
    await finished_with_draws(dan, clock, [1_000], 2_000)
    started, _ = await daily(ann)
    assert refused(await race(ann, started.game_id, player_id=dan.player_id), "not_raceable"), "not a friend, no league"
    assert (await dan.request(pl.JoinLeague, code=league.league.code)).type == "league"
    assert (await race(ann, started.game_id, player_id=dan.player_id)).type == "ghost", "a league mate"
    await SocialRecords(arena.store).put_edge(dan.player_id, ann.player_id, BLOCKED, clock.ms, None)
    assert refused(await race(ann, started.game_id, player_id=dan.player_id), "not_raceable"), "a block ends it"
    await SocialRecords(arena.store).drop_edge(dan.player_id, ann.player_id)
    assert (await dan.request(pl.LeaveLeague, league_id=league.league.league_id)).type == "leagues"
    assert refused(await race(ann, started.game_id, player_id=dan.player_id), "not_raceable"), "left the league"


async def test_the_days_leader_may_be_raced_by_anyone_they_did_not_block(
    arena: MemoryArena, clock: FakeClock, scheduler: ManualScheduler
) -> None:
    lea, bob, cat = await players(arena, "lea", "bob", "cat")
    cats, _ = await daily(cat)
    assert refused(await race(cat, cats.game_id, leader=True), "no_leader")
    leas, _ = await daily(lea)
    await play_paced(lea, clock, leas.game_id, DEAL_1_DRAW_1_WIN, step_ms=100)
    assert (await lea.wait_for(lambda m: m.type == "game_over")).result == "won"
    bobs, _ = await daily(bob)
    reply = await race(bob, bobs.game_id, leader=True)
    assert reply.type == "ghost" and reply.ghost.leader and reply.ghost.player.name == "lea"
    assert (reply.ghost.state, reply.ghost.cards_home) == ("playing", 0)
    for _ in range(len(DEAL_1_DRAW_1_WIN) // 10 + 1):
        scheduler.advance(1_000)
    last = await bob.wait_for(lambda m: m.type == "ghost_update" and m.ghost.state != "playing")
    assert (last.ghost.state, last.ghost.cards_home, last.ghost.offset_ms) == ("won", 52, 100 * len(DEAL_1_DRAW_1_WIN))
    await SocialRecords(arena.store).put_edge(lea.player_id, cat.player_id, BLOCKED, clock.ms, None)
    assert refused(await race(cat, cats.game_id, leader=True), "not_raceable")


async def test_your_finish_and_your_connection_closing_stop_your_ghosts(
    arena: MemoryArena, clock: FakeClock, scheduler: ManualScheduler
) -> None:
    ann, bob, cat = await players(arena, "ann", "bob", "cat")
    for friend in (bob, cat):
        await befriend(ann, friend)
    await finished_with_draws(ann, clock, [1_000, 5_000, 9_000], 12_000)
    bobs, _ = await daily(bob)
    cats, _ = await daily(cat)
    for client, attempt in ((bob, bobs), (cat, cats)):
        assert (await race(client, attempt.game_id, player_id=ann.player_id)).type == "ghost"
    scheduler.advance(1_000)
    await bob.wait_for(lambda m: m.type == "ghost_update")
    await bob.request(ts.Resign, game_id=bobs.game_id)
    assert arena.hub.ghosts.raced(bobs.game_id) == 0
    await cat.close()
    await cat.closed()
    assert arena.hub.ghosts.raced(cats.game_id) == 0
    scheduler.advance(20_000)
    await settled(bob)
    assert [update.ghost.actions for update in ghost_updates(bob)] == [1], "nothing after bob's resignation"


async def test_an_attempt_races_at_most_ghost_limit_ghosts(arena: MemoryArena, clock: FakeClock) -> None:
    ann, bob, cat, dan = await players(arena, "ann", "bob", "cat", "dan")
    for friend in (bob, cat, dan):
        await befriend(ann, friend)
        await finished_with_draws(friend, clock, [1_000], 2_000)
    started, _ = await daily(ann)
    for friend in (bob, cat):
        assert (await race(ann, started.game_id, player_id=friend.player_id)).type == "ghost"
    assert refused(await race(ann, started.game_id, player_id=dan.player_id), "ghost_limit")
    assert (await race(ann, started.game_id, player_id=bob.player_id)).type == "ghost", "again: not a third"
    stopped = await ann.request(pg.StopGhost, game_id=started.game_id, player_id=bob.player_id)
    assert stopped.type == "ack"
    assert (await race(ann, started.game_id, player_id=dan.player_id)).type == "ghost"
    assert (await ann.request(pg.StopGhost, game_id=started.game_id)).type == "ack"
    assert arena.hub.ghosts.raced(started.game_id) == 0


async def test_bad_input_gets_a_clear_error(arena: MemoryArena) -> None:
    ann = await arena.client(JSON_SUBPROTOCOL)
    await ann.hello(name="ann")
    frames = [
        {"type": "race_ghost", "id": 1, "game_id": "g_1", "player_id": 10**30},
        {"type": "race_ghost", "id": 2, "game_id": "g_1", "player_id": "p" * 65},
        {"type": "race_ghost", "id": 3, "game_id": "g_1", "player_id": "p_1", "leader": True},
        {"type": "race_ghost", "id": 4, "game_id": "g_1"},
        {"type": "race_ghost", "id": 10**30, "game_id": "g_1", "leader": True},
        {"type": "stop_ghost", "id": 5, "game_id": "g" * 65},
    ]
    for frame in frames:
        await ann.send_raw(json.dumps(frame))
        error = await ann.wait_for(lambda m: m.type == "error")
        assert error.code == ErrorCode.BAD_MESSAGE and error.message, frame


async def test_no_ghost_frame_names_a_card_a_pile_or_a_move(
    arena: MemoryArena, clock: FakeClock, scheduler: ManualScheduler, subprotocol: str
) -> None:
    """Ann plays the secret daily move by move, a second apart, and
    resigns; bob, her friend, races her ghost through his own attempt to
    her end; every ghost frame he got, as bytes decoded, holds counts only."""
    ann = await player(arena, "ann")
    bob = await arena.client(subprotocol)
    await bob.hello(name="bob")
    await befriend(ann, bob)
    started, snapshot = await daily(ann)
    piles = set(snapshot.view.piles)
    played: set[str] = set()
    legal = snapshot.legal or []
    for _ in range(12):
        move = next((text for text in legal if text != "draw"), "draw")
        clock.ms += 1_000
        diff = await ann.request(ts.Move, game_id=started.game_id, move=move)
        assert diff.type == "diff", diff
        played.add(move)
        legal = diff.legal or []
    await ann.request(ts.Resign, game_id=started.game_id)
    bobs, _ = await daily(bob)
    assert (await race(bob, bobs.game_id, player_id=ann.player_id)).type == "ghost"
    for _ in range(15):
        scheduler.advance(1_000)
    await bob.wait_for(lambda m: m.type == "ghost_update" and m.ghost.state == "resigned")
    ghost_frames = [frame for frame in decoded(bob.raw) if frame["type"] in ("ghost", "ghost_update")]
    assert len(ghost_frames) == 13
    assert_counts_only(ghost_frames, piles, played)


async def test_a_ghost_is_read_from_the_store_on_any_process(clock: FakeClock, scheduler: ManualScheduler) -> None:
    """Ann plays on one process, bob races her ghost on another: the
    ghost is derived from the shared store, and paced by bob's process."""
    async with MemoryArena(make_settings(), clock=clock, scheduler=scheduler) as here:
        await pin_daily_deal(here.store, utc_day(clock.ms))
        async with MemoryArena(make_settings(), store=here.store, clock=clock, scheduler=scheduler) as there:
            ann, bob = await player(here, "ann"), await player(there, "bob")
            await befriend(ann, bob)
            await finished_with_draws(ann, clock, [1_500], 4_000)
            started, _ = await daily(bob)
            assert (await race(bob, started.game_id, player_id=ann.player_id)).type == "ghost"
            for _ in range(4):
                scheduler.advance(1_000)
            final = await bob.wait_for(lambda m: m.type == "ghost_update" and m.ghost.state == "resigned")
            assert (final.ghost.offset_ms, final.ghost.actions) == (4_000, 1)
            assert [update.ghost.offset_ms for update in ghost_updates(bob)] == [1_500, 4_000]


async def test_a_long_ghost_is_replayed_in_chunks_that_let_others_go(clock: FakeClock, scheduler: ManualScheduler) -> None:
    chunks = 20
    async with MemoryArena(make_settings(**PUBLIC_BOARD_RULES_OFF), clock=clock, scheduler=scheduler) as arena:
        await pin_daily_deal(arena.store, utc_day(clock.ms))
        racer, ann, bob = await players(arena, "racer", "ann", "bob")
        for friend in (ann, bob):
            await befriend(racer, friend)
            await finished_with_draws(friend, clock, [1_000 + n for n in range(chunks * CHUNK)], 90_000)
        started, _ = await daily(racer)
        arena.hub.tables.pacing.slice_seconds = 3600
        unpaced, unpaced_turns = await turns_while(lambda: race(racer, started.game_id, player_id=ann.player_id))
        arena.hub.tables.pacing.slice_seconds = 0
        paced, paced_turns = await turns_while(lambda: race(racer, started.game_id, player_id=bob.player_id))
        assert unpaced.type == paced.type == "ghost", (unpaced, paced)
        assert paced_turns >= unpaced_turns + chunks, "the attempt's replay gave way after each of its chunks"


async def test_ghosts_not_kept_here_are_paid_from_the_addresss_replay_budget(
    clock: FakeClock, scheduler: ManualScheduler
) -> None:
    draws = 60
    settings = make_settings(ghost_limit=5, replay_actions_burst=draws + 20, replay_actions_per_second=0.001,
                             **PUBLIC_BOARD_RULES_OFF)
    async with MemoryArena(settings, clock=clock, scheduler=scheduler) as arena:
        await pin_daily_deal(arena.store, utc_day(clock.ms))
        racer, *friends = await players(arena, "racer", "ann", "bob", "cat")
        for friend in friends:
            await befriend(racer, friend)
            await finished_with_draws(friend, clock, [1_000 + 10 * n for n in range(draws)], 9_000)
        started, _ = await daily(racer)
        ann, bob, cat = friends
        assert (await race(racer, started.game_id, player_id=ann.player_id)).type == "ghost", "within the budget"
        assert (await race(racer, started.game_id, player_id=bob.player_id)).type == "ghost", "into debt, as a watch goes"
        over = await race(racer, started.game_id, player_id=cat.player_id)
        assert isinstance(over, tc.Error) and (over.code, over.reason) == (ErrorCode.UNAVAILABLE, "replay_rate"), over
        again = await race(racer, started.game_id, player_id=ann.player_id)
        assert again.type == "ghost", "a ghost replayed here already costs nothing"
        dan = await player(arena, "dan")
        await befriend(racer, dan)
        await daily(dan)
        assert refused(await race(racer, started.game_id, player_id=dan.player_id), "not_finished"), (
            "an attempt still played is refused as such, whatever the budget"
        )
