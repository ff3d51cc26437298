"""Nothing a player or a spectator is sent depends on a face-down card.

Two games whose face-down cards differ only where the player never sees
them must look the same in every frame, field by field: otherwise a
status, a legal move, a counter or a score tells the player (or anyone
watching) something about those cards.  Hypothesis picks the game, the
deal, some random play to a start and a script of requests (moves, taps,
undo, redo, restart, hints, finishing, resigning).  The script is played
through the server in memory (``tests/server/arena_memory.py``), which
shows which face-down cards it never turns up; those are shuffled among
their places, and the same requests are played again from that twin
start.  Every frame the player and a spectator receive, and what the
server builds for others after each step (a snapshot, the ``progress``
a viewer of a secret deal gets, a racer's row, the ``game_over``), must
be equal, the ids the server makes up aside.

The attack that moved this test: two WordLink boards alike but for their
face-down stock gave ``playing`` with ``draw`` against ``lost`` with
nothing.  It is played here in memory, against a game that still reads
the stock (the test's teeth), and over the wire with both codecs, where
a spectator who may not see the board follows its ``progress``.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from tests.engine.klondike_positions import DEAD_STOCK, LIVE_STOCK, blocked_boards, lost_seeing_every_card
from tests.server.arena_clock import FakeClock
from tests.server.arena_memory import MemoryArena
from tests.server.arena_servers import ClientFactory, make_settings
from tests.server.arena_wire import RecordingClient

import engine
from engine.descriptor import GameDescriptor, Lobby
from engine.game import Game, Position
from engine.games import registered
from engine.games.klondike import Klondike
from protocol import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL
from protocol import to_server as ts
from server.transport.app import ArenaServer
from server.races.state import Progress
from server.model.records import SessionHeader

GAMES: list[tuple[str, dict[str, Any]]] = [
    ("klondike", {"draw": 1}),
    ("klondike", {"draw": 3}),
    ("laras-game", {}),
    ("chequers", {}),
    ("broken-deck", {}),
]
STEP_MS = 1_500
"""The clock moves on this much before each request, so time shows in
scores and clocks, the same in both runs."""

Request = tuple[type[ts.GameRequest], dict[str, Any]]
Script = Callable[[int, Game], Request | None]


@dataclass
class Played:
    """One run of a script: the requests as sent, the cards it showed, and
    every frame, with the server's made-up ids replaced by names."""

    requests: list[Request] = field(default_factory=list)
    seen: set[int] = field(default_factory=set)
    player: list[Any] = field(default_factory=list)
    spectator: list[Any] = field(default_factory=list)
    built: list[Any] = field(default_factory=list)


def faces(pos: Position) -> set[int]:
    return {card for cards, down in zip(pos.piles, pos.down) for card in cards[down:]}


def named(data: Any, names: dict[str, str]) -> Any:
    """``data`` with every string that is a key of ``names`` replaced."""
    if isinstance(data, str):
        return names.get(data, data)
    if isinstance(data, dict):
        return {named(key, names): named(value, names) for key, value in data.items()}
    if isinstance(data, list):
        return [named(item, names) for item in data]
    return data


def frames(client: RecordingClient, start: int, names: dict[str, str]) -> list[Any]:
    return [named(message.model_dump(mode="json"), names) for message in client.received[start:]]


async def play(text: str, game_id: str, script: Script) -> Played:
    """Play ``script`` from the position ``text`` as a practice game, watched
    by a spectator on the other codec; see the module docstring."""
    clock = FakeClock()
    played = Played()
    async with MemoryArena(make_settings(hint_burst=1_000), clock=clock, monotonic=clock.seconds) as arena:
        player = await arena.client(MSGPACK_SUBPROTOCOL)
        spectator = await arena.client(JSON_SUBPROTOCOL)
        await player.hello(name="Player")
        await spectator.hello(name="Spectator")
        marks = len(player.received), len(spectator.received)
        started, _ = await player.new_game(game_id, position=text)
        room = arena.hub.rooms[started.game_id]

        async def settle() -> None:
            """Wait for what the last request set going: the spectator's
            diffs, and a search for a finishing path, whose offer would
            otherwise arrive in either run at a different place."""
            if room.session.seq and not any(m.type == "diff" and m.seq == room.session.seq for m in spectator.received):
                await spectator.wait_for(lambda m, n=room.session.seq: m.type == "diff" and m.seq == n)
            if room.finish_search is not None:
                await asyncio.shield(room.finish_search)
            await spectator.request(ts.Ping)

        await spectator.request(ts.Watch, game_id=started.game_id)
        await settle()
        names = {started.game_id: "game", player.player_id: "player", spectator.player_id: "spectator"}
        played.seen = faces(room.session.game.position)
        step = 0
        while (request := script(step, room.session.game)) is not None:
            kind, fields = request
            clock.ms += STEP_MS
            await player.request(kind, game_id=started.game_id, **fields)
            await settle()
            played.requests.append(request)
            played.seen |= faces(room.session.game.position)
            built = {"snapshot": room.snapshot(clock.ms), "progress": room.progress(clock.ms)}
            if room.session.result is not None:
                built["over"] = room.game_over()
            dumped = {name: message.model_dump(mode="json") for name, message in built.items()}
            played.built.append(named({**dumped, "racer": Progress.of(room.session).to_list()}, names))
            step += 1
        played.player = frames(player, marks[0], names)
        played.spectator = frames(spectator, marks[1], names)
    return played


