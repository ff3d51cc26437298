"""Replaying a session log rebuilds the game without searching again."""

from __future__ import annotations

import pytest

import engine
import server.runtime.searches
from server.model.session import Session
from server.model.records import Action, SessionHeader


def _header() -> SessionHeader:
    return SessionHeader(game_id="g_replay", game="klondike", deal=1, options={}, owner="p_1", created_ms=0)


def test_a_logged_hint_is_counted_from_the_log_not_searched_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hint's search may be costly and may change between versions; the
    log holds its suggestion, and replay must reach the same counters."""

    def no_search(*args: object) -> None:
        raise AssertionError("replay must not search for hints")

    monkeypatch.setattr(server.runtime.searches, "hint_with_confidence", no_search)
    monkeypatch.setattr(engine.Game, "suggest", no_search)
    log = [
        Action("move", "draw", 1_000),
        Action("hint", "draw", 2_000),
        Action("hint", "", 3_000),
        Action("move", "draw", 4_000),
    ]
    session = Session.replay(_header(), log)
    assert session.game.hints == 1, "an empty hint (no suggestion) counts nothing"
    assert session.game.moves == 2
    assert session.log == log
