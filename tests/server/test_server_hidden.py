"""Hidden information never leaves the server.

Random games of every registered game, through the protocol, with a
player and a spectator on different codecs.  After every action, every
frame either of them has received is checked against the server's own
position at that moment: no card code that is face down there (which
includes the stock's order) may appear anywhere in a frame, and no live
view may carry the deal number, which with the public shuffle would
reveal them all.
"""

from __future__ import annotations

import random
import re
from typing import Any, Iterator

import pytest
from tests.server.arena_memory import MemoryArena
from tests.server.arena_wire import Mirror, RecordingClient

import engine
from engine.cards import CODE
from protocol import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL
from protocol import to_server as ts

CARD_CODE = re.compile(r"^[A2-9TJQK][SHDC]b?[<>]?$")
ACTIONS_PER_GAME = 60


def _strings(data: Any) -> Iterator[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield key
            yield from _strings(value)
    elif isinstance(data, list):
        for item in data:
            yield from _strings(item)


def _face_down(game: engine.Game) -> set[str]:
    position = game.position
    return {CODE[card] for cards, down in zip(position.piles, position.down) for card in cards[:down]}


def _check_new_frames(client: RecordingClient, seen: int, hidden: set[str]) -> int:
    for message in client.received[seen:]:
        data = message.model_dump()
        shown = {text for text in _strings(data) if CARD_CODE.match(text)}
        assert not shown & hidden, f"{message.type} shows face-down {sorted(shown & hidden)}"
        if message.type == "snapshot" and message.status == "playing":
            assert "deal" not in data["view"]
        if message.type == "diff":
            assert all(op.get("key") != "deal" for op in data["ops"])
    return len(client.received)


def _choose(chooser: random.Random, game: engine.Game) -> tuple[type[ts.GameRequest], dict[str, Any]]:
    roll = chooser.random()
    if roll < 0.10:
        return ts.Undo, {}
    if roll < 0.14:
        return ts.Redo, {}
    if roll < 0.18:
        return ts.Hint, {}
    if roll < 0.20:
        return ts.Restart, {}
    if roll < 0.21:
        return ts.Finish, {}
    if roll < 0.22:
        return ts.Analyse, {}
    if roll < 0.27:
        return ts.AutoMove, {"src": chooser.choice(game.PILES)}
    legal = game.legal_moves()
    if not legal:
        return ts.Undo, {}
    return ts.Move, {"move": str(chooser.choice(legal))}


@pytest.mark.parametrize("game_id", sorted(engine.GAMES))
@pytest.mark.parametrize("seed", [1, 2])
async def test_no_frame_ever_shows_a_face_down_card(arena: MemoryArena, game_id: str, seed: int) -> None:
    chooser = random.Random(seed)
    player = await arena.client(MSGPACK_SUBPROTOCOL)
    await player.hello()
    started, snapshot = await player.new_game(game_id, deal=chooser.randrange(1, 1000))
    spectator = await arena.client(JSON_SUBPROTOCOL)
    mirror = Mirror(await spectator.request(ts.Watch, game_id=started.game_id))
    room = arena.hub.rooms[started.game_id]
    seen = {id(player): 0, id(spectator): 0}
    checked_with_hidden_cards = 0
    for _ in range(ACTIONS_PER_GAME):
        kind, fields = _choose(chooser, room.session.game)
        await player.request(kind, game_id=started.game_id, **fields)
        for number in range(mirror.seq + 1, room.session.seq + 1):
            mirror.apply(await spectator.wait_for(lambda m, n=number: m.type == "diff" and m.seq == n))
        await spectator.request(ts.Ping)
        hidden = _face_down(room.session.game)
        checked_with_hidden_cards += bool(hidden)
        for client in (player, spectator):
            seen[id(client)] = _check_new_frames(client, seen[id(client)], hidden)
        if room.session.result is not None:
            break
    assert mirror.view == room.session.view
    if any(pile.down for pile in snapshot.view.piles.values()):
        assert checked_with_hidden_cards > 0
    assert len(player.received) > ACTIONS_PER_GAME // 2
