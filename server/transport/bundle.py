"""The browser client's ES modules as one script, built by the server
itself, so a first visit costs one request for all of them and nobody
runs a build step.

It bundles the subset of ES modules the client is written in, and refuses
anything else with a ``BundleError`` naming the file and line, so that a
module breaking the rules fails a test rather than a player's page:

- imports are static and relative (``./x.js``, ``../x.js``):
  ``import { a, b as c } from "./x.js"``, ``import * as x from "./x.js"``
  and ``import "./x.js"``; no default import, no bare or absolute
  specifier, no ``import()``, no ``import.meta``;
- exports are named: ``export function/class/const``,
  ``export { a, b as c }`` and ``export { a } from "./x.js"``; no
  ``export default``, no ``export *``, one binding per ``export const``;
- an exported binding is never reassigned: a module's exports are read
  once, when it has run, so a reassignment would not reach the modules
  importing it (an ES module's live binding would).  ``export let`` and
  ``export var`` are refused, and so is an assignment to an exported
  name anywhere in its module (read from the tokens, not the scopes: a
  function's own variable of that name is refused too);
- no top-level ``await`` and no import cycle.

Each module becomes a function run once, in the order an ES module graph
is evaluated (each module after its imports, depth first from the
entries), which returns its frozen exports; imports become ``const``
destructurings of the exporting module's object at the top of the
function, since an ES import is hoisted.  Comments are left out, each
as the line breaks it spanned, so line N of a module is N lines below
the line that opens its function.  The result runs the same as a
classic script or as a module (each function is strict, as a module is).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from server.transport.jstokens import Token, TokenError, scan

ASSIGNMENTS = frozenset("= += -= *= /= %= **= <<= >>= >>>= &= |= ^= &&= ||= ??= ++ --".split())
MODULE_PREFIX = "__module_"
"""The start of the name each module's exports object gets in the bundle;
no module may use a name starting with it."""


class BundleError(ValueError):
    """A module the bundler cannot turn into a script, with where and why."""

    def __init__(self, file: str, line: int, reason: str) -> None:
        super().__init__(f"{file}:{line}: {reason}")
        self.file = file
        self.line = line
        self.reason = reason


@dataclass(frozen=True)
class Import:
    source: str
    """The imported module, as a path relative to the bundle's root."""
    names: tuple[tuple[str, str | None], ...]
    """(exported name, local name) pairs; no local name for a re-export."""
    namespace: str | None
    line: int


@dataclass
class Module:
    path: str
    """Relative to the bundle's root, with ``/``: ``js/board.js``."""
    text: str
    imports: list[Import] = field(default_factory=list)
    exports: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    """Exported name: (the module it is re-exported from, or None for this
    one, and its name there)."""
    cuts: list[tuple[int, int]] = field(default_factory=list)
    """Spans of ``text`` left out of the bundle: imports, ``export`` words
    and comments (one inside an import goes with it)."""


@dataclass(frozen=True)
class Bundle:
    text: str
    modules: tuple[str, ...]
    """The modules in it, in the order they run."""


def _resolve(module: str, specifier: str, line: int) -> str:
    if not specifier.startswith(("./", "../")) or not specifier.endswith(".js"):
        raise BundleError(module, line, f'imports "{specifier}": only relative paths to .js files ("./x.js") are bundled')
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(module), specifier))
    if resolved.startswith("../"):
        raise BundleError(module, line, f'imports "{specifier}", outside the site')
    return resolved


