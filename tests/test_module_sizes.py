"""No module of the server, the protocol or the client is over 400 lines.

Past that a module is doing two jobs, and the next reader has to find
the seam the author did not cut.  The engine is held to the looser
limit of ``ENGINE_LINES``: a game's rules read best in one module, and
the four largest are each one game (docs/architecture.md, "Layers").
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_LINES = 400
ENGINE_LINES = 600
LIMITS = {"server": PACKAGE_LINES, "protocol": PACKAGE_LINES, "client": PACKAGE_LINES, "engine": ENGINE_LINES}


def oversized(package: str, limit: int) -> list[str]:
    """The modules of ``package`` over ``limit`` lines, with their length."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            found.append(f"{path.relative_to(ROOT)}: {lines} lines")
    return found


@pytest.mark.parametrize("package", sorted(LIMITS))
def test_no_module_is_over_its_packages_limit(package: str) -> None:
    assert not oversized(package, LIMITS[package]), f"split by responsibility (limit {LIMITS[package]}):"


def test_the_check_sees_a_long_module(tmp_path: Path) -> None:
    assert oversized("engine", 10), "the engine has modules over 10 lines, so the check must name some"
