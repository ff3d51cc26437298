"""Splits the rule texts in ``shared/seeds`` into the sentences tests must quote.

The rule texts are not part of this repository: they live in the
``shared`` directory beside the checkout (``../shared/seeds``), which CI
and the project's own machines have and a plain clone does not.  Tests
that read them call ``require_seeds`` first, which skips with a message
naming the missing directory instead of failing on a clone.

A sentence is a run of text ending in ``.``, ``!`` or ``?`` (or a line or
table-cell end) after bullets, table bars and Markdown marks are removed.
Headings are not rules: parts that end in ``?`` (the seeds' question
headings), list numbers, Title Case labels, and labels of fewer than
three words that do not end in a full stop are left out.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SEEDS_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "seeds"

SEED_OF_GAME = {
    "broken-deck": "000_",
    "laras-game": "001_",
    "klondike": "003_",
    "chequers": "004_",
}


def normalize(text: str) -> str:
    """Whitespace folded and typographic quotes made plain, for matching."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return re.sub(r"\s+", " ", text).strip()


def missing_seeds() -> str | None:
    """Why the rule texts cannot be read here, or None when every game's is present."""
    absent = [game_id for game_id, prefix in SEED_OF_GAME.items() if not any(SEEDS_DIR.glob(prefix + "*.txt"))]
    if not absent:
        return None
    return (
        f"the rule texts are not here: {SEEDS_DIR} has no seed of {', '.join(sorted(absent))} "
        "(they live in ../shared/seeds beside the checkout, outside this repository)"
    )


def require_seeds() -> None:
    """Skip the calling test when the rule texts are missing (a plain clone)."""
    missing = missing_seeds()
    if missing is not None:
        pytest.skip(missing)


def seed_path(game_id: str) -> Path:
    prefix = SEED_OF_GAME[game_id]
    found = sorted(SEEDS_DIR.glob(prefix + "*.txt"))
    if not found:
        raise FileNotFoundError(f"no rule text {prefix}*.txt in {SEEDS_DIR}")
    return found[0]


def sentences(game_id: str) -> list[str]:
    """The seed's sentences, in order, normalized."""
    result: list[str] = []
    for raw_line in seed_path(game_id).read_text(encoding="utf-8").splitlines():
        line = raw_line.strip()
        if not line or set(line) <= set("-|: "):
            continue
        for cell in line.split("|"):
            cell = re.sub(r"^[#•*\-\s]+", "", cell.strip()).replace("**", "").strip()
            if not cell:
                continue
            for part in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9\"(])", cell):
                part = normalize(part)
                if not _is_rule(part):
                    continue
                if part not in result:
                    result.append(part)
    return result


_MINOR_WORDS = {"of", "in", "and", "&", "the", "a", "to"}


def _is_heading(part: str) -> bool:
    """Title Case without a full stop: "Tableau Movement Rules", "Definitions of Key Terms:"."""
    if part.endswith("."):
        return False
    words = part.rstrip(":").split()
    return all(word[0].isupper() or word in _MINOR_WORDS for word in words)


def _is_rule(part: str) -> bool:
    if not part or part.endswith("?") or re.fullmatch(r"\d+\.", part) or _is_heading(part):
        return False
    return part.endswith(".") or len(part.split()) >= 3
