"""The modules of ``engine/``, ``protocol/``, ``server/`` and ``client/``
import each other without a cycle, counting every import: at the top,
inside functions (lazy) and under ``TYPE_CHECKING``; each package imports
only the packages below it, and ``server/`` reaches ``client/`` through one
named import.

A cycle hidden in a function or behind ``TYPE_CHECKING`` still ties two
modules together: neither can be understood, tested or replaced alone.
So parts that need each other meet through a narrow interface handed to
them (``docs/architecture.md``, "The server's parts"), never by
importing each other.  The graph is read from the source with ``ast``,
so no module is imported to check it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "protocol", "server", "client")

MAY_IMPORT = {
    "engine": (),
    "protocol": ("engine",),
    "server": ("engine", "protocol"),
    "client": ("engine", "protocol"),
}
"""The packages each package may import (docs/architecture.md, "Layers"):
the server and the clients stand side by side on the shared protocol and
rules, so that a client never carries the server and the server serves any
client."""

ACROSS = ("server.cli -> client.commands",)
"""The imports allowed across ``MAY_IMPORT``: ``arena`` is one program
whose parser also offers the terminal client's commands (``arena play``,
``arena watch``, ...), so the CLI imports them; nothing else of the server
knows the client."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def known_modules() -> dict[str, Path]:
    return {module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def _owner(name: str, modules: dict[str, Path]) -> str | None:
    """The module of ``modules`` that ``name`` (a module or a name in one) lives in."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports_in(source: str, name: str, is_package: bool, modules: dict[str, Path]) -> set[str]:
    """The modules of ``modules`` that the module ``name`` imports,
    anywhere in its ``source``."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.Import):
            found.update(owner for alias in node.names if (owner := _owner(alias.name, modules)))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                owner = full if full in modules else _owner(base, modules)
                if owner:
                    found.add(owner)
    found.discard(name)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = known_modules()
    return {
        name: imports_in(path.read_text(), name, path.name == "__init__.py", modules)
        for name, path in modules.items()
    }


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a path that ends where it starts, or None."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path = [start]
        pending = [iter(sorted(graph[start]))]
        while pending:
            following = next(pending[-1], None)
            if following is None:
                pending.pop()
                done.add(path.pop())
            elif following in path:
                return path[path.index(following) :] + [following]
            elif following not in done:
                path.append(following)
                pending.append(iter(sorted(graph.get(following, ()))))
    return None


def test_the_reader_counts_lazy_relative_and_type_checking_imports() -> None:
    modules = {name: ROOT for name in ("pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d")}
    source = """
from typing import TYPE_CHECKING
import os
from . import b
if TYPE_CHECKING:
    from pkg.c import Thing
def later():
    from .d import helper
"""
    assert imports_in(source, "pkg.a", False, modules) == {"pkg.b", "pkg.c", "pkg.d"}


def test_a_cycle_is_found_and_reported_as_a_path() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_engine_protocol_server_and_client_modules_import_each_other_without_a_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


LAYERS = ("model", "runtime", "storage", "net", "deals", "games", "races", "social", "core", "transport", "commands", "cli")
"""The parts of ``server/``, bottom to top (docs/architecture.md, "The
server's folders"): a module may import its own part and the parts below
it, never one above."""


def layer_of(module: str) -> str | None:
    """The part of ``server`` a module belongs to (its subpackage, or
    ``core``/``cli`` at the top of ``server/``); None outside ``server``."""
    parts = module.split(".")
    if parts[0] != "server" or len(parts) == 1:
        return None
    return parts[1]


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every import of ``graph`` from a part of ``server`` to a part above
    it, or to a module in no known part, as ``importer -> imported``."""
    found = []
    for importer, imported in sorted(graph.items()):
        low = layer_of(importer)
        if low is None:
            continue
        for target in sorted(imported):
            high = layer_of(target)
            if high is None or high == low:
                continue
            if low not in LAYERS or high not in LAYERS or LAYERS.index(high) > LAYERS.index(low):
                found.append(f"{importer} -> {target}")
    return found


def test_an_upward_import_is_named() -> None:
    graph = {
        "server.model.ids": set(),
        "server.games.room": {"server.model.ids", "server.races.state", "engine.game"},
        "server.races.state": {"server.games.room"},
        "server.stray": {"server.model.ids"},
    }
    assert upward_imports(graph) == ["server.games.room -> server.races.state", "server.stray -> server.model.ids"]


def test_every_part_of_the_server_has_a_place_in_the_layers() -> None:
    parts = {layer_of(name) for name in known_modules() if name.startswith("server.")}
    assert parts == set(LAYERS)


def test_the_parts_of_the_server_import_downward_only() -> None:
    offending = upward_imports(import_graph())
    assert not offending, "imports that point up the layers:\n" + "\n".join(offending)


def package_crossings(graph: dict[str, set[str]]) -> list[str]:
    """Every import of ``graph`` from one package into another that
    ``MAY_IMPORT`` does not allow, as ``importer -> imported``."""
    found = []
    for importer, imported in sorted(graph.items()):
        home = importer.partition(".")[0]
        for target in sorted(imported):
            away = target.partition(".")[0]
            if away != home and away not in MAY_IMPORT.get(home, ()):
                found.append(f"{importer} -> {target}")
    return found


def test_an_import_across_packages_is_named() -> None:
    graph = {
        "engine.game": {"protocol.codes"},
        "protocol.codes": {"engine.game"},
        "server.cli": {"client.commands", "protocol.codes"},
        "client.link": {"protocol.codes", "server.core"},
    }
    assert package_crossings(graph) == [
        "client.link -> server.core",
        "engine.game -> protocol.codes",
        "server.cli -> client.commands",
    ]


def test_each_package_imports_only_the_packages_below_it_but_for_the_cli() -> None:
    crossings = package_crossings(import_graph())
    assert crossings == list(ACROSS), "imports across the packages' layers:\n" + "\n".join(crossings)
