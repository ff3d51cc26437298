"""The bundler of the browser client's modules (``server.transport.bundle``):
the order modules run in, renamed imports and exports, re-exports, and a
refusal naming the file and line for each thing outside its subset; then
the real ``client/web/js`` bundled, every module in it reached, and the
result checked by Node as a classic script and as a module and run there.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.unavailable import unavailable

from server.transport.bundle import BundleError, bundle
from server.transport.jstokens import scan

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "client" / "web"
NOT_ON_THE_PAGE: frozenset[str] = frozenset()
"""Modules of ``client/web/js`` that the page does not load (a module only
for other apps or only for Node's tests would be listed here, with why)."""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def node() -> str:
    found = shutil.which("node")
    if found is None:
        unavailable("node is missing: install Debian's nodejs package to check the bundle")
    assert found is not None
    return found


def run(script: str, tmp_path: Path, name: str = "run.js") -> str:
    """What ``script``, run by Node as a classic script, logs."""
    (tmp_path / name).write_text(script, encoding="utf-8")
    done = subprocess.run([node(), str(tmp_path / name)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def refusal(tmp_path: Path, files: dict[str, str]) -> str:
    with pytest.raises(BundleError) as raised:
        bundle(write(tmp_path, files), ["main.js"])
    return str(raised.value)


def test_each_module_runs_once_after_its_imports_in_import_order(tmp_path: Path) -> None:
    root = write(tmp_path / "site", {
        "main.js": 'import { b } from "./b.js";\nimport { a } from "./lib/a.js";\nconsole.log("main", a, b);\n',
        "b.js": 'import { a } from "./lib/a.js";\nconsole.log("b");\nexport const b = a + 1;\n',
        "lib/a.js": 'console.log("a");\nexport const a = 1;\n',
    })
    built = bundle(root, ["main.js"])
    assert built.modules == ("lib/a.js", "b.js", "main.js")
    assert run(built.text, tmp_path).split("\n") == ["a", "b", "main 1 2", ""]


def test_renamed_imports_and_exports_and_re_exports_keep_their_values(tmp_path: Path) -> None:
    root = write(tmp_path / "site", {
        "main.js": (
            'import { shown as seen, twice, TABLE as T } from "./facade.js";\n'
            'import * as everything from "./values.js";\n'
            "console.log(seen, twice(2), T.x, Object.keys(everything).sort().join(), Object.isFrozen(everything));\n"
        ),
        "facade.js": 'export { hidden as shown, TABLE } from "./values.js";\nexport { double as twice };\nfunction double(n) { return 2 * n; }\n',
        "values.js": "const hidden = 'h';\nexport const TABLE = { x: 'x' };\nexport { hidden };\n",
    })
    assert run(bundle(root, ["main.js"]).text, tmp_path) == "h 4 x TABLE,hidden true\n"


def test_tokens_inside_strings_templates_comments_and_regexps_are_not_code_and_comments_go(tmp_path: Path) -> None:
    root = write(tmp_path / "site", {
        "main.js": (
            'import { value } from "./value.js";\n'
            "// import { nothing } from './missing.js';\n"
            "/* export default 1 } */\n"
            "const text = `export ${value + `{${'}'}`} import \"./missing.js\" // kept`;\n"
            "const pattern = /[/}]export\\/import/g;\n"
            "const ratio = value / 2 / 1;\n"
            "const kind = typeof/* a comment */value;\n"
            "console.log(text, pattern.source, ratio, 'export let x /* kept */', kind);\n"
        ),
        "value.js": "export const value = 4;\n",
    })
    text = bundle(root, ["main.js"]).text
    assert "a comment" not in text and "nothing" not in text and "export default" not in text
    logged = 'export 4{} import "./missing.js" // kept [/}]export\\/import 2 export let x /* kept */ number\n'
    assert run(text, tmp_path) == logged


def test_a_module_line_is_a_line_of_the_bundle_after_its_header(tmp_path: Path) -> None:
    root = write(tmp_path / "site", {
        "main.js": 'import {\n  value,\n} from "./value.js";\nexport function f() {}\nthrow new Error("line " + value);\n',
        "value.js": "export const value = 5;\n",
    })
    text = bundle(root, ["main.js"]).text
    lines = text.split("\n")
    wrapper = lines.index("// main.js") + 1
    assert lines[wrapper + 5] == 'throw new Error("line " + value);'


@pytest.mark.parametrize(
    ("files", "where", "why"),
    [
        ({"main.js": "\n\nexport default 1;\n"}, "main.js:3", "export default is not bundled"),
        ({"main.js": 'import thing from "./a.js";\n', "a.js": ""}, "main.js:1", "a default import is not bundled"),
        ({"main.js": "const x = 1;\nexport let y = 2;\n"}, "main.js:2", "export let is not bundled"),
        ({"main.js": "export var y = 2;\n"}, "main.js:1", "export var is not bundled"),
        ({"main.js": "let y = 2;\nexport { y };\n"}, "main.js:1", "y is exported but declared with let"),
        ({"main.js": "export function f() {}\nf = null;\n"}, "main.js:2", "f is exported and reassigned here"),
        ({"main.js": "export class C {}\nfunction g() { C += 1; }\n"}, "main.js:2", "C is exported and reassigned here"),
        ({"main.js": "export const a = 1, b = 2;\n"}, "main.js:1", "export one binding per declaration"),
        ({"main.js": "export const { a } = {};\n"}, "main.js:1", "names one binding"),
        ({"main.js": 'export * from "./a.js";\n', "a.js": ""}, "main.js:1", "export * is not bundled"),
        ({"main.js": '\nfunction f() { return import("./a.js"); }\n'}, "main.js:2", "import( is not bundled"),
        ({"main.js": "console.log(import.meta.url);\n"}, "main.js:1", "import. is not bundled"),
        ({"main.js": "\nawait 1;\n"}, "main.js:2", "top-level await"),
        ({"main.js": 'import { a } from "lib";\n'}, "main.js:1", 'imports "lib": only relative paths'),
        ({"main.js": 'import { a } from "./a.mjs";\n'}, "main.js:1", "only relative paths to .js files"),
        ({"main.js": 'import { a } from "../a.js";\n'}, "main.js:1", "outside the site"),
        ({"main.js": '\nimport { a } from "./gone.js";\n'}, "main.js:2", "imports gone.js, which does not exist"),
        ({"main.js": 'import { b } from "./a.js";\n', "a.js": "export const a = 1;\n"}, "main.js:1", "imports b, which a.js does not export"),
        ({"main.js": 'export { b } from "./a.js";\n', "a.js": "export const a = 1;\n"}, "main.js:1", "imports b, which a.js does not export"),
        ({"main.js": 'import d from "./a.json" with { type: "json" };\n'}, "main.js:1", "a default import"),
        ({"main.js": 'import { a } from "./a.js" with { type: "json" };\n', "a.js": ""}, "main.js:1", "import attributes"),
        ({"main.js": "const __module_0_main = 1;\n"}, "main.js:1", "names starting with __module_ are the bundle's own"),
        ({"main.js": "\nconst s = 'open;\n"}, "main.js:2", "unterminated string"),
        ({"main.js": "function f() {\n"}, "main.js:1", "never closed"),
    ],
)
def test_what_the_bundler_refuses_is_named_with_its_file_and_line(tmp_path: Path, files: dict[str, str], where: str, why: str) -> None:
    message = refusal(tmp_path, files)
    assert message.startswith(where + ": ") and why in message, message


def test_an_import_cycle_is_refused_with_the_cycle_named(tmp_path: Path) -> None:
    message = refusal(tmp_path, {
        "main.js": 'import { a } from "./a.js";\n',
        "a.js": 'import { b } from "./b.js";\nexport const a = 1;\n',
        "b.js": '\nimport { a } from "./a.js";\nexport const b = 2;\n',
    })
    assert message == "b.js:2: import cycle: a.js -> b.js -> a.js"


def test_a_reassignment_is_read_from_tokens_not_scopes_but_a_property_of_that_name_is_fine(tmp_path: Path) -> None:
    """The check does not follow scopes: a function's own ``play`` that
    shadows the exported one is refused too (rename it), while
    ``x.play = …`` and ``{ play: p }`` are not assignments to it."""
    root = write(tmp_path / "site", {"main.js": "export function play() {}\nfunction g() { let play = 1; play = 2; return play; }\nconsole.log(g(), this);\n"})
    with pytest.raises(BundleError, match="play is exported and reassigned"):
        bundle(root, ["main.js"])
    root = write(tmp_path / "other", {"main.js": "export function play() {}\nfunction g(x) { x.play = 2; const { play: p } = x; return p; }\nconsole.log(g({}), this);\n"})
    assert run(bundle(root, ["main.js"]).text, tmp_path) == "2 undefined\n"


def test_the_tokenizer_tells_a_division_from_a_regular_expression() -> None:
    kinds = [(token.kind, token.text) for token in scan("a = b / c / d; e = (x) / 2; f = [/re/g, typeof /x/];").tokens]
    assert ("regex", "/re/g") in kinds and ("regex", "/x/") in kinds
    assert [text for kind, text in kinds if kind == "punct" and text == "/"] == ["/", "/", "/"]


def test_the_real_client_bundles_reaching_every_module_and_runs_in_node(tmp_path: Path) -> None:
    built = bundle(WEB, ["js/main.js"])
    modules = {path.relative_to(WEB).as_posix() for path in (WEB / "js").glob("*.js")}
    unreached = modules - set(built.modules) - {f"js/{name}" for name in NOT_ON_THE_PAGE}
    assert not unreached, f"modules neither on the page nor listed in NOT_ON_THE_PAGE: {sorted(unreached)}"
    assert built.modules[-1] == "js/main.js"
    for name in ("bundle.js", "bundle.mjs"):
        (tmp_path / name).write_text(built.text, encoding="utf-8")
        checked = subprocess.run([node(), "--check", str(tmp_path / name)], capture_output=True, text=True, timeout=60)
        assert checked.returncode == 0, checked.stderr
    pure = bundle(WEB, ["js/games.js", "js/notation.js"])
    probe = pure.text + "console.log(JSON.stringify([typeof __module_0_cards.rankWords, __module_0_cards.rankWords(12)]));\n"
    assert json.loads(run(probe, tmp_path, "probe.js")) == ["function", "Queen"]
