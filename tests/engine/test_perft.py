"""Perft: exact legal-move counts of fixed positions, per game.

Each ``tests/fixtures/perft/<game>.txt`` holds blocks separated by a line
``===``: a ``# title`` line, a position in the notation, and lines
``perft D = N`` meaning "there are N move sequences of length D from here"
(moves taken from ``Game.moves_from``, so a lost position still counts its
draws).  The numbers are worked out by hand from the rules for small
positions, which is what makes them a check on move generation rather than
a copy of it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import engine
from engine.game import Game, Position

FIXTURES = Path(__file__).parent.parent / "fixtures" / "perft"
PERFT_LINE = re.compile(r"^perft (\d+) = (\d+)$")


def _cases() -> list[tuple[str, str, str, list[tuple[int, int]]]]:
    cases = []
    for path in sorted(FIXTURES.glob("*.txt")):
        game_id = path.stem
        for block in path.read_text().split("\n===\n"):
            lines = [line for line in block.strip().splitlines() if line.strip()]
            if not lines:
                continue
            title = lines[0].lstrip("# ").strip()
            expectations = [(int(m[1]), int(m[2])) for line in lines if (m := PERFT_LINE.match(line.strip()))]
            position = "\n".join(line for line in lines[1:] if not PERFT_LINE.match(line.strip()))
            cases.append((game_id, title, position, expectations))
    return cases


def perft(game: Game, pos: Position, depth: int) -> int:
    if depth == 0:
        return 1
    moves = game.moves_from(pos)
    if depth == 1:
        return len(moves)
    return sum(perft(game, game.successor(pos, move), depth - 1) for move in moves)


CASES = _cases()


@pytest.mark.parametrize(("game_id", "title", "position", "expectations"), CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_perft(game_id: str, title: str, position: str, expectations: list[tuple[int, int]]) -> None:
    game = engine.from_text(game_id, position)
    assert expectations, f"{title}: no 'perft D = N' line"
    for depth, expected in expectations:
        assert perft(game, game.position, depth) == expected, f"{title}: perft {depth}"


def test_every_registered_game_has_perft_fixtures() -> None:
    assert {c[0] for c in CASES} >= set(engine.GAMES)
