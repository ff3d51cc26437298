"""The daily challenge through the protocol: commitments and reveals, the
ranked first attempt, practice afterwards, and the day's leaderboard.

The server is its hub in memory (``MemoryArena``, the memory store):
these are the core's rules.  Its clock is an injected ``FakeClock``
(``arena_clock``), so a test can end a day, or take exactly 90 seconds
over a game, without waiting.
"""

from __future__ import annotations

import asyncio
import hashlib
from datetime import timedelta

import pytest
from tests.races.arena_races import (
    DAY,
    DEAL_1_DRAW_1_WIN,
    KLONDIKE_DRAW_1,
    NOON,
    MemoryArena,
    RecordingClient,
    noon_arena,
    noon_clock,
    pin_daily_deal,
    person,
    play_paced,
    player,
    race_settings,
    ready_daily,
)
from tests.server.arena_clock import FakeClock

import engine
from protocol import ErrorCode
from protocol import to_server as ts
from server.deals.daily import DAY_MS, day_start_ms
from server.deals.keeper import prepare_day
from server.deals.proofs import prove, replays_to_win, secret_seed
from server.runtime.settings import Settings
from server.storage.memory import MemoryStore

__all__ = ["noon_arena", "noon_clock"]

GRACE_SECONDS = 3600
RECYCLE = ("draw",) * 25
"""24 draws and a recycle: WordLink deal 1 back where it began, 25 moves later."""


@pytest.fixture
def arena_settings() -> Settings:
    return race_settings(daily_grace_seconds=GRACE_SECONDS)


async def _first_board(client: RecordingClient, options: dict[str, object]) -> dict[str, object]:
    """The piles of the first snapshot of a daily game (then resigned)."""
    started, snapshot = await client.new_game(deal="daily", options=options)
    await client.request(ts.Resign, game_id=started.game_id)
    return snapshot.view.model_dump(mode="json")["piles"]


async def test_the_commitment_published_today_matches_the_deal_revealed_after_the_day(
    arena: MemoryArena, clock: FakeClock
) -> None:
    """Commit, then reveal: after the day the seed, the nonce and the line
    are shown; the seed deals the board the player saw, the commitment is
    sha256 of them, and the line wins through the checked engine.  The day
    is prepared first, as the server's keeper does the day before."""
    await prepare_day(arena.store, arena.settings, arena.hub.prover, DAY, clock.ms)
    client = await player(arena, "ann")
    today = await client.request(ts.Daily)
    assert today.type == "daily_info" and today.date == today.today == DAY.isoformat()
    assert {(d.game, d.variant) for d in today.deals} == {
        ("klondike", "draw=1,scoring=standard"), ("klondike", "draw=3,scoring=standard"),
        ("broken-deck", "difficulty=relaxed"), ("broken-deck", "difficulty=standard"),
        ("broken-deck", "difficulty=challenge"), ("chequers", "default"), ("laras-game", "default"),
    }
    assert all(d.seed is None and d.nonce is None and d.line is None and len(d.commitment) == 64 for d in today.deals)
    promised = next(d for d in today.deals if d.variant == "draw=3,scoring=standard")
    seen = await _first_board(client, {"draw": 3})

    clock.ms = day_start_ms(DAY + timedelta(days=1)) + GRACE_SECONDS * 1000 - 1
    hidden = await client.request(ts.Daily, date=DAY.isoformat())
    assert hidden.type == "daily_info" and all(d.seed is None for d in hidden.deals)
    clock.ms += 1
    revealed = await client.request(ts.Daily, date=DAY.isoformat(), game="klondike")
    assert revealed.type == "daily_info" and revealed.today == (DAY + timedelta(days=1)).isoformat() and len(revealed.deals) == 2
    shown = next(d for d in revealed.deals if d.variant == "draw=3,scoring=standard")
    assert (shown.commitment, shown.committed_ms) == (promised.commitment, NOON)
    proof = f"klondike/draw=3,scoring=standard/{DAY.isoformat()}/{shown.seed}/{shown.nonce}"
    assert hashlib.sha256(proof.encode()).hexdigest() == shown.commitment
    assert shown.seed is not None and shown.line is not None, "a revealed day shows its seed and line"
    dealt = engine.seeded_game("klondike", int(shown.seed, 16), draw=3).view()["piles"]
    assert dealt == seen
    assert replays_to_win("klondike", {"draw": 3}, int(shown.seed, 16), shown.line)


