"""Codecs: the same messages in JSON and MessagePack, and every way a
frame can be wrong reported as one readable sentence."""

from __future__ import annotations

import json

import msgpack
import pytest

from protocol import JSON, MSGPACK, ErrorCode, MalformedMessage, codec_for
from protocol import friends as pf
from protocol import ghosts as pg
from protocol import to_client as tc
from protocol import to_server as ts

REQUESTS = [
    ts.Hello(id=1, token="abc", name="ann"),
    ts.NewGame(id="n", game="klondike", deal="daily", options={"draw": 3}, practice=True),
    ts.NewGame(game="klondike", deal=7),
    ts.Move(id=2, game_id="g_1", move="t1-t2x3"),
    ts.AutoMove(game_id="g_1", src="w", count=1),
    ts.Undo(game_id="g_1"),
    ts.Redo(game_id="g_1"),
    ts.Hint(game_id="g_1"),
    ts.Restart(game_id="g_1"),
    ts.Resign(game_id="g_1"),
    ts.Watch(game_id="g_1"),
    ts.Unwatch(game_id="g_1"),
    ts.Resync(game_id="g_1"),
    ts.ListGames(game="chequers", limit=5),
    ts.Ping(id=99),
    pf.Friends(id=100),
    pf.FriendCode(reissue=True),
    pf.FriendAdd(code="7kq2-m9xd"),
    pf.FriendChange(player_id="p_1", action="block"),
    pf.Notifications(unread=True, limit=5),
    pf.ReadNotifications(notification_ids=["n_1"]),
    pf.Challenge(player_id="p_1", game="klondike", options={"draw": 3}, deal="winnable"),
    pf.ChallengeAnswer(challenge_id="n_1", accept=False),
    ts.SetPresence(id=3, away=True),
    ts.AppearOffline(on=False),
    ts.FriendsPresence(id="f"),
    pg.RaceGhost(id=4, game_id="g_1", player_id="p_1"),
    pg.RaceGhost(game_id="g_1", leader=True),
    pg.StopGhost(game_id="g_1"),
]


@pytest.mark.parametrize("codec", [JSON, MSGPACK], ids=["json", "msgpack"])
@pytest.mark.parametrize("request_message", REQUESTS, ids=lambda m: m.type)
def test_every_request_survives_both_codecs(codec: object, request_message: ts.Request) -> None:
    assert codec.decode(codec.encode(request_message)) == request_message  # type: ignore[attr-defined]


def test_a_reply_without_an_id_has_no_id_field() -> None:
    assert "id" not in json.loads(JSON.encode(tc.Pong(server_time=1)))
    assert json.loads(JSON.encode(tc.Pong(id=3, server_time=1)))["id"] == 3
    assert "id" not in msgpack.unpackb(MSGPACK.encode(tc.Ack()))


@pytest.mark.parametrize("codec", [JSON, MSGPACK], ids=["json", "msgpack"])
def test_a_client_reads_frames_of_a_newer_server_that_adds_fields(codec: object) -> None:
    """Within a protocol version fields may be added, never removed: a
    reply carrying a field this version does not know still parses, and the
    unknown field is dropped rather than guessed at."""
    frame = {"type": "pong", "id": 4, "server_time": 5, "added_in_a_later_release": {"x": 1}}
    raw = json.dumps(frame) if codec is JSON else msgpack.packb(frame)
    reply = codec.decode_reply(raw)  # type: ignore[attr-defined]
    assert reply == tc.Pong(id=4, server_time=5)
    assert not hasattr(reply, "added_in_a_later_release")


def test_json_is_text_and_msgpack_is_binary() -> None:
    assert JSON.text and not MSGPACK.text
    assert codec_for("arena.v1.msgpack") is MSGPACK
    assert codec_for(None) is JSON and codec_for("something.else") is JSON


@pytest.mark.parametrize(
    ("frame", "sentence", "request_id"),
    [
        ('{"type":"teleport","id":5}', "unknown message type 'teleport'", 5),
        ('{"id":"x"}', "no 'type' field", "x"),
        ('{"type":"ping","colour":1}', "unexpected field 'colour'", None),
        ('{"type":"move","game_id":"g"}', "move.move", None),
        ('{"type":"new_game","game":"klondike","deal":"7"}', "new_game.deal", None),
        ('{"type":"hello","name":""}', "hello.name", None),
        ('{"type":"ping","id":true}', "ping.id", None),
        ("42", "not a number", None),
        ("[1]", "not a list", None),
        ("{", "not JSON", None),
    ],
)
def test_malformed_json_is_explained(frame: str, sentence: str, request_id: object) -> None:
    with pytest.raises(MalformedMessage) as error:
        JSON.decode(frame)
    assert sentence in str(error.value)
    assert error.value.request_id == request_id


@pytest.mark.parametrize(
    ("frame", "sentence", "request_id"),
    [
        ('{"type":"new_game","id":3,"game":"klondike","options":{"a":[[[[[[[[1]]]]]]]]}}', "nests deeper than 8", 3),
        ('{"type":"new_game","id":3,"game":"klondike","deal":9223372036854775808}', "outside signed 64-bit", 3),
        ('{"type":"new_game","id":3,"game":"klondike","options":{"draw":NaN}}', "NaN or infinite", 3),
        ('{"type":"hello","id":3,"name":"\\ud800"}', "lone surrogate", 3),
        ('{"type":"ping","id":"\\ud800"}', "lone surrogate", None),
        ('{"type":"ping","id":9007199254740992}', "ping.id: Input should be less than or equal to 9007199254740991, or", None),
    ],
)
def test_what_one_codec_could_not_write_back_is_malformed(frame: str, sentence: str, request_id: object) -> None:
    """``_check_plain``: refused before validation, with the id when it is
    one a reply can carry."""
    with pytest.raises(MalformedMessage) as error:
        JSON.decode(frame)
    assert sentence in str(error.value)
    assert error.value.request_id == request_id


def test_deeply_nested_frames_are_malformed_not_crashes() -> None:
    with pytest.raises(MalformedMessage):
        JSON.decode("[" * 100_000 + "]" * 100_000)
    with pytest.raises(MalformedMessage):
        MSGPACK.decode(b"\x91" * 100_000 + b"\x90")


def test_msgpack_refuses_text_frames_and_non_string_keys() -> None:
    with pytest.raises(MalformedMessage, match="binary frames"):
        MSGPACK.decode('{"type":"ping"}')
    with pytest.raises(MalformedMessage):
        MSGPACK.decode(msgpack.packb({1: "ping"}))


def test_error_codes_are_unique_and_described() -> None:
    values = [code.value for code in ErrorCode]
    assert len(values) == len(set(values))
    assert all(code.description.endswith(".") for code in ErrorCode)
    assert ErrorCode("illegal_move") is ErrorCode.ILLEGAL_MOVE
