"""The terminal's sentences for an analysis, one per verdict."""

from __future__ import annotations

from client.board import analysis_text
from protocol import to_client as tc


def reply(verdict: tc.Verdict, *, certain: bool = True, last: int | None = None, losing: str | None = None) -> tc.AnalysisReply:
    return tc.AnalysisReply(
        game_id="g_1", verdict=verdict, line=["draw", "w-t7"], last_winnable=last, losing_move=losing,
        certain=certain, solution=["t1-fs", "draw"], nodes=10,
    )


def test_each_verdict_has_its_sentence() -> None:
    assert analysis_text(reply("won")) == "this game was won"
    assert analysis_text(reply("still_winnable", last=2)) == "the final position could still be won: t1-fs draw"
    assert analysis_text(reply("never_shown_winnable")) == "the first position was proven unwinnable"
    assert analysis_text(reply("never_shown_winnable", certain=False)) == (
        "the first position was not shown winnable within the search budget"
    )
    assert analysis_text(reply("lost_at", last=1, losing="w-t7")) == (
        "lost by move 2, w-t7; before it the deal could still be won: t1-fs draw"
    )
    assert analysis_text(reply("lost_at", certain=False, last=1, losing="w-t7")).startswith("lost (at the latest) by move 2")