PLAIN_REQUESTS: tuple[tuple[int, type[ts.GameRequest]], ...] = (
    (6, ts.Undo),
    (9, ts.Redo),
    (11, ts.Restart),
    (15, ts.Finish),
)
"""A script's choice below the first number asks for the request beside it."""


def scripted(choices: list[int], resign: bool) -> Script:
    """Requests chosen from the game as the server holds it: mostly a legal
    move, sometimes a tap, undo, redo, restart, finish or (once: a hint
    searches for a tenth of a second) a hint; then perhaps resigning."""
    first_hint = next((step for step, choice in enumerate(choices) if choice in (11, 12)), None)

    def choose(step: int, game: Game) -> Request | None:
        if step >= len(choices):
            return (ts.Resign, {}) if resign and step == len(choices) else None
        choice = choices[step]
        if step == first_hint:
            return ts.Hint, {}
        kind = next((kind for below, kind in PLAIN_REQUESTS if choice < below), None)
        if kind is not None:
            return kind, {}
        if choice < 22:
            return ts.AutoMove, {"src": game.PILES[choice % len(game.PILES)]}
        legal = game.legal_moves()
        return (ts.Move, {"move": str(legal[choice % len(legal)])}) if legal else (ts.Undo, {})

    return choose


def replayed(requests: list[Request]) -> Script:
    return lambda step, game: requests[step] if step < len(requests) else None


def twin(text: str, game_id: str, seen: set[int], seed: int) -> str:
    """The position ``text`` with its face-down cards that are not in
    ``seen`` moved among their places: shuffled, then turned round by one
    place more, so that every one of them moves."""
    game = engine.from_text(game_id, text)
    pos = game.position
    places = [
        (i, j) for i, (cards, down) in enumerate(zip(pos.piles, pos.down)) for j in range(down) if cards[j] not in seen
    ]
    order = list(range(len(places)))
    random.Random(seed).shuffle(order)
    cards = [pos.piles[i][j] for i, j in (places[k] for k in order[1:] + order[:1])]
    places = [places[k] for k in order]
    piles = [list(pile) for pile in pos.piles]
    for (i, j), card in zip(places, cards):
        piles[i][j] = card
    game.load_position(pos._replace(piles=tuple(tuple(pile) for pile in piles)), game.moves, game.score)
    return game.to_text()


@st.composite
def starts(draw: st.DrawFn, game_id: str, options: dict[str, Any]) -> Game:
    """A deal after some random legal moves; for WordLink, as often a board
    whose stock decides it (``blocked_boards``), where a status that read
    the stock would show."""
    if game_id == "klondike" and draw(st.booleans()):
        blocked: Game = draw(blocked_boards(draws=(options["draw"],)))
        return blocked
    cls = engine.GAMES[game_id]
    game = engine.new_game(game_id, draw(st.integers(cls.FIRST_DEAL, min(cls.LAST_DEAL, 1_000))), **options)
    chooser = random.Random(draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(0, 60))):
        legal = game.legal_moves()
        if not legal:
            break
        game.play(chooser.choice(legal))
    return game


def assert_same(first: Played, second: Played) -> None:
    assert second.player == first.player
    assert second.spectator == first.spectator
    assert second.built == first.built


@pytest.mark.parametrize(("game_id", "options"), GAMES, ids=lambda value: str(value))
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(), seed=st.integers(0, 2**32), choices=st.lists(st.integers(0, 99), max_size=40), resign=st.booleans()
)
def test_every_frame_is_the_same_whatever_the_unseen_cards_are(
    game_id: str, options: dict[str, Any], data: st.DataObject, seed: int, choices: list[int], resign: bool
) -> None:
    begun = data.draw(starts(game_id, options))
    assume(begun.status != engine.WON)
    text = begun.to_text()
    first = asyncio.run(play(text, game_id, scripted(choices, resign)))
    pos = begun.position
    unseen = {card for cards, down in zip(pos.piles, pos.down) for card in cards[:down]} - first.seen
    if game_id == "broken-deck":
        assert not any(pos.down), "Broken Deck shows every card: its twin is itself"
    else:
        assume(len(unseen) > 1)
    second = asyncio.run(play(twin(text, game_id, first.seen, seed), game_id, replayed(first.requests)))
    assert_same(first, second)


