"""The code and its tests type-check: every function carries types
(``disallow_untyped_defs`` for every package and the tests, in
pyproject.toml), and mypy (with pydantic's plugin) agrees with them and
with how the tests call them.  The library a bot imports (``client``,
``protocol``) passes the flags of ``--strict``, since a user's strict
checker sees its types through ``py.typed`` and would otherwise stop at
ours."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_mypy_finds_no_errors_in_the_packages() -> None:
    result = _mypy()
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_users_strict_bot_type_checks_against_the_library(tmp_path: Path) -> None:
    """The examples stand for a user's bot: checked with ``--strict`` and
    none of our configuration, errors in the library's own modules left
    silent as they are for an installed package."""
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n", encoding="utf-8")
    result = _mypy("--config-file", str(config), "--strict", "--follow-imports=silent", "examples")
    assert result.returncode == 0, result.stdout + result.stderr
