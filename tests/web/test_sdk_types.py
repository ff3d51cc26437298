"""The JavaScript SDK's JSDoc types hold: ``tsc --checkJs --strict`` over
client/web/js/sdk.js and every module it imports (client/web/tsconfig.json).

The check gives tsc the ECMAScript library and the few host APIs browsers
and Node 18+ share (client/web/types/host.d.ts), not the DOM's: so the
same run proves the SDK touches nothing of a page, which it must not, to
run in Node."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.npm_tools import npm_tools

WEB = Path(__file__).resolve().parents[2] / "client" / "web"


def tsc(project: Path) -> subprocess.CompletedProcess[str]:
    """``tsc -p project`` from the pinned test tools."""
    node = shutil.which("node")
    assert node is not None, "npm_tools() found node"
    compiler = npm_tools() / "typescript" / "bin" / "tsc"
    return subprocess.run([node, str(compiler), "-p", str(project)], capture_output=True, text=True, timeout=300)


def test_the_sdk_type_checks_strictly_without_the_dom() -> None:
    run = tsc(WEB / "tsconfig.json")
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_check_fails_on_a_module_that_reaches_for_the_page(tmp_path: Path) -> None:
    """The same settings over an SDK that also imports a module using
    ``localStorage``: tsc refuses it, so the check above can fail."""
    probe = tmp_path / "js"
    shutil.copytree(WEB / "js", probe)
    shutil.copytree(WEB / "types", tmp_path / "types")
    (probe / "page.js").write_text("export const token = localStorage.getItem('arena.token');\n")
    with (probe / "sdk.js").open("a") as sdk:
        sdk.write('export { token } from "./page.js";\n')
    shutil.copy(WEB / "tsconfig.json", tmp_path / "tsconfig.json")
    run = tsc(tmp_path / "tsconfig.json")
    assert run.returncode != 0 and "Cannot find name 'localStorage'" in run.stdout, run.stdout + run.stderr
