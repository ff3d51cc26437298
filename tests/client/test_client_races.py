"""Races, the daily challenge and leaderboards through the client library,
against a real server with a short countdown."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import pytest
from tests.client.arena_cli import WAIT_SECONDS
from tests.races.arena_races import DEAL_1_DRAW_1_WIN, pin_daily_deal
from tests.server.arena_servers import aged_token
from tests.client.arena_restart import RestartableServer, ServerFactory, drop_connections

from client import (
    ArenaClient,
    Backoff,
    BadOption,
    ClientState,
    DealSecret,
    Forbidden,
    GameMirror,
    HelloRequired,
    InviteExpired,
    RaceFull,
    RaceMirror,
    RaceNotFound,
    RaceState,
    UnknownGame,
)
from client.connection import MessageFilter
from protocol import ServerMessage
from protocol import to_client as tc

PROOF_SECONDS = 600.0
"""Bounds a hang only, for a host whose start waits on the server proving
a winnable deal: the client's own 10 s ran out beside two burners."""
COUNTDOWN = {"race_countdown_seconds": 1.0, "race_spectator_delay_seconds": 0.2}
OPENING = 10
SLOW_RECONNECT = Backoff(first=0.3, cap=0.3)


def state_of(race: RaceMirror, client: ArenaClient) -> str | None:
    racer = race.racer(client.player_id)
    return racer.state if racer is not None else None


def moves_of(race: RaceMirror, client: ArenaClient) -> int:
    racer = race.racer(client.player_id)
    return racer.moves if racer is not None else -1


async def play(client: ArenaClient, board: GameMirror, moves: tuple[str, ...]) -> None:
    for move in moves:
        await client.move(board.game_id, move)


async def boards_of(race_id: str, *clients: ArenaClient) -> list[GameMirror]:
    """Each racer's board once the countdown is over (``WAIT_SECONDS``
    only bounds a hang: the 5 s it was ran out at load 20 on 2 cores)."""
    return await asyncio.gather(*(client.race_board(race_id, WAIT_SECONDS) for client in clients))


async def countdown_over(race: RaceMirror) -> None:
    """Until the mirror's countdown reads 0.  It counts down on this
    machine's clock from the server time of the last race message, which
    lags by that message's delivery: a board may arrive first."""
    async with asyncio.timeout(WAIT_SECONDS):
        while race.countdown_ms():
            await asyncio.sleep(0.01)


