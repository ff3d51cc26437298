"""Splits the rule texts in ``shared/seeds`` into the sentences tests must quote.

A sentence is a run of text ending in ``.``, ``!`` or ``?`` (or a line or
table-cell end) after bullets, table bars and Markdown marks are removed.
Headings are not rules: parts that end in ``?`` (the seeds' question
headings), list numbers, Title Case labels, and labels of fewer than
three words that do not end in a full stop are left out.
"""

from __future__ import annotations

import re
from pathlib import Path

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


def seed_path(game_id: str) -> Path:
    prefix = SEED_OF_GAME[game_id]
    return next(SEEDS_DIR.glob(prefix + "*.txt"))


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
