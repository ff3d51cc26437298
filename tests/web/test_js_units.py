"""The browser client's pure modules (cards, mirror, games, notation,
router, store, motion, sizing, replaysteps, unlisted, fanout, and the
JavaScript SDK's reconnection policy, request correlation and pacing)
under Node's built-in test runner.

The README's one test command is ``python -m pytest``, so this test runs
``node --test`` over ``tests/web/js/`` and fails with its report.  Without
Node it skips, except under CI (whose ``.ci/run`` installs ``nodejs``),
where a missing runtime must not pass as green.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.unavailable import unavailable

JS_TESTS = Path(__file__).parent / "js"


def test_the_pure_javascript_modules_pass_their_node_tests() -> None:
    node = shutil.which("node")
    if node is None:
        unavailable("node is missing: install Debian's nodejs package to run the browser client's unit tests")
    files = sorted(str(path) for path in JS_TESTS.glob("*.test.mjs"))
    assert files, f"no JavaScript tests found in {JS_TESTS}"
    run = subprocess.run([node, "--test", *files], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
