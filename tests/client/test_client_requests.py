"""Requests and replies: correlation under concurrency, typed refusals."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import AsyncIterator

import msgpack
import pytest
from tests.server.arena_positions import REPAIRS, broken_deck_two_halves_left
from tests.client.arena_restart import RestartableServer, ServerFactory
from websockets.asyncio.server import ServerConnection, serve
from websockets.typing import Subprotocol

import engine
from client import (
    ArenaClient,
    ArenaError,
    BadNotation,
    BadOption,
    BadToken,
    Forbidden,
    GameFinished,
    GameNotFound,
    HelloRequired,
    IllegalMove,
    ProtocolMismatch,
    RateLimited,
    RequestTimeout,
    StaleState,
    Unavailable,
    UnknownGame,
)
import client.requests as requests_module
from client.errors import ERROR_CLASSES
from client.requests import DAILY_RETRY_CEILING_SECONDS, DAILY_RETRY_FLOOR_SECONDS, ArenaRequests
from protocol import ErrorCode, ServerMessage, codec_for
from protocol import to_client as tc
from protocol import to_server as ts

GAMES = ("klondike", "broken-deck", "laras-game", "chequers")


@pytest.fixture
async def player(arena: RestartableServer, subprotocol: str) -> AsyncIterator[ArenaClient]:
    async with ArenaClient(arena.url, subprotocol=subprotocol, name="ada") as client:
        yield client


async def test_concurrent_requests_each_get_their_own_reply(player: ArenaClient) -> None:
    games = await asyncio.gather(*(player.new_game(game, deal=7) for game in GAMES))
    assert [game.game for game in games] == list(GAMES)
    assert len({game.game_id for game in games}) == len(GAMES)

    first_moves = [game.legal[0] for game in games if game.legal]
    replies = await asyncio.gather(
        *(player.move(game.game_id, move) for game, move in zip(games, first_moves)),
        *(player.list_games(game=name) for name in GAMES),
        *(player.ping() for _ in range(10)),
    )
    diffs, listings = replies[: len(first_moves)], replies[len(first_moves) : len(first_moves) + len(GAMES)]
    for game, diff, move in zip(games, diffs, first_moves):
        assert isinstance(diff, tc.Diff)
        assert diff.game_id == game.game_id and diff.action.text == move and diff.seq == 1 == game.seq
    for name, listing in zip(GAMES, listings):
        assert isinstance(listing, list)
        assert [summary.game for summary in listing] == [name]


async def test_the_catalogue_lists_every_registered_game_with_its_counters(player: ArenaClient) -> None:
    games = await player.catalogue()
    assert [game.game for game in games] == list(engine.GAMES)
    broken_deck = next(game for game in games if game.game == "broken-deck")
    assert [counter.name for counter in broken_deck.counters] == ["repairs"]
    assert all(game.cards > 0 and game.options is not None for game in games)


async def test_a_hint_answers_its_own_request_while_moves_fly(player: ArenaClient) -> None:
    one, two = await asyncio.gather(player.new_game("klondike", deal=3), player.new_game("klondike", deal=4))
    hint, diff = await asyncio.gather(player.hint_reply(one.game_id), player.move(two.game_id, "draw"))
    assert hint.move in (one.legal or []) and hint.confidence is not None
    assert diff.game_id == two.game_id and diff.action.text == "draw"
    assert one.counters["hints"] == 1 and two.counters["hints"] == 0


async def test_refusals_raise_the_class_of_their_code_and_change_nothing(
    player: ArenaClient, arena: RestartableServer, subprotocol: str
) -> None:
    game = await player.new_game("klondike", deal=11)
    game_id = game.game_id
    with pytest.raises(IllegalMove) as refused:
        await player.move(game_id, "t1-t1")
    assert refused.value.code == ErrorCode.ILLEGAL_MOVE and refused.value.reason == "same_pile"
    assert refused.value.game_id == game_id and refused.value.message
    with pytest.raises(BadNotation):
        await player.move(game_id, "t9-t1")
    with pytest.raises(Unavailable) as nothing:
        await player.undo(game_id)
    assert nothing.value.reason == "nothing_to_undo"
    with pytest.raises(UnknownGame):
        await player.new_game("no-such-game")
    with pytest.raises(BadOption):
        await player.new_game("klondike", options={"draw": 2})
    with pytest.raises(GameNotFound):
        await player.watch("g_nothing_here")
    assert game.seq == 0 and game.counters["moves"] == 0

    async with ArenaClient(arena.url, subprotocol=subprotocol) as intruder:
        await intruder.watch(game_id)
        with pytest.raises(Forbidden):
            await intruder.move(game_id, "draw")
    async with ArenaClient(arena.url, subprotocol=subprotocol, identify=False) as anonymous:
        with pytest.raises(HelloRequired):
            await anonymous.new_game("klondike")

    await player.resign(game_id)
    with pytest.raises(GameFinished):
        await player.move(game_id, "draw")
    assert game.finished and game.status == "resigned"


async def test_a_retry_with_the_first_trys_seq_is_refused_as_stale_and_plays_nothing(player: ArenaClient) -> None:
    game = await player.new_game("klondike", deal=11)
    await player.move(game.game_id, "draw", seq=0)
    with pytest.raises(StaleState) as stale:
        await player.move(game.game_id, "draw", seq=0)
    assert stale.value.code == ErrorCode.STALE_STATE and stale.value.game_id == game.game_id
    assert game.seq == 1 and game.counters["moves"] == 1
    assert (await player.move(game.game_id, "draw")).seq == 2, "without seq the mirror's is used"


async def test_an_unknown_token_is_refused_at_start(arena: RestartableServer) -> None:
    client = ArenaClient(arena.url, token="nobody-has-this-token")
    with pytest.raises(BadToken) as refused:
        await client.start()
    assert refused.value.code == "bad_token"
    await client.close()


def test_every_error_code_of_the_protocol_has_its_class() -> None:
    assert set(ERROR_CLASSES) == {code.value for code in ErrorCode}
    assert all(issubclass(kind, ArenaError) and kind is not ArenaError for kind in ERROR_CLASSES.values())
    assert len(set(ERROR_CLASSES.values())) == len(ERROR_CLASSES)


async def test_a_client_paced_by_the_servers_limits_is_never_rate_limited(arena_factory: ServerFactory) -> None:
    arena = await arena_factory(rate_per_second=60.0, rate_burst=6)
    async with ArenaClient(arena.url) as client:
        times = await asyncio.gather(*(client.ping() for _ in range(30)))
    assert len(times) == 30
    assert arena.hub.metrics.registry.get_sample_value("arena_errors_total", {"code": ErrorCode.RATE_LIMITED.value}) == 0


async def test_an_unpaced_burst_gets_rate_limited_on_the_requests_the_server_dropped(arena_factory: ServerFactory) -> None:
    arena = await arena_factory(rate_per_second=1.0, rate_burst=3, rate_strikes=50)
    async with ArenaClient(arena.url, pace=False, timeout=5) as client:
        outcomes = await asyncio.gather(*(client.ping() for _ in range(8)), return_exceptions=True)
    refused = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    assert refused and all(isinstance(outcome, RateLimited) for outcome in refused)
    assert len(refused) == arena.hub.metrics.registry.get_sample_value(
        "arena_errors_total", {"code": ErrorCode.RATE_LIMITED.value}
    )
    assert any(isinstance(outcome, int) for outcome in outcomes)


async def _future_server(connection: ServerConnection) -> None:
    """A server from a later protocol version: it welcomes, then answers
    every request with an error code this client has never heard of, or
    with a reply type it does not know."""
    codec = codec_for(connection.subprotocol)
    async for frame in connection:
        request = codec.decode(frame)
        if request.type == "hello":
            limits = tc.Limits(max_frame_bytes=65536, messages_per_second=100, burst=100)
            reply: dict[str, object] = tc.Welcome(
                id=request.id, player_id="p_1", name="ada", token="t", server_time=0, protocol=2, games=[], limits=limits
            ).model_dump(mode="json")
        elif request.type == "ping":
            reply = tc.Pong(id=request.id, server_time=0).model_dump(mode="json")
        elif request.type == "list_games":
            reply = {"type": "games_with_news", "id": request.id}
        else:
            reply = {"type": "error", "id": request.id, "code": "shiny_new_code", "message": "not today", "extra": 1}
        await connection.send(json.dumps(reply) if codec.text else msgpack.packb(reply), text=codec.text)


async def test_an_unknown_error_code_still_raises_with_its_code(subprotocol: str) -> None:
    async with serve(_future_server, "127.0.0.1", 0, subprotocols=[Subprotocol(subprotocol)]) as future:
        port = future.sockets[0].getsockname()[1]
        async with ArenaClient(f"ws://127.0.0.1:{port}/", subprotocol=subprotocol, timeout=3) as client:
            with pytest.raises(ArenaError) as refused:
                await client.move("g_1", "draw")
            assert type(refused.value) is ArenaError
            assert refused.value.code == "shiny_new_code" and refused.value.message == "not today"
            with pytest.raises(ProtocolMismatch):
                await client.list_games()
            assert await client.ping() == 0


async def test_the_mirror_shows_a_finishing_offer_and_finish_plays_it(player: ArenaClient) -> None:
    game = await player.new_game("broken-deck", position=broken_deck_two_halves_left())
    for move in REPAIRS:
        await player.move(game.game_id, move)
    await game.wait_until(lambda mirror: mirror.can_finish, 10)
    assert game.finish_offer is not None and game.finish_offer.seq == game.seq == len(REPAIRS)
    played = await player.finish(game.game_id)
    assert played and game.seq == len(REPAIRS) + len(played)
    assert not game.can_finish
    await game.wait_until(lambda mirror: mirror.result is not None, 10)
    assert game.result is not None and game.result.result == "won"
    with pytest.raises(GameFinished):
        await player.finish(game.game_id)


async def test_finish_and_analyse_refusals_are_typed(player: ArenaClient) -> None:
    game = await player.new_game("broken-deck", position=broken_deck_two_halves_left())
    with pytest.raises(Unavailable) as early:
        await player.finish(game.game_id)
    assert early.value.reason == "halves_unrepaired"
    with pytest.raises(Unavailable) as live:
        await player.analyse(game.game_id)
    assert live.value.reason == "game_live"
    await player.resign(game.game_id)
    analysis = await player.analyse(game.game_id)
    assert analysis.verdict == "still_winnable" and analysis.line == [] and analysis.solution


class _ScriptedDailies(ArenaRequests):
    """A client whose ``daily`` replies come from a script, one per ask,
    so the pacing of ``daily(ready=True)`` shows without a server."""

    def __init__(self, replies: list[tc.DailyInfo]) -> None:
        self.games, self.races, self.player_id, self.timeout = {}, {}, None, 1.0
        self.replies = replies
        self.asked = 0

    async def _call(self, message: ts.Request, *, gated: bool = True, timeout: float | None = None) -> ServerMessage:
        assert isinstance(message, ts.Daily)
        self.asked += 1
        return self.replies.pop(0)


def _daily_info(*ready_in_ms: int) -> tc.DailyInfo:
    pending = [
        tc.DailyPending(game="klondike", title="Klondike", variant=f"draw {i}", options={"draw": i}, ready_in_ms=ms)
        for i, ms in enumerate(ready_in_ms)
    ]
    return tc.DailyInfo(date="2026-12-02", today="2026-12-02", server_time=0, deals=[], pending=pending)


async def test_daily_ready_asks_again_no_faster_than_the_floor_doubling_to_the_ceiling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A busy server's estimate can already be past (1 ms) while its proof
    still runs: the client then waits the floor, doubling up to the
    ceiling, and a later estimate past the pause is waited in full."""
    pauses: list[float] = []

    async def record(seconds: float) -> None:
        pauses.append(seconds)

    monkeypatch.setattr(requests_module, "asyncio", SimpleNamespace(sleep=record))
    proven = _daily_info()
    client = _ScriptedDailies([_daily_info(1, 1)] * 7 + [_daily_info(1, 9_000), proven])
    assert await client.daily(ready=True) is proven
    assert client.asked == 9, "asked until nothing was pending, then stopped"
    assert pauses == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0, 5.0, 9.0]
    assert pauses[0] == DAILY_RETRY_FLOOR_SECONDS and max(pauses[:-1]) == DAILY_RETRY_CEILING_SECONDS
    assert all(pause >= DAILY_RETRY_FLOOR_SECONDS for pause in pauses)


async def test_daily_ready_gives_up_naming_the_deals_a_stuck_server_still_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server whose proof never ends says "pending" for ever: the client
    stops once its pauses would pass ``ready_within``, not never."""
    pauses: list[float] = []

    async def record(seconds: float) -> None:
        pauses.append(seconds)

    monkeypatch.setattr(requests_module, "asyncio", SimpleNamespace(sleep=record))
    client = _ScriptedDailies([_daily_info(1, 2_000)] * 20)
    with pytest.raises(RequestTimeout, match=r"still proving Klondike draw 0, Klondike draw 1 after 12 s"):
        await client.daily(ready=True, ready_within=12)
    assert pauses == [2.0, 2.0, 2.0, 4.0] and sum(pauses) <= 12 < sum(pauses) + 5.0


async def test_daily_without_ready_returns_the_pending_reply_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    async def never(seconds: float) -> None:
        raise AssertionError(f"paused {seconds} s")

    monkeypatch.setattr(requests_module, "asyncio", SimpleNamespace(sleep=never))
    pending = _daily_info(1)
    client = _ScriptedDailies([pending])
    assert await client.daily() is pending and client.asked == 1
