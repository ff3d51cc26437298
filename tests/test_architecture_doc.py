"""Every module docs/architecture.md names exists.

The architecture document is the map a new maintainer reads first; a path
in it that the code no longer has sends them looking for something that
moved.  So each ``engine/``, ``protocol/``, ``server/`` and ``client/``
path it names (a ``.py`` file, or a folder ending in ``/``) is checked
against the tree, and so is each bare ``name.py`` in a row of a table
whose first cell is a folder (the table of the server's folders).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
FOLDER_ROW = re.compile(r"^\| `((?:engine|protocol|server|client)/(?:\w+/)+)` \|(.*)$", re.MULTILINE)
BARE = re.compile(r"`(\w+\.py)`")
NAMED = re.compile(r"(?<![\w/.])((?:engine|protocol|server|client)/(?:[\w]+/)*(?:[\w]+\.py|))(?![\w/])")


def named_paths(text: str) -> set[str]:
    """The module and folder paths ``text`` names under the four packages."""
    return {match.group(1) for match in NAMED.finditer(text)}


def listed_modules(text: str) -> set[str]:
    """The paths of the bare module names in the rows of a folder table."""
    return {folder + name for folder, rest in FOLDER_ROW.findall(text) for name in BARE.findall(rest)}


def test_a_folder_table_row_names_its_modules() -> None:
    text = "| `server/net/` | `peer.py`, `outbox.py` (sending) | model |\n| net | `server/net/` `x.py` |"
    assert listed_modules(text) == {"server/net/peer.py", "server/net/outbox.py"}


def test_the_reader_finds_modules_and_folders_but_not_other_files() -> None:
    text = "`server/games/room.py`, server/races/ and engine/games/__init__.py; client/web/js/games.js, tests/server/x.py"
    assert named_paths(text) == {"server/games/room.py", "server/races/", "engine/games/__init__.py"}


def test_every_module_the_architecture_names_exists() -> None:
    text = DOC.read_text()
    missing = sorted(path for path in named_paths(text) | listed_modules(text) if not (ROOT / path).exists())
    assert not missing, "docs/architecture.md names modules the repository does not have: " + ", ".join(missing)