class _Parser:
    """One module's imports and exports, read from its tokens."""

    def __init__(self, module: Module) -> None:
        self.module = module
        try:
            scanned = scan(module.text)
        except TokenError as error:
            raise BundleError(module.path, error.line, error.reason) from None
        self.tokens = scanned.tokens
        module.cuts += scanned.comments
        self.at = 0
        self.exported_locals: set[str] = set()
        """The module's own names it exports, for the reassignment check."""

    def fail(self, token: Token | None, reason: str) -> BundleError:
        line = token.line if token else (self.tokens[-1].line if self.tokens else 1)
        return BundleError(self.module.path, line, reason)

    def peek(self, ahead: int = 0) -> Token | None:
        index = self.at + ahead
        return self.tokens[index] if index < len(self.tokens) else None

    def take(self, what: str | None = None, kind: str | None = None) -> Token:
        token = self.peek()
        if token is None or (what is not None and token.text != what) or (kind is not None and token.kind != kind):
            raise self.fail(token, f"expected {what or kind} here, found {token.text if token else 'the end'}")
        self.at += 1
        return token

    def statement_end(self, last: Token) -> int:
        """Where a statement whose last token is ``last`` ends, its ``;`` included."""
        following = self.peek()
        if following is not None and following.text == ";":
            self.at += 1
            return following.end
        return last.end

    def names(self) -> list[tuple[str, str, Token]]:
        """``{ a, b as c }``: (name before ``as``, name after, token)."""
        self.take("{")
        found: list[tuple[str, str, Token]] = []
        while (token := self.peek()) is not None and token.text != "}":
            first = self.take(kind="name")
            second = first
            if (word := self.peek()) is not None and word.text == "as":
                self.at += 1
                second = self.take(kind="name")
            found.append((first.text, second.text, first))
            if (comma := self.peek()) is not None and comma.text == ",":
                self.at += 1
        self.take("}")
        return found

    def source_after_from(self) -> tuple[str, Token]:
        self.take("from")
        specifier = self.take(kind="string")
        if (attributes := self.peek()) is not None and attributes.text in ("with", "assert") and not attributes.newline_before:
            raise self.fail(attributes, "import attributes are not bundled")
        return _resolve(self.module.path, specifier.text[1:-1], specifier.line), specifier

    def parse_import(self, keyword: Token) -> None:
        following = self.peek()
        if following is None:
            raise self.fail(keyword, "an import statement ends early")
        names: list[tuple[str, str, Token]] = []
        namespace = None
        if following.kind == "string":
            self.at += 1
            source, last = _resolve(self.module.path, following.text[1:-1], following.line), following
        else:
            if following.text == "{":
                names = self.names()
            elif following.text == "*":
                self.at += 1
                self.take("as")
                namespace = self.take(kind="name").text
            else:
                raise self.fail(following, "a default import is not bundled: import { name } from a named export")
            source, last = self.source_after_from()
        end = self.statement_end(last)
        pairs: tuple[tuple[str, str | None], ...] = tuple((exported, local) for exported, local, _ in names)
        self.module.imports.append(Import(source, pairs, namespace, keyword.line))
        self.module.cuts.append((keyword.start, end))

    def declared(self, keyword: Token, kind: str) -> None:
        """``export const x = …``, ``export function f`` …: ``export`` goes."""
        self.module.cuts.append((keyword.start, self.take(kind).start))
        if kind == "async":
            self.take("function")
        if kind in ("async", "function") and (star := self.peek()) is not None and star.text == "*":
            self.at += 1
        name = self.peek()
        if name is None or name.kind != "name":
            raise self.fail(name or keyword, "an exported declaration names one binding (no destructuring)")
        self.module.exports[name.text] = (None, name.text)
        self.exported_locals.add(name.text)
        if kind == "const":
            self.one_binding(name)

    def one_binding(self, name: Token) -> None:
        """Refuse ``export const a = 1, b = 2``: the second binding would be
        missed.  The statement ends at ``;`` or at a line that starts at
        its first column (top-level code is not indented)."""
        for token in self.tokens[self.at + 1 :]:
            if token.depth == 0 and (token.text == ";" or (token.newline_before and self.column(token) == 0)):
                return
            if token.depth == 0 and token.text == ",":
                raise self.fail(token, f"export one binding per declaration: split the one of {name.text}")

    def column(self, token: Token) -> int:
        return token.start - (self.module.text.rfind("\n", 0, token.start) + 1)

    def parse_export(self, keyword: Token) -> None:
        following = self.peek()
        word = following.text if following else ""
        if word in ("const", "function", "class", "async"):
            self.declared(keyword, word)
        elif word in ("let", "var"):
            raise self.fail(following, f"export {word} is not bundled: an importer would not see a reassignment; export a const, or a function that returns the value")
        elif word == "default":
            raise self.fail(following, "export default is not bundled: export named bindings")
        elif word == "*":
            raise self.fail(following, "export * is not bundled: name what is re-exported")
        elif word == "{":
            names = self.names()
            last = self.tokens[self.at - 1]
            if (token := self.peek()) is not None and token.text == "from":
                source, last = self.source_after_from()
                for original, exported, _ in names:
                    self.module.exports[exported] = (source, original)
                checked = tuple((original, None) for original, _, _ in names)
                self.module.imports.append(Import(source, checked, None, keyword.line))
            else:
                for local, exported, _ in names:
                    self.module.exports[exported] = (None, local)
                    self.exported_locals.add(local)
            self.module.cuts.append((keyword.start, self.statement_end(last)))
        else:
            raise self.fail(following or keyword, "this export is not bundled")

    def parse(self) -> None:
        while (token := self.peek()) is not None:
            self.at += 1
            previous = self.tokens[self.at - 2] if self.at >= 2 else None
            if token.kind != "name" or (previous is not None and previous.text in (".", "?.")):
                continue
            following = self.peek()
            if token.text == "import" and following is not None and following.text in ("(", "."):
                raise self.fail(token, f"import{following.text} is not bundled: use a static import")
            if token.text.startswith(MODULE_PREFIX):
                raise self.fail(token, f"names starting with {MODULE_PREFIX} are the bundle's own")
            if token.depth:
                continue
            if token.text == "import":
                self.parse_import(token)
            elif token.text == "export":
                self.parse_export(token)
            elif token.text == "await":
                raise self.fail(token, "top-level await is not bundled")
        self.check_reassignments()

    def check_reassignments(self) -> None:
        tokens = self.tokens
        for index, token in enumerate(tokens):
            if token.kind != "name" or token.text not in self.exported_locals:
                continue
            before = tokens[index - 1] if index else None
            after = tokens[index + 1] if index + 1 < len(tokens) else None
            if before is not None and before.text in (".", "?.", "let", "const", "var", "function", "class"):
                if before.text in ("let", "var") and before.depth == 0:
                    raise self.fail(token, f"{token.text} is exported but declared with {before.text}: declare it const")
                continue
            if (after is not None and after.text in ASSIGNMENTS) or (before is not None and before.text in ("++", "--")):
                raise self.fail(token, f"{token.text} is exported and reassigned here: importers would keep the old value")


