"""docs/protocol.md stays true: its generated parts match the code, its
session is what a real server says, and every example parses."""

from __future__ import annotations

import json
import re
import typing

from tests.protocol import protocol_doc
import pytest
from pydantic import ValidationError

from protocol import CLIENT_MESSAGE, SERVER_MESSAGE, ClientMessage, ErrorCode, ServerMessage


@pytest.fixture(scope="module")
def doc() -> str:
    return protocol_doc.DOC.read_text(encoding="utf-8")


def _types(union: object) -> set[str]:
    members = typing.get_args(typing.get_args(union)[0])
    return {member.model_fields["type"].default for member in members}


def _json_examples(doc: str) -> list[dict[str, object]]:
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", doc, re.S)]


def test_the_error_table_is_generated_from_the_codes(doc: str) -> None:
    assert protocol_doc.section(doc, "errors") == protocol_doc.error_table()


def test_the_close_code_table_is_generated_from_the_codes(doc: str) -> None:
    assert protocol_doc.section(doc, "close-codes") == protocol_doc.close_code_table()


def test_the_limits_table_is_generated_from_the_settings(doc: str) -> None:
    assert protocol_doc.section(doc, "limits") == protocol_doc.limits_table()


def test_every_error_code_is_documented(doc: str) -> None:
    for code in ErrorCode:
        assert f"| `{code.value}` | {code.description} |" in doc


def test_every_example_parses_as_a_client_or_a_server_message(doc: str) -> None:
    examples = _json_examples(doc)
    assert len(examples) > 20
    for example in examples:
        parsed = []
        for adapter in (CLIENT_MESSAGE, SERVER_MESSAGE):
            try:
                parsed.append(adapter.validate_python(example))
            except ValidationError:
                pass
        assert parsed, f"parses as nothing: {example}"


def test_every_message_type_has_an_example(doc: str) -> None:
    shown = {example["type"] for example in _json_examples(doc)}
    assert _types(ClientMessage) | _types(ServerMessage) <= shown


def test_the_session_frames_parse_in_their_direction(doc: str) -> None:
    frames = protocol_doc.session_frames(doc)
    assert frames
    for frame in frames:
        adapter = CLIENT_MESSAGE if frame.way == "→" else SERVER_MESSAGE
        adapter.validate_json(frame.text)


async def test_the_session_is_what_a_real_server_says_today(doc: str) -> None:
    recorded = await protocol_doc.record_session()
    assert [frame.shape() for frame in protocol_doc.session_frames(doc)] == [frame.shape() for frame in recorded]


def test_the_device_settings_table_is_generated_from_the_settings(doc: str) -> None:
    assert protocol_doc.section(doc, "device-settings") == protocol_doc.limits_table(protocol_doc.DEVICE_SETTINGS)


def test_the_assist_settings_table_is_generated_from_the_settings(doc: str) -> None:
    assert protocol_doc.section(doc, "assist-settings") == protocol_doc.limits_table(protocol_doc.ASSIST_SETTINGS)


async def test_the_assists_session_is_what_a_real_server_says_today(doc: str) -> None:
    documented = protocol_doc.session_frames(doc, "assists-session")
    types = [frame.shape()[2] for frame in documented]
    assert "finish_offer" in types and types[-1] == "analysis"
    recorded = await protocol_doc.record_assists_session()
    assert [frame.shape() for frame in documented] == [frame.shape() for frame in recorded]


def test_the_friend_settings_table_is_generated_from_the_settings(doc: str) -> None:
    assert protocol_doc.section(doc, "friend-settings") == protocol_doc.limits_table(protocol_doc.FRIEND_SETTINGS)


async def test_the_friends_board_session_is_what_a_real_server_says_today(doc: str) -> None:
    documented = protocol_doc.session_frames(doc, "friends-board-session")
    types = [frame.shape()[2] for frame in documented]
    assert types.count("friends_board_update") == 2 and types[-1] == "friends_board"
    recorded = await protocol_doc.record_friends_board_session()
    assert [frame.shape() for frame in documented] == [frame.shape() for frame in recorded]


async def test_the_friends_session_is_what_a_real_server_says_today(doc: str) -> None:
    documented = protocol_doc.session_frames(doc, "friends-session")
    types = [frame.shape()[2] for frame in documented]
    assert "notification" in types and "challenge_answer" in types
    recorded = await protocol_doc.record_friends_session()
    assert [frame.shape() for frame in documented] == [frame.shape() for frame in recorded]


async def test_the_stats_session_is_what_a_real_server_says_today(doc: str) -> None:
    documented = protocol_doc.session_frames(doc, "stats-session")
    types = [frame.shape()[2] for frame in documented]
    assert types.count("stats") == 2 and "stats_reply" in types
    recorded = await protocol_doc.record_stats_session()
    assert [frame.shape() for frame in documented] == [frame.shape() for frame in recorded]


def test_the_league_settings_table_is_generated_from_the_settings(doc: str) -> None:
    assert protocol_doc.section(doc, "league-settings") == protocol_doc.limits_table(protocol_doc.LEAGUE_SETTINGS)


async def test_the_league_session_is_what_a_real_server_says_today(doc: str) -> None:
    documented = protocol_doc.session_frames(doc, "league-session")
    types = [frame.shape()[2] for frame in documented]
    assert "league_standings" in types and types[-1] == "leagues"
    recorded = await protocol_doc.record_league_session()
    assert [frame.shape() for frame in documented] == [frame.shape() for frame in recorded]


async def test_the_ghost_session_is_what_a_real_server_says_today(doc: str) -> None:
    documented = protocol_doc.session_frames(doc, "ghost-session")
    types = [frame.shape()[2] for frame in documented]
    assert types.count("ghost_update") == 2 and "ghost" in types and types[-1] == "ack"
    recorded = await protocol_doc.record_ghost_session()
    assert [frame.shape() for frame in documented] == [frame.shape() for frame in recorded]