async def test_tomorrows_commitments_are_published_and_later_days_are_not(arena: MemoryArena) -> None:
    client = await arena.client()
    tomorrow = await client.request(ts.Daily, date=(DAY + timedelta(days=1)).isoformat())
    assert tomorrow.type == "daily_info" and all(d.seed is None for d in tomorrow.deals)
    refusal = await client.request(ts.Daily, date=(DAY + timedelta(days=2)).isoformat())
    assert refusal.type == "error" and refusal.code == ErrorCode.FORBIDDEN and "not committed yet" in refusal.message
    impossible = await client.request(ts.Daily, date="2026-02-30")
    assert impossible.type == "error" and impossible.code == ErrorCode.BAD_OPTION
    await client.close()


def test_without_the_secret_nobody_can_compute_the_seeds() -> None:
    """A seed is an HMAC under the secret: another secret, unrelated seeds,
    each of 64 bits (no table of numbered deals holds them)."""
    labels = [f"daily/klondike/{KLONDIKE_DRAW_1}/{DAY + timedelta(days=n)}" for n in range(50)]
    ours = [secret_seed("our secret", label, 0) for label in labels]
    assert ours == [secret_seed("our secret", label, 0) for label in labels]
    assert not set(ours) & {secret_seed("a guessed secret", label, 0) for label in labels}
    assert max(ours).bit_length() > 60 and len(set(ours)) == len(ours)


async def test_every_process_serves_the_deal_fixed_first(clock: FakeClock) -> None:
    """Two processes with different secrets: the second serves the deal the
    first fixed, not the one its own secret would give."""
    store = MemoryStore()
    secrets = ("one secret", "another secret")
    settings = [race_settings(daily_secret=secret) for secret in secrets]
    async with (
        MemoryArena(settings[0], store=store, clock=clock) as first,
        MemoryArena(settings[1], store=store, clock=clock) as second,
    ):
        here, there = await player(first, "ann"), await player(second, "bob")
        fixed = await _first_board(here, {"draw": 1})
        label = f"daily/klondike/{KLONDIKE_DRAW_1}/{DAY.isoformat()}"
        expected = prove("klondike", {"draw": 1}, secrets[0], label, settings[0].deal_proof_nodes, 50).seed
        assert engine.seeded_game("klondike", expected, draw=1).view()["piles"] == fixed
        assert await _first_board(there, {"draw": 1}) == fixed
        wordlink = {"game": "klondike"}
        days = [await ready_daily(client, **wordlink) for client in (here, there)]
        assert days[0].type == days[1].type == "daily_info" and days[0].deals == days[1].deals


async def test_the_first_daily_attempt_is_ranked_and_later_ones_are_practice(arena: MemoryArena) -> None:
    client = await player(arena, "ann")
    first, _ = await client.new_game(deal="daily", options={"draw": 1})
    assert (first.ranked, first.practice, first.deal_kind) == (True, False, "daily")
    early = await client.request(ts.NewGame, game="klondike", deal="daily", options={"draw": 1}, practice=True)
    assert early.type == "error", "no practice before the ranked attempt ends"
    assert (early.code, early.reason) == (ErrorCode.UNAVAILABLE, "ranked_first")
    await client.request(ts.Resign, game_id=first.game_id)
    second, _ = await client.new_game(deal="daily", options={"draw": 1})
    assert (second.ranked, second.practice) == (False, True)
    await client.request(ts.Resign, game_id=second.game_id)
    other_variant, _ = await client.new_game(deal="daily", options={"draw": 3})
    assert other_variant.ranked
    records = await arena.store.records(client.player_id)
    assert records[f"klondike/{KLONDIKE_DRAW_1}"].games == 1, "the practice attempt recorded nothing"


async def test_two_connections_starting_the_daily_at_once_get_one_ranked_game(arena: MemoryArena) -> None:
    """The claim is atomic: one tab gets the ranked attempt, the other is
    refused until it ends (it would be a practice look at the same deal)."""
    first = await player(arena, "ann")
    second = await arena.client()
    await second.hello(token=first.token)
    replies = await asyncio.gather(
        *(c.request(ts.NewGame, game="chequers", deal="daily") for c in (first, second))
    )
    assert sorted(reply.type for reply in replies) == ["error", "game_started"]
    assert next(reply for reply in replies if reply.type == "game_started").ranked
    assert next(reply for reply in replies if reply.type == "error").reason == "ranked_first"


