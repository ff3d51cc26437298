"""The race parts of docs/protocol.md stay true: the recorded race is what
a real server says today, and the race settings table is the settings'."""

from __future__ import annotations

from tests.protocol import protocol_doc
import pytest

from protocol import CLIENT_MESSAGE, SERVER_MESSAGE


@pytest.fixture(scope="module")
def doc() -> str:
    return protocol_doc.DOC.read_text(encoding="utf-8")


def test_the_race_settings_table_is_generated_from_the_settings(doc: str) -> None:
    assert protocol_doc.section(doc, "race-settings") == protocol_doc.limits_table(protocol_doc.RACE_SETTINGS)


def test_the_recorded_race_frames_parse_in_their_direction(doc: str) -> None:
    frames = protocol_doc.session_frames(doc, "race-session")
    assert {frame.who for frame in frames} == {"host", "friend", "spectator"}
    for frame in frames:
        (CLIENT_MESSAGE if frame.way == "→" else SERVER_MESSAGE).validate_json(frame.text)


async def test_the_recorded_race_is_what_a_real_server_says_today(doc: str) -> None:
    recorded = await protocol_doc.record_race_session()
    documented = protocol_doc.session_frames(doc, "race-session")
    assert [frame.shape() for frame in documented] == [frame.shape() for frame in recorded]
