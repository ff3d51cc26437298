"""The repository's own files under a folder, for the tests that read them all.

Other tests write beside those files while the suite runs: ``npm ci``
replaces ``tests/npm/node_modules`` on first use, and the interpreter
writes its caches.  A walk that entered such a folder could meet a
directory being deleted (``Path.rglob`` then raises), so the walk never
enters a folder the caller says is not the repository's own.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable


def files_under(folder: Path, skipped: Callable[[str], bool]) -> list[Path]:
    """Every file under ``folder``, sorted, without entering the folders
    whose name ``skipped`` accepts."""
    found: list[Path] = []
    for parent, folders, names in os.walk(folder):
        folders[:] = [name for name in folders if not skipped(name)]
        found += (Path(parent) / name for name in names)
    return sorted(found)