async def test_a_race_between_two_clients_from_the_lobby_to_the_results_and_a_rematch(
    arena_factory: ServerFactory, subprotocol: str
) -> None:
    arena = await arena_factory(**COUNTDOWN)
    async with (
        ArenaClient(arena.url, subprotocol=subprotocol, name="ann") as ann,
        ArenaClient(arena.url, subprotocol=subprotocol, name="bob") as bob,
        ArenaClient(arena.url, subprotocol=subprotocol, identify=False) as ted,
    ):
        race = await ann.create_race("klondike", {"draw": 1}, deal=1)
        code = race.code
        assert code is not None and len(code) == 8
        assert (race.event, race.phase, [r.name for r in race.racers]) == ("created", "lobby", ["ann"])
        assert ann.races == {race.race_id: race} and race.countdown_ms() is None

        joined = await bob.join_race(f"{code[:4]}-{code[4:]}".lower())
        assert joined.race_id == race.race_id and [r.name for r in joined.racers] == ["ann", "bob"]
        await race.wait_until(lambda r: len(r.racers) == 2)
        assert race.event == "joined"
        watched = await ted.watch_race(race.race_id)
        assert watched.code is None and watched.event == "snapshot" and watched.ready

        with joined.updates() as bobs_stream:
            await ann.start_race(race.race_id)
            assert race.phase == "countdown" and 0 < (race.countdown_ms() or 0) <= 1000
            await joined.wait_until(lambda r: r.phase == "countdown")
            bobs_game = joined.game_of(bob.player_id)
            assert bobs_game is not None
            with pytest.raises(RaceState):
                await bob.move(bobs_game, "draw")

            anns_board, bobs_board = await boards_of(race.race_id, ann, bob)
            assert anns_board.seq == bobs_board.seq == 0 and anns_board.view == bobs_board.view
            assert anns_board.clock is not None and race.info is not None
            assert anns_board.clock.started_ms == race.info.starts_at
            await countdown_over(race)
            with pytest.raises(Forbidden):
                await bob.watch(anns_board.game_id)

            await play(ann, anns_board, DEAL_1_DRAW_1_WIN[:OPENING])
            await joined.wait_until(lambda r: moves_of(r, ann) == OPENING)
            rival = joined.racer(ann.player_id)
            assert rival is not None and rival.foundation == anns_board.counters["foundation"] > 0

            await bob.resign(bobs_board.game_id)
            await race.wait_until(lambda r: state_of(r, bob) == "resigned")
            await bobs_board.wait_until(lambda b: b.result is not None)
            assert bobs_board.result is not None and bobs_board.result.deal is None, "the deal stays secret"

            await play(ann, anns_board, DEAL_1_DRAW_1_WIN[OPENING:])
            await watched.wait_until(lambda r: r.finished)
            seen = [update async for update in bobs_stream]

        table = [(row.place, row.name, row.result, row.moves) for row in watched.results or []]
        assert table == [(1, "ann", "won", len(DEAL_1_DRAW_1_WIN)), (None, "bob", "resigned", 0)]
        await race.wait_until(lambda r: r.finished)
        await joined.wait_until(lambda r: r.finished)
        assert race.results == joined.results == watched.results and watched.info is not None
        assert watched.info.deal == 1
        assert isinstance(seen[-1], tc.Race) and seen[-1].event == "finished"
        anns_moves = [u.racer.moves for u in seen if isinstance(u, tc.RaceProgress) and u.racer.name == "ann"]
        assert anns_moves == sorted(anns_moves) and set(anns_moves) == set(range(1, len(DEAL_1_DRAW_1_WIN) + 1))

        history = await bob.list_races()
        assert [(info.race_id, info.phase) for info in history] == [(race.race_id, "finished")]

        again = await bob.rematch(race.race_id)
        assert again.race_id != race.race_id and again.code not in (None, code) and again.phase == "lobby"
        assert again.info is not None and again.info.host.name == "bob" and again.info.deal_kind == "winnable"
        assert [r.name for r in again.racers] == ["bob", "ann"]
        await race.wait_until(lambda r: r.rematch == again.race_id)
        same = await ann.rematch(race.race_id)
        assert same.race_id == again.race_id and ann.races[again.race_id] is same


async def test_race_refusals_raise_the_class_of_their_code_and_change_nothing(arena_factory: ServerFactory) -> None:
    # The countdown must outlast the test, which ends in it: beside two CPU
    # burners the winnable deal's proof once took longer than a 30 s
    # countdown, and the race was running by the time cat asked to watch.
    arena = await arena_factory(race_limit=2, race_countdown_seconds=3600)
    async with (
        ArenaClient(arena.url, name="ann", timeout=PROOF_SECONDS) as ann,
        ArenaClient(arena.url, name="bob") as bob,
        ArenaClient(arena.url, name="cat") as cat,
        ArenaClient(arena.url, identify=False) as anonymous,
    ):
        race = await ann.create_race("klondike", {"draw": 1}, deal="winnable")
        assert race.code is not None
        with pytest.raises(RaceNotFound):
            await bob.join_race("ZZZZZZZZ")
        with pytest.raises(RaceNotFound):
            await bob.watch_race("r_nothing_here")
        with pytest.raises(HelloRequired):
            await anonymous.join_race(race.code)
        with pytest.raises(RaceState):
            await ann.rematch(race.race_id)
        with pytest.raises(UnknownGame):
            await ann.create_race("no-such-game")
        with pytest.raises(BadOption):
            await ann.create_race("klondike", {"draw": 2})
        await bob.join_race(race.code)
        with pytest.raises(RaceFull):
            await cat.join_race(race.code)
        with pytest.raises(Forbidden):
            await bob.start_race(race.race_id)
        assert (race.phase, [r.name for r in race.racers]) == ("lobby", ["ann", "bob"])

        await ann.start_race(race.race_id)
        with pytest.raises(RaceState):
            await ann.start_race(race.race_id)
        with pytest.raises(RaceState):
            await cat.join_race(race.code)
        with pytest.raises(RaceState):
            await cat.watch(race.game_of(ann.player_id) or "")
        assert race.phase == "countdown" and [r.name for r in race.racers] == ["ann", "bob"]