async def test_a_daily_start_that_died_after_its_claim_is_taken_over_by_the_next(arena: MemoryArena) -> None:
    """A start killed between the claim and its game leaves a claim naming
    the attempt's game id (``DailyRecord.attempt_id``) and no game: the
    player's next start is that ranked attempt, never a lockout."""
    record = await pin_daily_deal(arena.store, DAY)
    client = await player(arena, "ann")
    attempt = record.attempt_id(client.player_id)
    await arena.store.setting(f"ranked/{record.key}/{client.player_id}", attempt, keep_seconds=3600)
    assert await arena.store.load_session(attempt) is None

    started, _ = await client.new_game(deal="daily", options={"draw": 1})
    assert (started.ranked, started.game_id) == (True, attempt)
    assert await arena.store.load_session(attempt) is not None, "the claim names a stored game"
    again = await client.request(ts.NewGame, game="klondike", deal="daily", options={"draw": 1})
    assert again.type == "error"
    assert again.reason == "ranked_first", "the attempt is taken once stored"


async def test_a_daily_start_under_way_elsewhere_is_refused_not_doubled(arena: MemoryArena) -> None:
    """A start that holds the attempt's lease (another connection's, under
    way or killed less than a lease ago) keeps this one from creating the
    same game a second time."""
    record = await pin_daily_deal(arena.store, DAY)
    client = await player(arena, "ann")
    attempt = record.attempt_id(client.player_id)
    await arena.store.setting(f"ranked/{record.key}/{client.player_id}", attempt, keep_seconds=3600)
    await arena.store.setting(f"starting/{attempt}", "s_other", keep_seconds=30)
    refused = await client.request(ts.NewGame, game="klondike", deal="daily", options={"draw": 1})
    assert refused.type == "error"
    assert (refused.code, refused.reason) == (ErrorCode.UNAVAILABLE, "ranked_first")
    assert "another connection" in refused.message
    assert await arena.store.load_session(attempt) is None, "nothing was started"


async def test_a_daily_variant_without_a_daily_deal_is_refused(arena: MemoryArena) -> None:
    client = await player(arena, "ann")
    refusal = await client.request(ts.NewGame, game="klondike", deal="daily", options={"scoring": "vegas"})
    assert refusal.type == "error" and refusal.code == ErrorCode.BAD_OPTION and "daily variants are" in refusal.message


async def _win_daily(arena: MemoryArena, clock: FakeClock, name: str, seconds: int, detour: bool) -> RecordingClient:
    """Win the (pinned) daily deal taking exactly ``seconds`` on the
    server's clock, at a person's pace, with 25 more moves when
    ``detour``, as a player who existed before the day."""
    client = await person(arena, clock, name)
    started, _ = await client.new_game(deal="daily", options={"draw": 1})
    assert started.ranked and "unlisted" not in started.model_fields_set
    moves = (RECYCLE if detour else ()) + DEAL_1_DRAW_1_WIN
    first_at = clock.ms
    reply = await play_paced(client, clock, started.game_id, moves, last_at=first_at + seconds * 1000)
    assert reply.status == "won"
    clock.ms = first_at
    return client


async def test_the_daily_leaderboard_ranks_by_time_then_actions(arena: MemoryArena, clock: FakeClock) -> None:
    await pin_daily_deal(arena.store, DAY)
    slow_long = await _win_daily(arena, clock, "slow-long", 100, detour=True)
    await _win_daily(arena, clock, "slow-short", 100, detour=False)
    await _win_daily(arena, clock, "fast-long", 90, detour=True)
    page = await slow_long.request(ts.Leaderboard, game="klondike", options={"draw": 1}, date=DAY.isoformat())
    assert page.type == "leaderboard", page
    assert [(e.rank, e.name, e.time_ms, e.actions) for e in page.entries] == [
        (1, "fast-long", 90_000, 153),
        (2, "slow-short", 100_000, 128),
        (3, "slow-long", 100_000, 153),
    ]
    assert page.me is not None and page.me.rank == 3
    second = await slow_long.request(ts.Leaderboard, game="klondike", options={"draw": 1}, offset=1, limit=1)
    assert second.type == "leaderboard" and [e.name for e in second.entries] == ["slow-short"] and second.date == DAY.isoformat()
    around = await slow_long.request(ts.Leaderboard, game="klondike", options={"draw": 1}, limit=2, around_me=True)
    assert around.type == "leaderboard" and around.offset == 1 and [e.name for e in around.entries] == ["slow-short", "slow-long"]
    other = await slow_long.request(ts.Leaderboard, game="klondike", options={"draw": 3})
    assert other.type == "leaderboard" and other.entries == [] and other.board == f"klondike/draw=3,scoring=standard/{DAY.isoformat()}"


