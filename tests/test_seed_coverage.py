"""Every sentence of every rule text (``tests.seed_sentences``) is quoted
by some test.

The rule texts are the requirements; quoting a sentence in a test's docstring
is how a test says which rule it checks.  Sentences not yet covered are
listed in ``PENDING`` with why they are not yet, and this test
also fails when a pending sentence becomes covered, so the list can only
shrink honestly.  Without the rule texts (a plain clone has no
``../shared``) the per-game checks skip and say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.seed_sentences import SEED_OF_GAME, normalize, require_seeds, sentences
from tests.source_files import files_under

TESTS_DIR = Path(__file__).parent

PENDING: dict[str, str] = {}


NOT_TESTS = frozenset({"node_modules", "__pycache__"})
"""Folders under tests/ that hold no test: npm's tools, which a test
installs while this one may be reading, and the interpreter's caches."""


def _tests_text() -> str:
    sources = files_under(TESTS_DIR, NOT_TESTS.__contains__)
    texts = [path.read_text(encoding="utf-8") for path in sources if path.suffix == ".py" and path.name != Path(__file__).name]
    return normalize(" ".join(texts))


@pytest.mark.parametrize("game_id", sorted(SEED_OF_GAME))
def test_every_seed_sentence_is_quoted_by_a_test(game_id: str) -> None:
    require_seeds()
    corpus = _tests_text()
    uncovered = [s for s in sentences(game_id) if s not in corpus and s not in PENDING]
    assert not uncovered, "no test quotes these sentences:\n" + "\n".join(uncovered)


def test_pending_sentences_are_really_uncovered() -> None:
    corpus = _tests_text()
    covered = [s for s in PENDING if s in corpus]
    assert not covered, "now covered, remove from PENDING:\n" + "\n".join(covered)
