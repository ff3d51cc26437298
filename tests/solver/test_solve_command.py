"""``arena solve`` and ``arena deals verify`` from the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine
from engine.solver.pools import Pool, deal_seeds, format_pool, parse_pool, seed_table_module
from server.cli import main
from server.commands import solve as solve_command
from server.deals.pools import load_pool


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


def test_deals_verify_refuses_a_variant_of_another_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pool_file = tmp_path / "pool.txt"
    assert main(["deals", "verify", "chequers", "--variant", "klondike-draw1", "--file", str(pool_file)]) == 2
    assert "klondike-draw1 is not a chequers pool" in capsys.readouterr().err
    assert not pool_file.exists()


def test_deals_verify_rewrites_the_seed_table_when_the_shipped_pool_is_named_by_a_relative_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--file data/broken-deck.txt`` from the right directory is the shipped
    pool, so the engine's seed table must follow it."""
    data = tmp_path / "data"
    data.mkdir()
    shipped = load_pool("broken-deck")
    remapped = min(deal_seeds(shipped))
    deals = {deal: shipped.certificates[deal] for deal in (1, remapped)}
    pool = Pool(shipped.game_id, dict(shipped.options), remapped + 1, deals)
    (data / "broken-deck.txt").write_text(format_pool(pool), encoding="utf-8")
    seed_table = data / "broken_deck_seeds.py"
    monkeypatch.setattr(solve_command, "SEED_TABLE", seed_table)
    monkeypatch.setattr(solve_command, "pool_path", lambda variant: data / f"{variant}.txt")
    monkeypatch.chdir(tmp_path)
    assert main(["deals", "verify", "broken-deck", "--file", "data/broken-deck.txt", "--count", "1"]) == 0
    assert seed_table.read_text(encoding="utf-8") == seed_table_module({remapped: deals[remapped].seed})
    capsys.readouterr()


def test_deals_verify_leaves_the_seed_table_alone_for_another_pool_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = load_pool("broken-deck")
    pool = Pool(shipped.game_id, dict(shipped.options), 2, {1: shipped.certificates[1]})
    elsewhere = tmp_path / "broken-deck.txt"
    elsewhere.write_text(format_pool(pool), encoding="utf-8")
    seed_table = tmp_path / "broken_deck_seeds.py"
    monkeypatch.setattr(solve_command, "SEED_TABLE", seed_table)
    monkeypatch.setattr(solve_command, "pool_path", lambda variant: tmp_path / "data" / f"{variant}.txt")
    assert main(["deals", "verify", "broken-deck", "--file", str(elsewhere), "--count", "1"]) == 0
    assert not seed_table.exists()
