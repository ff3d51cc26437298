"""The terminal's sentences: an analysis, one per verdict; a racer and a results row set apart."""

from __future__ import annotations

from client.board import analysis_text
from client.race_text import racer_line, results_lines
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


def test_a_racer_apart_says_why_in_the_race_and_in_the_results() -> None:
    sitting = tc.Racer(
        player_id="p_2", name="bob", game_id=None, state="sitting_out", ranked=False, apart="ranked_first", moves=0,
        foundation=0, counters={}, elapsed_ms=0,
    )
    assert racer_line(sitting).endswith("(apart: playing their ranked attempt)")
    rows = [
        tc.RaceResult(place=1, player_id="p_1", name="ann", result="won", time_ms=90_000, moves=120, foundation=52, ranked=True),
        tc.RaceResult(
            place=None, player_id="p_3", name="cat", result="won", time_ms=10_000, moves=120, foundation=52, ranked=False,
            apart="deal_seen",
        ),
    ]
    first, second = results_lines(rows)[1:]
    assert first.lstrip().startswith("1. ann") and not first.endswith(")")
    assert second.lstrip().startswith("- cat") and second.endswith("(apart: knew the deal)")