def _read(root: Path, path: str, importer: Import | None, importer_path: str) -> Module:
    file = root / path
    if not file.is_file():
        if importer is None:
            raise BundleError(path, 1, "no such module")
        raise BundleError(importer_path, importer.line, f"imports {path}, which does not exist")
    module = Module(path, file.read_text(encoding="utf-8"))
    _Parser(module).parse()
    return module


def ordered_modules(root: Path, entries: list[str]) -> list[Module]:
    """The modules reachable from ``entries`` (paths under ``root``), each
    after the modules it imports, as an ES module graph runs them."""
    done: dict[str, Module] = {}
    visiting: list[str] = []

    def visit(path: str, importer: Import | None, importer_path: str) -> None:
        if path in done:
            return
        if path in visiting:
            cycle = " -> ".join(visiting[visiting.index(path) :] + [path])
            raise BundleError(importer_path, importer.line if importer else 1, f"import cycle: {cycle}")
        visiting.append(path)
        module = _read(root, path, importer, importer_path)
        for imported in module.imports:
            visit(imported.source, imported, path)
        visiting.pop()
        done[path] = module

    for entry in entries:
        visit(entry, None, entry)
    return list(done.values())


def _variable(index: int, path: str) -> str:
    return MODULE_PREFIX + str(index) + "_" + re.sub(r"\W", "_", posixpath.basename(path).removesuffix(".js"))


def _check_imports(module: Module, modules: dict[str, Module]) -> None:
    for imported in module.imports:
        exports = modules[imported.source].exports
        for exported, _ in imported.names:
            if exported not in exports:
                raise BundleError(module.path, imported.line, f"imports {exported}, which {imported.source} does not export")


def _body(module: Module) -> str:
    """The module's text without its cuts, each left as the line breaks it
    had (so a line of the module is a line of the bundle), or a space
    (``a/* */b`` must not become ``ab``)."""
    pieces, at = [], 0
    for start, end in sorted(module.cuts):
        if start < at:
            continue
        breaks = module.text.count("\n", start, end)
        pieces += [module.text[at:start], "\n" * breaks or " "]
        at = end
    pieces.append(module.text[at:])
    return "".join(pieces)


def _exports_object(module: Module, variables: dict[str, str]) -> str:
    fields = []
    for name, (source, original) in module.exports.items():
        value = original if source is None else f"{variables[source]}.{original}"
        fields.append(name if name == value else f"{name}: {value}")
    return "Object.freeze({ " + ", ".join(fields) + " })"


def bundle(root: Path, entries: list[str]) -> Bundle:
    """One script that runs the modules of ``entries`` (paths relative to
    ``root``, ``js/main.js``) and everything they import, in order."""
    modules = ordered_modules(root, entries)
    by_path = {module.path: module for module in modules}
    variables = {module.path: _variable(index, module.path) for index, module in enumerate(modules)}
    parts = []
    for module in modules:
        _check_imports(module, by_path)
        header = ['"use strict";']
        for imported in module.imports:
            if imported.namespace is not None:
                header.append(f"const {imported.namespace} = {variables[imported.source]};")
            pairs = [name if name == local else f"{name}: {local}" for name, local in imported.names if local]
            if pairs:
                header.append(f"const {{ {', '.join(pairs)} }} = {variables[imported.source]};")
        parts.append(
            f"// {module.path}\nconst {variables[module.path]} = (function () {{ {' '.join(header)}\n"
            f"{_body(module)}\nreturn {_exports_object(module, variables)};\n}})();\n"
        )
    return Bundle("".join(parts), tuple(module.path for module in modules))
