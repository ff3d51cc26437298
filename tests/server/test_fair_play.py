"""Fair play, tried as an attacker would with the public code and docs:
look the ranked deal up from its first board, have the server play it,
read it from a frame, watch someone else's board, study it off the clock.

The server's core in memory (``tests.server.arena_memory``): every one
of these is a rule the core decides, and the frames checked are the bytes
it writes, over both codecs; the memory store.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from tests.server.arena_clock import FakeClock
from tests.server.arena_memory import MemoryArena
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import RecordingClient

import engine
from engine.cards import CODE, full_deck
from engine.rng import fnv1a64
from protocol import ErrorCode
from protocol import to_server as ts
from server.deals.daily import daily_variants, RECORD_KIND, DailyRecord
from server.deals.proofs import seed_text
from server.deals.pools import verified_deals

SCANNED_DEALS = 1_000_000
"""Numbered WordLink deals an attacker tabulates: 1 to 1,000,000."""
FACE_UP_POSITIONS = (0, 7, 13, 18, 22, 25, 27)
"""Where WordLink's seven face-up cards lie in the shuffle (row by row, left to right)."""


def _face_up_keys(seed_base: int, count: int) -> "np.ndarray[Any, np.dtype[np.int64]]":
    """The seven face-up cards of WordLink deals 1 to ``count``, packed in
    one number per deal (row ``n - 1`` for deal ``n``): the public shuffle
    (docs/notation.md) run on every deal at once, so a million deals take
    seconds, as the attacker's own table would."""
    state = np.uint64(seed_base) ^ np.arange(1, count + 1, dtype=np.uint64)
    cards = np.tile(np.arange(52, dtype=np.uint8), (count, 1))
    rows = np.arange(count)
    for i in range(51, 0, -1):
        bound = i + 1
        limit = (1 << 64) - ((1 << 64) % bound)
        z = np.zeros(count, dtype=np.uint64)
        drawing = np.ones(count, dtype=bool)
        while drawing.any():
            state[drawing] += np.uint64(0x9E3779B97F4A7C15)
            mixed = state[drawing]
            mixed = (mixed ^ (mixed >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            mixed = (mixed ^ (mixed >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z[drawing] = mixed ^ (mixed >> np.uint64(31))
            drawing &= (z >= np.uint64(limit)) if limit < 1 << 64 else False
        j = (z % np.uint64(bound)).astype(np.intp)
        taken = cards[rows, j]
        cards[rows, j] = cards[:, i]
        cards[:, i] = taken
    return _pack(cards[:, FACE_UP_POSITIONS])


def _pack(face_up: "np.ndarray[Any, Any]") -> "np.ndarray[Any, np.dtype[np.int64]]":
    """Seven card indices (0-51, in ``full_deck()`` order) as one number per row."""
    weights = 52 ** np.arange(len(FACE_UP_POSITIONS), dtype=np.int64)
    return (face_up.astype(np.int64) * weights).sum(axis=-1)


def _pack_codes(boards: list[tuple[str, ...]]) -> "np.ndarray[Any, np.dtype[np.int64]]":
    """``_pack`` of face-up cards as a view names them (``_face_up``)."""
    index = {CODE[card]: n for n, card in enumerate(full_deck())}
    return _pack(np.array([[index[code] for code in board] for board in boards]))


def _face_up(view: dict[str, Any]) -> tuple[str, ...]:
    return tuple(view["piles"][f"t{n}"]["up"][0] for n in range(1, 8))


def _visible(view: dict[str, Any]) -> dict[str, list[str]]:
    """What a first board shows: the face-up cards of every pile."""
    return {name: pile["up"] for name, pile in view["piles"].items()}


async def _ranked_daily(client: RecordingClient, game: str, options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    started, snapshot = await client.new_game(game, deal="daily", options=options)
    assert started.ranked, "a new player's first daily game is its ranked attempt"
    return started, snapshot.view.model_dump(mode="json")


async def test_no_public_table_identifies_a_ranked_deal_from_its_first_board(arena: MemoryArena) -> None:
    """The lookup that won the ranked daily in 10.5 s: every public pool,
    and WordLink deals 1 to 1,000,000 of the generator, matched by the
    first board.  Nothing matches; the same scan finds numbered deals."""
    boards: dict[tuple[str, str], dict[str, Any]] = {}
    for game_id, options in daily_variants():
        client = await arena.client()
        await client.hello()
        _, boards[(game_id, str(options))] = await _ranked_daily(client, game_id, options)
    for game_id, options in daily_variants():
        first = _visible(boards[(game_id, str(options))])
        for deal in verified_deals(game_id, options):
            assert _visible(engine.new_game(game_id, deal, **options).view()) != first, (game_id, deal)

    targets = {_face_up(boards[("klondike", str(options))]) for game_id, options in daily_variants() if game_id == "klondike"}
    table = _face_up_keys(fnv1a64("klondike"), SCANNED_DEALS)
    assert len(np.unique(table)) > SCANNED_DEALS * 0.99, "seven face-up cards tell numbered deals apart"
    numbered = _pack_codes([_face_up(engine.new_game("klondike", 777_777).view())])
    assert 777_777 in np.flatnonzero(table == numbered[0]) + 1, "the scan finds numbered deals"
    assert not np.isin(_pack_codes(list(targets)), table).any(), "a ranked deal's first board is in the attacker's table"


async def test_the_server_does_not_play_a_ranked_attempt_for_you(arena: MemoryArena, subprotocol: str) -> None:
    """A hint bot and automatic finishing are refused, reason ``ranked``;
    undo stays allowed."""
    for game_id, options in (("klondike", {"draw": 3}), ("broken-deck", {"difficulty": "relaxed"})):
        client = await arena.client(subprotocol)
        await client.hello()
        started, _ = await _ranked_daily(client, game_id, options)
        for request in (ts.Hint, ts.Finish):
            refused = await client.request(request, game_id=started.game_id)
            assert refused.type == "error" and (refused.code, refused.reason) == (ErrorCode.UNAVAILABLE, "ranked"), request
        assert not [m for m in client.received if m.type in ("hint", "finish_offer")]


async def test_nothing_names_a_ranked_deal_before_its_reveal(arena: MemoryArena, subprotocol: str) -> None:
    """Every frame a ranked attempt and a practice attempt after it send
    (game_over, records, leaderboards, the daily, the games list), in both
    codecs, holds neither the seed (in decimal or hex) nor the nonce."""
    client = await arena.client(subprotocol)
    await client.hello()
    ranked, _ = await _ranked_daily(client, "klondike", {"draw": 1})
    await client.request(ts.Move, game_id=ranked.game_id, move="draw")
    await client.request(ts.Resign, game_id=ranked.game_id)
    practice, _ = await client.new_game("klondike", deal="daily", options={"draw": 1}, practice=True)
    assert practice.practice and not practice.ranked
    await client.request(ts.Resign, game_id=practice.game_id)
    overs = [await client.wait_for(lambda m, g=g: m.type == "game_over" and m.game_id == g) for g in (ranked.game_id, practice.game_id)]
    assert [over.deal for over in overs] == [None, None]
    for request, fields in ((ts.Records, {}), (ts.Daily, {}), (ts.ListGames, {}),
                            (ts.Leaderboard, {"game": "klondike", "options": {"draw": 1}}),
                            (ts.Analyse, {"game_id": ranked.game_id})):
        await client.request(request, **fields)
    stored_session = await arena.store.load_session(ranked.game_id)
    assert stored_session is not None
    seed = stored_session[0].seed
    assert seed is not None
    daily = await client.request(ts.Daily)
    assert daily.type == "daily_info", daily
    day = daily.today
    stored = await arena.store.get_setting(f"{RECORD_KIND}/klondike/draw=1,scoring=standard/{day}")
    record = DailyRecord.from_dict(json.loads(stored or "{}"))
    assert record.seed == seed
    frames = [frame if isinstance(frame, str) else frame.decode("latin-1") for frame in client.raw]
    for secret in (str(seed), seed_text(seed), record.nonce):
        assert not [frame for frame in frames if secret in frame], f"a frame names {secret}"


async def test_a_spectator_of_a_ranked_daily_game_sees_progress_never_a_card(
    arena: MemoryArena, subprotocol: str
) -> None:
    owner = await arena.client()
    await owner.hello()
    started, _ = await _ranked_daily(owner, "klondike", {"draw": 1})
    listed = await (await arena.client()).request(ts.ListGames)
    assert listed.type == "games" and started.game_id in [game.game_id for game in listed.games], "the game is listed, its board is not shown"
    anonymous = await arena.client(subprotocol)
    watched = await anonymous.request(ts.Watch, game_id=started.game_id)
    assert watched.type == "progress" and (watched.seq, watched.actions) == (0, 0)
    assert (await anonymous.request(ts.Resync, game_id=started.game_id)).type == "progress"
    signed_in = await arena.client(subprotocol)
    await signed_in.hello()
    assert (await signed_in.request(ts.Watch, game_id=started.game_id)).type == "progress"
    await owner.request(ts.Move, game_id=started.game_id, move="draw")
    for viewer in (anonymous, signed_in):
        told = await viewer.wait_for(lambda m: m.type == "progress" and m.seq == 1)
        assert told.actions == 1 and told.status == "playing"
        assert not [m for m in viewer.received if m.type in ("snapshot", "diff")]


async def test_progress_of_a_secret_deal_carries_the_counts_its_game_declares(
    arena: MemoryArena, subprotocol: str
) -> None:
    """Broken Deck's repairs, as a race shows them of its racers; WordLink
    declares none."""
    for game_id, options, counters in (
        ("broken-deck", {"difficulty": "relaxed"}, {"repairs": 0}),
        ("klondike", {"draw": 3}, {}),
    ):
        owner = await arena.client()
        await owner.hello()
        started, _ = await _ranked_daily(owner, game_id, options)
        watched = await (await arena.client(subprotocol)).request(ts.Watch, game_id=started.game_id)
        assert watched.type == "progress" and watched.counters == counters, watched


async def test_the_clock_of_a_ranked_attempt_starts_with_its_first_snapshot() -> None:
    """Studying the board before the first move is on the clock."""
    clock = FakeClock()
    async with MemoryArena(make_settings(), clock=clock) as arena:
        client = await arena.client()
        await client.hello()
        started, snapshot = await client.new_game("klondike", deal="daily", options={"draw": 1})
        assert snapshot.clock.started_ms == clock.ms
        clock.ms += 12_900
        moved = await client.request(ts.Move, game_id=started.game_id, move="draw")
        assert moved.type == "diff" and moved.clock.elapsed_ms == 12_900


@pytest.mark.parametrize("practice", [True, False])
async def test_todays_daily_cannot_be_practised_before_the_ranked_attempt_ends(arena: MemoryArena, practice: bool) -> None:
    """One ranked attempt per player, game, variant and day, and no
    practice look at the deal while it runs (a second tab included)."""
    client = await arena.client()
    await client.hello()
    ranked, _ = await _ranked_daily(client, "chequers", {})
    refused = await client.request(ts.NewGame, game="chequers", deal="daily", practice=practice)
    assert refused.type == "error" and (refused.code, refused.reason) == (ErrorCode.UNAVAILABLE, "ranked_first")
    await client.request(ts.Resign, game_id=ranked.game_id)
    later, _ = await client.new_game("chequers", deal="daily", practice=practice)
    assert later.practice and not later.ranked