async def test_a_ranked_win_after_the_reveal_is_recorded_but_not_ranked(arena: MemoryArena, clock: FakeClock) -> None:
    await pin_daily_deal(arena.store, DAY)
    client = await player(arena, "night owl")
    started, _ = await client.new_game(deal="daily", options={"draw": 1})
    clock.ms = day_start_ms(DAY + timedelta(days=1)) + GRACE_SECONDS * 1000
    for move in DEAL_1_DRAW_1_WIN:
        reply = await client.request(ts.Move, game_id=started.game_id, move=move)
    assert reply.type == "diff" and reply.status == "won"
    page = await client.request(ts.Leaderboard, game="klondike", options={"draw": 1}, date=DAY.isoformat())
    assert page.type == "leaderboard" and page.entries == [] and page.me is None
    assert (await arena.store.records(client.player_id))[f"klondike/{KLONDIKE_DRAW_1}"].wins == 1



async def test_a_daily_game_is_analysed_once_its_day_is_revealed(arena: MemoryArena, clock: FakeClock) -> None:
    await pin_daily_deal(arena.store, DAY)
    client = await player(arena, "curious")
    started, _ = await client.new_game(deal="daily", options={"draw": 1})
    await client.request(ts.Move, game_id=started.game_id, move=DEAL_1_DRAW_1_WIN[0])
    await client.request(ts.Resign, game_id=started.game_id)
    secret = await client.request(ts.Analyse, game_id=started.game_id)
    assert secret.type == "error" and secret.reason == "deal_secret"
    clock.ms = day_start_ms(DAY + timedelta(days=1)) + GRACE_SECONDS * 1000
    analysis = await client.request(ts.Analyse, game_id=started.game_id)
    assert analysis.type == "analysis" and analysis.line == [DEAL_1_DRAW_1_WIN[0]]


async def test_a_leaderboard_of_a_date_that_does_not_exist_is_refused(arena: MemoryArena) -> None:
    client = await arena.client()
    refusal = await client.request(ts.Leaderboard, game="klondike", options={"draw": 1}, date="2026-13-45")
    assert refusal.type == "error" and refusal.code == ErrorCode.BAD_OPTION and "not a date" in refusal.message
    await client.close()


async def test_a_declared_bot_ranks_on_the_bots_board_not_the_peoples(arena: MemoryArena, clock: FakeClock) -> None:
    """Bots are welcome, declared: their ranked wins have a board of their own."""
    await pin_daily_deal(arena.store, DAY)
    bot = await arena.client(address="203.0.113.9")
    clock.ms -= DAY_MS
    welcome = await bot.request(ts.Hello, name="robot", bot=True)
    clock.ms += DAY_MS
    assert welcome.type == "welcome"
    started, _ = await bot.new_game(deal="daily", options={"draw": 1})
    assert started.ranked
    for move in DEAL_1_DRAW_1_WIN:
        reply = await bot.request(ts.Move, game_id=started.game_id, move=move)
    assert reply.type == "diff" and reply.status == "won"
    await _win_daily(arena, clock, "person", 100, detour=False)
    people = await bot.request(ts.Leaderboard, game="klondike", options={"draw": 1}, date=DAY.isoformat())
    bots = await bot.request(ts.Leaderboard, game="klondike", options={"draw": 1}, date=DAY.isoformat(), bots=True)
    assert people.type == bots.type == "leaderboard"
    assert [e.name for e in people.entries] == ["person"]
    assert [e.name for e in bots.entries] == ["robot"] and bots.board.endswith("/bots")


async def test_an_undo_never_improves_a_rank(arena: MemoryArena, clock: FakeClock) -> None:
    """Ranking counts every action: a draw taken back costs two, where the
    engine's move counter would forget it."""
    await pin_daily_deal(arena.store, DAY)
    client = await person(arena, clock, "undoer")
    started, _ = await client.new_game(deal="daily", options={"draw": 1})
    await client.request(ts.Move, game_id=started.game_id, move="draw")
    await client.request(ts.Undo, game_id=started.game_id)
    reply = await play_paced(client, clock, started.game_id, DEAL_1_DRAW_1_WIN, last_at=clock.ms + 200_000)
    assert reply.status == "won" and reply.counters["moves"] == len(DEAL_1_DRAW_1_WIN)
    page = await client.request(ts.Leaderboard, game="klondike", options={"draw": 1}, date=DAY.isoformat())
    assert page.type == "leaderboard" and [e.actions for e in page.entries] == [len(DEAL_1_DRAW_1_WIN) + 2]