class SeeingStock(Klondike):
    """WordLink as it was: ``lost`` read through the face-down stock."""

    id = "klondike-seeing-stock"

    def _lost(self, pos: Position) -> bool:
        return lost_seeing_every_card(self, pos)


SEEING_STOCK = GameDescriptor(rules=SeeingStock, lobby=Lobby(blurb="WordLink reading its stock.", cards=52))
NOTHING_SEEN: list[Request] = [(ts.Undo, {}), (ts.AutoMove, {"src": "t4"}), (ts.Hint, {})]
"""Requests that turn no card up on the stock twins."""


def test_the_stock_twins_get_the_same_frames_and_a_game_reading_the_stock_does_not() -> None:
    """The attack in memory: the twins' frames are equal; the same
    comparison catches a game whose status reads the stock."""
    dead, live = (asyncio.run(play(text, "klondike", replayed(NOTHING_SEEN))) for text in (DEAD_STOCK, LIVE_STOCK))
    assert_same(dead, live)
    snapshot, progress = dead.built[0]["snapshot"], dead.built[0]["progress"]
    assert (snapshot["status"], snapshot["legal"], progress["status"]) == ("playing", ["draw"], "playing")
    with registered(SEEING_STOCK):
        leaky = [
            asyncio.run(play(text.replace("klondike", SeeingStock.id, 1), SeeingStock.id, replayed(NOTHING_SEEN)))
            for text in (DEAD_STOCK, LIVE_STOCK)
        ]
    assert leaky[0].player != leaky[1].player and leaky[0].built != leaky[1].built
    assert (leaky[0].built[0]["snapshot"]["status"], leaky[0].built[0]["progress"]["status"]) == ("lost", "lost")


async def secret_game(server: ArenaServer, owner: str, text: str) -> str:
    """A daily attempt laid out at the board ``text``: the header the
    server writes for one (a secret seed, today's daily, so nobody but
    its owner may see the board before the day's reveal), with the
    position standing in for the seed's layout, since no secret seed
    deals a chosen board."""
    game = engine.from_text("klondike", text)
    now = server.hub.clock()
    game_id = f"g_twin_{secrets.token_hex(6)}"
    day = datetime.fromtimestamp(now / 1000, timezone.utc).date().isoformat()
    header = SessionHeader(
        game_id=game_id, game="klondike", deal=0, options=dict(game.options), owner=owner, created_ms=now,
        position=text, daily=day, seed=1,
    )
    await server.store.create_session(header)
    return game_id


async def test_over_the_wire_the_stock_twins_look_the_same_to_player_and_follower(
    server: ArenaServer, connect: ClientFactory, subprotocol: str
) -> None:
    """The attack over sockets, the player on one codec and a spectator on
    the other: the twin daily attempts' snapshots, refusals and the
    spectator's ``progress`` are equal until a draw shows the stock."""
    other = JSON_SUBPROTOCOL if subprotocol == MSGPACK_SUBPROTOCOL else MSGPACK_SUBPROTOCOL
    player, spectator = await connect(subprotocol), await connect(other)
    await player.hello(name="Player")
    await spectator.hello(name="Spectator")
    games = [await secret_game(server, player.player_id, text) for text in (DEAD_STOCK, LIVE_STOCK)]
    shown = []
    for game_id in games:
        followed = await spectator.request(ts.Watch, game_id=game_id)
        assert followed.type == "progress", "a daily's board stays hidden from others before its reveal"
        snapshot = await player.request(ts.Watch, game_id=game_id)
        refused = await player.request(ts.Move, game_id=game_id, move="t4-t1")
        dumped = (m.model_dump(mode="json", exclude={"id", "server_time"}) for m in (followed, snapshot, refused))
        shown.append([named(message, {game_id: "game"}) for message in dumped])
    assert shown[0] == shown[1]
    progress, snapshot, refused = shown[0]
    assert (progress["status"], snapshot["status"], snapshot["legal"]) == ("playing", "playing", ["draw"])
    assert refused["type"] == "error"
    after = []
    for game_id in games:
        drawn = await player.request(ts.Move, game_id=game_id, move="draw")
        assert drawn.type == "diff", drawn
        told = await spectator.wait_for(lambda m, g=game_id: m.type == "progress" and m.game_id == g and m.seq == 1)
        after.append((drawn.status, told.status))
    assert after == [("lost", "lost"), ("playing", "playing")], "once drawn, the stock is known, and shown alike"