async def test_an_expired_invite_is_refused_with_its_own_class(arena_factory: ServerFactory) -> None:
    arena = await arena_factory(race_invite_seconds=1)
    async with ArenaClient(arena.url, name="ann") as ann, ArenaClient(arena.url, name="bob") as bob:
        race = await ann.create_race("chequers", deal="winnable")
        await asyncio.sleep(1.05)
        with pytest.raises(InviteExpired):
            await bob.join_race(race.code or "")
        assert [r.name for r in race.racers] == ["ann"]


async def test_racers_and_spectators_follow_the_race_again_after_a_dropped_connection(
    arena_factory: ServerFactory,
) -> None:
    arena = await arena_factory(race_countdown_seconds=0.3)
    addressed: dict[str, list[object]] = {"bob": [], "ted": [], "sue": []}

    def note_race_snapshots(who: str) -> MessageFilter:
        def note(message: ServerMessage) -> bool:
            if isinstance(message, tc.Race) and message.event == "snapshot":
                addressed[who].append(message.id)
            return True

        return note

    async with (
        ArenaClient(arena.url, name="ann") as ann,
        ArenaClient(arena.url, name="bob", backoff=SLOW_RECONNECT, message_filter=note_race_snapshots("bob")) as bob,
        ArenaClient(arena.url, identify=False, backoff=SLOW_RECONNECT, message_filter=note_race_snapshots("ted")) as ted,
        ArenaClient(arena.url, name="sue", backoff=SLOW_RECONNECT, message_filter=note_race_snapshots("sue")) as sue,
    ):
        race = await ann.create_race("klondike", {"draw": 1}, deal=1)
        bobs_race = await bob.join_race(race.code or "")
        teds_race, sues_race = await ted.watch_race(race.race_id), await sue.watch_race(race.race_id)
        await ann.start_race(race.race_id)
        anns_board, bobs_board = await boards_of(race.race_id, ann, bob)
        await play(bob, bobs_board, DEAL_1_DRAW_1_WIN[:2])

        with race.updates() as anns_stream:
            for player_id in (bob.player_id, None, sue.player_id):
                drop_connections(arena, player_id)
            await asyncio.gather(*(c.wait_state(ClientState.RECONNECTING) for c in (bob, ted, sue)))
            await asyncio.gather(*(c.wait_open() for c in (bob, ted, sue)))
            assert bob.races[race.race_id] is bobs_race and bob.games[bobs_board.game_id] is bobs_board
            assert bobs_race.board is bobs_board and bobs_board.seq == 2
            await play(bob, bobs_board, DEAL_1_DRAW_1_WIN[2:3])
            bobs_states = []
            async for update in anns_stream:
                if isinstance(update, tc.RaceProgress) and update.racer.name == "bob":
                    bobs_states.append((update.racer.state, update.racer.moves))
                    if update.racer.moves == 3:
                        break
        assert bobs_states[0] == ("disconnected", 2) and bobs_states[-2:] == [("playing", 2), ("playing", 3)]
        for mirror in (teds_race, sues_race):
            await mirror.wait_until(lambda r: moves_of(r, bob) == 3)
            assert mirror.snapshots == 2
        assert addressed["bob"] == [None], "hello itself followed the racer's race again (join said joined)"
        assert all(isinstance(addressed[who][-1], int) for who in ("ted", "sue")), "spectators sent watch_race"


