"""Bad input gets a clear error: 20,000 seeded fuzzed frames over both
codecs (``arena_fuzz``) get no ``internal_error``, close connections only
with documented codes, log no traceback, and leave another player's game
as it was.  ``bench/fuzz.py`` runs ten times as many."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from tests.server.arena_fuzz import Known, fuzz
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WireClient

from protocol import JSON, JSON_SUBPROTOCOL, MSGPACK, ErrorCode
from protocol import to_server as ts
from server.transport.app import ArenaServer
from server.storage.memory import MemoryStore

FRAMES = 20_000
SEED = 13


async def test_fuzzed_frames_get_clear_errors_and_leave_the_victim_game_alone(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    # Reconnections after 1007 and 1009 come from one address; cheap searches
    # keep the hints, finishes and analyses the fuzzer asks for quick.  No
    # write timeout: the fuzzer shares this process's event loop with the
    # server, and beside two CPU burners it once read nothing for 10 s, so
    # the server gave two of its connections up as slow readers (1013, seen
    # as 1006 since the close frame could not be written).  Slow readers
    # are test_server_slow_readers' subject, not this test's.
    settings = make_settings(
        connections_per_address=1000,
        abuse_cooldown_seconds=0,
        finish_search_nodes=200,
        analysis_nodes=200,
        write_timeout_seconds=None,
    )
    async with ArenaServer(settings, store=MemoryStore()) as server:
        victim = await WireClient.open(server.url)
        await victim.hello()
        started, snapshot = await victim.new_game(deal=3, options={"undo_limit": 5})
        assert snapshot.legal, "the owner's snapshot lists the legal moves"
        moved = await victim.request(ts.Move, game_id=started.game_id, move=snapshot.legal[0])
        assert moved.type == "diff", moved
        before = await victim.request(ts.Resync, game_id=started.game_id)
        known = Known(victim_game=started.game_id, victim_player=victim.player_id)

        tally = await fuzz(server.url, FRAMES, SEED, known, lambda: server.hub.requests_in_flight > 0)

        assert tally.frames == FRAMES
        assert tally.internal_errors == 0, tally.replies
        assert tally.undocumented_closes == {}, tally.closes
        assert tally.replies["error:bad_message"] > FRAMES // 4, tally.replies
        after = await victim.request(ts.Resync, game_id=started.game_id)
        assert after.type == "snapshot" and _state(after) == _state(before) and after.seq == 1
        stored = await server.store.load_session(started.game_id)
        assert stored is not None and [entry.text for entry in stored[1]] == [moved.action.text]
        await victim.close()
    tracebacks = [record for record in caplog.records if record.levelno >= logging.ERROR or record.exc_info]
    assert tracebacks == []


def _state(snapshot: Any) -> tuple[Any, ...]:
    """What the fuzzing must leave as it was.  The score is taken before
    WordLink's time penalty (5 points a whole minute on the game's clock):
    20,000 frames took over a minute on a loaded machine, and the clock
    running on is not the fuzzer's doing."""
    untimed_score = snapshot.score + 5 * (snapshot.clock.elapsed_ms // 60_000)
    return snapshot.seq, snapshot.view, snapshot.status, snapshot.counters, untimed_score, snapshot.owner


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ('{"type":"ping","id":"\\ud800"}', ErrorCode.BAD_MESSAGE),
        ('{"type":"new_game","game":"klondike","options":{"undo_limit":' + "1" + "0" * 30 + "}}", ErrorCode.BAD_MESSAGE),
        ('{"type":"new_game","game":"klondike","options":{"undo_limit":9007199254740992}}', ErrorCode.BAD_MESSAGE),
        ('{"type":"new_game","game":"klondike","options":{"deal":5}}', ErrorCode.BAD_OPTION),
        ('{"type":"new_game","game":"klondike","deal":"daily","options":{"seed":5}}', ErrorCode.BAD_OPTION),
        ('{"type":"create_race","game":"klondike","options":{"game_id":"x"}}', ErrorCode.BAD_OPTION),
        ('{"type":"ping","id":NaN}', ErrorCode.BAD_MESSAGE),
        ('{"type":"move","game_id":"g","move":"draw","seq":1e400}', ErrorCode.BAD_MESSAGE),
        ('{"type":"ping","extra":' + "[" * 1010 + "]" * 1010 + "}", ErrorCode.BAD_MESSAGE),
    ],
)
async def test_the_known_bad_frames_get_a_clear_error(server: ArenaServer, frame: str, code: ErrorCode) -> None:
    client = await WireClient.open(server.url, JSON_SUBPROTOCOL)
    await client.hello()
    await client.send_raw(frame)
    assert (await client.next_of("error")).code == code
    assert (await client.request(ts.Ping)).type == "pong"
    await client.close()


async def test_a_msgpack_type_nested_1010_deep_is_a_bad_message(server: ArenaServer) -> None:
    client = await WireClient.open(server.url)
    await client.send_raw(b"\x81\xa4type" * 1010 + b"\xc0")
    assert (await client.next_of("error")).code == ErrorCode.BAD_MESSAGE
    assert (await client.request(ts.Ping)).type == "pong"
    await client.close()


async def test_a_game_with_an_open_integer_option_lists_in_both_codecs(server: ArenaServer) -> None:
    owner = await WireClient.open(server.url, JSON_SUBPROTOCOL)
    await owner.hello()
    started, _ = await owner.new_game(deal=4, options={"undo_limit": 2**53 - 1})
    for codec in (JSON, MSGPACK):
        lister = await WireClient.open(server.url, codec.subprotocol)
        games = await lister.request(ts.ListGames)
        assert games.type == "games" and [game.game_id for game in games.games] == [started.game_id]
        assert (await lister.request(ts.Watch, game_id=started.game_id)).type == "snapshot"
        await lister.close()
    await owner.close()


async def test_invalid_utf8_in_a_text_frame_closes_with_1007(server: ArenaServer) -> None:
    client = await WireClient.open(server.url, JSON_SUBPROTOCOL)
    await client.connection.send(b'{"type":"ping","id":"\xff"}', text=True)
    assert await client.closed() == 1007
