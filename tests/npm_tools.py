"""The npm tools of ``tests/npm/`` (axe-core, typescript), installed on
first use so that the README's one test command needs nothing more than
Node and npm on the machine.

``npm ci`` installs exactly what ``package-lock.json`` pins.  Several
pytest-xdist workers may ask at once, so one installs under an exclusive
file lock and the others find its result.  Without Node or npm, or when
the registry cannot be reached, the test is ``unavailable``: a skip on a
developer's machine, a failure under CI.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from pathlib import Path

from tests.unavailable import unavailable

NPM_ROOT = Path(__file__).parent / "npm"
INSTALL_SECONDS = 600
INSTALLED_MARK = NPM_ROOT / "node_modules" / ".package-lock.json"


def npm_tools() -> Path:
    """The ``node_modules`` folder holding the pinned test tools."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        unavailable("node and npm are needed for this test: install Debian's nodejs and npm packages")
    with (NPM_ROOT / ".install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _installed():
            run = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=NPM_ROOT, capture_output=True, text=True, timeout=INSTALL_SECONDS,
            )
            if run.returncode != 0:
                unavailable(f"npm ci in {NPM_ROOT} failed: {run.stderr.strip()[-400:]}")
    return NPM_ROOT / "node_modules"


def _installed() -> bool:
    """Whether ``npm ci`` already ran against today's lock file: npm writes
    its own copy of the lock into ``node_modules`` when it finishes."""
    return INSTALLED_MARK.exists() and INSTALLED_MARK.stat().st_mtime >= (NPM_ROOT / "package-lock.json").stat().st_mtime
