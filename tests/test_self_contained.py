"""The repository explains itself: no tracked text file points a reader at
knowledge a clone does not have.

A comment that says "as the tracker decided" or "see the design notes in
the directory next door" sends the next maintainer somewhere they cannot
go, and the reason is lost with it.  So no tracked file cites an issue,
by number or as a thing the reader is assumed to know, names a rule
text's file or the directory the rule texts live in, or names a Markdown file or a module the repository does
not have; it states the reason itself, and a rule decision cites
``docs/rules.md``.

The rule texts do live outside the repository (README.md, *Quick start*),
and the code that finds them to check that the tests quote every sentence
must name where: ``ALLOWED`` lists those few places, each with its reason.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

FORBIDDEN = {
    "an issue number": re.compile(r"\b[Ii]ssues?\s*#?\d"),
    "a #number reference": re.compile(
        r"(?:\(|\b(?:see|in|fixes|fixed|closes|closed|PR|pull)\s+)#\d+\b|\b[\w.-]+/[\w.-]+#\d+\b"
    ),
    "an issue the reader is assumed to know": re.compile(r"\b[Tt]he\s+issue\b"),
    "a rule text's file name": re.compile(r"(?<![\w-])0\d\d_(?!\d)"),
    "the rule texts' directory": re.compile(r"\.\./shared\b|\bshared[/]seeds\b"),
}
"""Each form of a pointer outside the repository, by the name a failure
reports."""

MARKDOWN_NAME = re.compile(r"(?<![\w.-])[\w./-]*?([\w-]+\.md)\b")
REPOSITORY_PATH = re.compile(r"(?<![\w./-])((?:engine|protocol|server|client|tests|docs|bench|deploy)/[\w./-]*?\w\.(?:py|md))\b")

ALLOWED = {
    ("README.md", "the rule texts' directory"): "tells a reader where the rule texts live",
    ("tests/seed_sentences.py", "the rule texts' directory"): "reads the rule texts from there",
    ("tests/seed_sentences.py", "a rule text's file name"): "knows each game's rule text by its file name's prefix",
    ("tests/test_seed_coverage.py", "the rule texts' directory"): "says why its checks skip in a clone",
}
"""(file, form) pairs that must name what lies outside, with the reason."""

EXAMPLE_PATHS = {
    "tests/x.py": "bench/stress_suite.py's picture of a pytest failure line",
    "tests/server/x.py": "tests/test_architecture_doc.py's example of a module that does not exist",
}
"""Paths named as examples, not as files of the repository."""


def tracked_files() -> list[str]:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"not a git checkout, so there is no list of tracked files: {error}")
    return [name for name in listed.split("\0") if name]


def text_of(path: Path) -> str | None:
    """The file's text, or None for a binary file (an image, a font)."""
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def pointers_outside(name: str, text: str, tracked: set[str]) -> list[str]:
    """Every place in ``text`` (the file ``name``) that points outside the
    repository and is not allowed, as ``name:line: form: the line``."""
    markdown = {Path(path).name for path in tracked if path.endswith(".md")}
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        forms = [form for form, pattern in FORBIDDEN.items() if pattern.search(line) and (name, form) not in ALLOWED]
        forms += [
            f"a Markdown file the repository does not have ({match.group(1)})"
            for match in MARKDOWN_NAME.finditer(line)
            if match.group(1) not in markdown
        ]
        forms += [
            f"a path the repository does not have ({match.group(1)})"
            for match in REPOSITORY_PATH.finditer(line)
            if match.group(1) not in tracked and match.group(1) not in EXAMPLE_PATHS
        ]
        found += [f"{name}:{number}: {form}: {line.strip()}" for form in forms]
    return found


def test_each_form_of_a_pointer_outside_is_caught() -> None:
    tracked = {"README.md", "docs/rules.md", "server/core.py", "tests/seed_sentences.py"}
    # Built from pieces, so that this file does not cite anything itself.
    lines = [
        "Target (" + "issue" + " 12): a verdict within 10 s.",
        "as settled in (" + "#" + "28)",
        "Decisions where the " + "issue is silent:",
        "as the seed ``" + "000" + "_…`` describes it.",
        "kept in ``.." + "/shared" + "/seeds``",
        "Sessions are logs (see " + "ARCHITECTURE" + ".md).",
        "the race rooms (``server/races" + ".py``)",
    ]
    found = pointers_outside("server/core.py", "\n".join(lines), tracked)
    assert [entry.split(": ")[1].split(" (")[0] for entry in found] == [
        "an issue number",
        "a #number reference",
        "an issue the reader is assumed to know",
        "a rule text's file name",
        "the rule texts' directory",
        "a Markdown file the repository does not have",
        "a path the repository does not have",
    ]
    assert "(ARCHITECTURE" in found[5] and "(server/races" in found[6]


def test_what_the_repository_has_and_what_is_allowed_pass() -> None:
    tracked = {"README.md", "docs/rules.md", "server/core.py", "tests/seed_sentences.py"}
    text = (
        "Rule decisions cite docs/rules.md (``server/core.py``, README.md); a rank #1, a colour #0004,\n"
        "deal 1_000_000, a seed 000 and the issues/11148 page of an upstream project's tracker.\n"
    )
    assert pointers_outside("server/core.py", text, tracked) == []
    assert pointers_outside("tests/seed_sentences.py", "SEEDS = '.." + "/shared" + "/seeds', '00" + "3_'", tracked) == []
    assert pointers_outside("server/core.py", "SEEDS = '.." + "/shared" + "/seeds'", tracked) != []


def test_no_tracked_file_points_outside_the_repository() -> None:
    names = tracked_files()
    tracked = set(names)
    found = []
    for name in names:
        path = ROOT / name
        text = text_of(path) if path.is_file() else None
        if text is not None:
            found += pointers_outside(name, text, tracked)
    assert not found, "state the reason instead (rule decisions: docs/rules.md):\n" + "\n".join(found)
