"""``arena solve`` and ``arena deals verify`` from the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine
from engine.solver.pools import parse_pool
from server.cli import main


def test_arena_solve_prints_the_result_nodes_time_and_a_winning_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "klondike", "--deal", "2", "--draw", "3", "--budget", "20000"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "result: won"
    assert lines[2].startswith("nodes: ") and " time: " in lines[2]
    game = engine.new_game("klondike", 2, draw=3)
    for move in lines[3].split():
        game.play(move)
    assert game.status == "won"


def test_arena_solve_says_unknown_when_the_budget_runs_out(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "broken-deck", "--deal", "3", "--budget", "50"]) == 1
    assert "result: unknown" in capsys.readouterr().out


def test_arena_solve_refuses_a_deal_out_of_range(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "broken-deck", "--deal", "1001"]) == 2
    assert "1001" in capsys.readouterr().err


def test_deals_verify_builds_a_pool_and_resumes_where_it_stopped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pool_file = tmp_path / "pool.txt"
    arguments = ["deals", "verify", "klondike", "--variant", "klondike-draw3", "--file", str(pool_file), "--budget", "3000"]
    assert main([*arguments, "--count", "2"]) == 0
    first = parse_pool(pool_file.read_text(encoding="utf-8"))
    assert len(first.certificates) == 2
    assert main([*arguments, "--count", "3"]) == 0
    second = parse_pool(pool_file.read_text(encoding="utf-8"))
    assert len(second.certificates) == 3
    assert {deal: second.certificates[deal] for deal in first.certificates} == first.certificates
    assert min(set(second.certificates) - set(first.certificates)) >= first.next_deal
    assert "verified" in capsys.readouterr().err