async def test_daily_lists_todays_commitments_and_a_ranked_win_enters_the_leaderboard(arena_factory: ServerFactory) -> None:
    """Through the client library: ann, a player since before the day,
    plays the line at once, so the cadence rule is off on this server (its
    own tests are the server's: tests/server/test_fair_rank.py)."""
    arena = await arena_factory(cadence_median_ms=0, cadence_pause_ms=0)
    today = datetime.now(timezone.utc).date()
    await pin_daily_deal(arena.store, today)
    async with ArenaClient(arena.url, token=await aged_token(arena.store, "ann")) as ann:
        at_once = await ann.daily(game="klondike")
        assert [deal.options.get("draw") for deal in at_once.deals][:1] == [1], "the pinned deal is ready"
        listed = [deal.options["draw"] for deal in at_once.deals] + [p.options["draw"] for p in at_once.pending]
        assert sorted(listed) == [1, 3] and all(p.ready_in_ms > 0 for p in at_once.pending), "draw 3 listed, ready or not"
        info = await ann.daily(game="klondike", ready=True)
        assert info.date == info.today == today.isoformat() and info.pending == []
        assert {deal.options.get("draw") for deal in info.deals} == {1, 3}
        assert all(deal.seed is None and len(deal.commitment) == 64 for deal in info.deals)
        with pytest.raises(Forbidden):
            await ann.daily(today + timedelta(days=2))
        with pytest.raises(BadOption):
            await ann.daily("2026-02-30")

        game = await ann.new_game("klondike", deal="daily", options={"draw": 1})
        assert game.started is not None and game.started.ranked
        await play(ann, game, DEAL_1_DRAW_1_WIN)
        assert game.status == "won"
        page = await ann.leaderboard("klondike", {"draw": 1}, today)
        assert [(e.rank, e.name, e.actions) for e in page.entries] == [(1, "ann", len(DEAL_1_DRAW_1_WIN))]
        assert page.me is not None and page.me.rank == 1 and page.date == today.isoformat()
        assert (await ann.leaderboard("klondike", {"draw": 1}, today, bots=True)).entries == [], "a person ranks apart from bots"
        assert (await ann.leaderboard("klondike", {"draw": 3})).entries == []
        with pytest.raises(BadOption):
            await ann.leaderboard("klondike", {"draw": 2})


async def test_watching_someone_elses_daily_attempt_before_the_reveal_raises_deal_secret(arena: RestartableServer) -> None:
    await pin_daily_deal(arena.store, datetime.now(timezone.utc).date())
    async with ArenaClient(arena.url, name="ann") as ann, ArenaClient(arena.url, identify=False) as stranger:
        game = await ann.new_game("klondike", deal="daily", options={"draw": 1})
        await ann.move(game.game_id, DEAL_1_DRAW_1_WIN[0])
        with pytest.raises(DealSecret) as secret:
            await stranger.watch(game.game_id)
        progress = secret.value.progress
        assert progress.game_id == game.game_id and progress.seq == 1 and progress.actions == 1
        assert game.game_id not in stranger.games, "no board, so no mirror"


async def test_a_race_that_ended_during_an_outage_is_seen_finished_after_the_reconnection(
    arena_factory: ServerFactory,
) -> None:
    arena = await arena_factory(race_countdown_seconds=0.2, race_time_limit_seconds=1)
    away = Backoff(first=3.0, cap=3.0)
    async with (
        ArenaClient(arena.url, name="ann") as ann,
        ArenaClient(arena.url, name="bob", backoff=away) as bob,
        ArenaClient(arena.url, identify=False, backoff=away) as ted,
    ):
        race = await ann.create_race("laras-game", deal=2)
        bobs_race = await bob.join_race(race.code or "")
        teds_race = await ted.watch_race(race.race_id)
        await ann.start_race(race.race_id)
        anns_board, bobs_board = await boards_of(race.race_id, ann, bob)
        with bobs_race.updates() as bobs_stream, teds_race.updates() as teds_stream:
            drop_connections(arena, bob.player_id)
            drop_connections(arena, None)
            await ann.resign(anns_board.game_id)
            await race.wait_until(lambda r: r.finished, timeout=WAIT_SECONDS)
            assert not bobs_race.finished and not teds_race.finished
            await asyncio.gather(bob.wait_open(timeout=WAIT_SECONDS), ted.wait_open(timeout=WAIT_SECONDS))
            for stream in (bobs_stream, teds_stream):
                last = [update async for update in stream][-1]
                assert isinstance(last, tc.Race) and last.event == "snapshot" and last.race.phase == "finished"
        for mirror in (bobs_race, teds_race):
            assert mirror.finished and mirror.results == race.results
        assert {row.name: row.result for row in race.results or []} == {"ann": "resigned", "bob": "abandoned"}
        await bobs_board.wait_until(lambda b: b.finished)
        assert bobs_board.status == "abandoned"
