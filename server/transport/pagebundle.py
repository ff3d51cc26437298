"""A page of the site with its stylesheets as one file and its module
scripts as one script, built by the server from the files as they are.

``index.html`` names what it loads in the plain way (each ``<link
rel="stylesheet">``, the ``<script type="module">`` of its entry), so
that any static server can serve ``client/web/`` as it is and a
developer reads the modules unbundled.  ``web.py`` serves the page with
those tags replaced: the first stylesheet link by one to
``<page>.bundle.css`` (every linked stylesheet, in the page's order; one
with a ``media`` attribute inside an ``@media`` rule), the first module
script by one to ``<page>.bundle.js`` (``server.transport.bundle``, from
every entry in the page's order), and the others taken out.  A tag with
any other attribute (``integrity``, ``title``, ``async`` …) is left as
it is, because merging it would change what it means.

A stylesheet may not ``@import`` (inside one file an ``@import`` after a
rule is ignored) nor declare ``@charset`` (the bundle is UTF-8), and one
outside the page's folder may not use a relative ``url()``, which the
bundle, served beside the page, would resolve elsewhere.  Each refusal is
a ``BundleError`` naming the file and line.
"""

from __future__ import annotations

import asyncio
import gzip
import logging
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from server.transport.bundle import BundleError, bundle

BUNDLE_SUFFIXES = {".bundle.css": "text/css; charset=utf-8", ".bundle.js": "application/javascript; charset=utf-8"}
"""The names a page's bundles are served under beside it, and their types."""
TAG = re.compile(r'[ \t]*<(link|script)\b([^>]*)>(?:\s*</script>)?(\r?\n)?', re.IGNORECASE)
ATTRIBUTE = re.compile(r'([\w-]+)(?:\s*=\s*"([^"]*)")?')
ABSOLUTE = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|/|#)")
CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
CSS_REFUSED = re.compile(r"@import\b|@charset\b", re.IGNORECASE)
CSS_URL = re.compile(r"""url\(\s*['"]?(?![a-zA-Z][a-zA-Z0-9+.-]*:|/|#)""", re.IGNORECASE)


@dataclass(frozen=True)
class Asset:
    body: bytes
    gzipped: bytes


@dataclass(frozen=True)
class PageBundle:
    page: bytes
    """The page with its tags replaced (references still relative)."""
    assets: dict[str, Asset]
    """By name beside the page: ``index.bundle.css``, ``index.bundle.js``."""
    modules: tuple[str, ...]
    """The modules in the script, relative to the site, in the order they run."""


def _asset(text: str) -> Asset:
    body = text.encode()
    return Asset(body, gzip.compress(body, compresslevel=9, mtime=0))


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def _target(root: Path, folder: str, reference: str, page: str, line: int) -> str:
    """``reference`` (relative to the page's ``folder``) as a path under ``root``."""
    path = posixpath.normpath(posixpath.join(folder, reference.split("?")[0].split("#")[0]))
    if path.startswith("../") or not (root / path).is_file():
        raise BundleError(page, line, f"references {reference}, which the site does not have")
    return path


def stylesheet(root: Path, path: str, media: str | None, page_folder: str) -> str:
    """One linked stylesheet as it goes into the bundle."""
    text = (root / path).read_text(encoding="utf-8")
    plain = CSS_COMMENT.sub(lambda comment: re.sub(r"[^\n]", " ", comment[0]), text)
    if (refused := CSS_REFUSED.search(plain)) is not None:
        raise BundleError(path, _line(plain, refused.start()), f"{refused[0]} is not bundled: link each stylesheet from the page")
    if posixpath.dirname(path) != page_folder and (relative := CSS_URL.search(plain)) is not None:
        raise BundleError(path, _line(plain, relative.start()), "a relative url() outside the page's folder would break in the bundle")
    if media is not None and media.strip().lower() != "all":
        text = f"@media {media} {{\n{text}\n}}"
    return f"/* {path} */\n{text}\n"


def _bundled(tag: re.Match[str]) -> tuple[str, str, str | None] | None:
    """``(kind, reference, media)`` of a tag a bundle replaces (a plain
    stylesheet link or module script naming a file of the site), or None."""
    attributes = {name.lower(): value for name, value in ATTRIBUTE.findall(tag[2])}
    element = tag[1].lower()
    if element == "link" and attributes.get("rel", "").lower() == "stylesheet" and set(attributes) <= {"rel", "href", "media"}:
        kind, reference = "css", attributes.get("href")
    elif element == "script" and tag[0].rstrip().endswith("</script>") and attributes.get("type") == "module" and set(attributes) == {"type", "src"}:
        kind, reference = "js", attributes.get("src")
    else:
        return None
    if not reference or ABSOLUTE.match(reference):
        return None
    return kind, reference, attributes.get("media") or None


def _replacement(tag: re.Match[str], kind: str, name: str) -> str:
    """The tag that loads the bundle ``name``, indented and ended as ``tag`` was."""
    indent = tag[0][: len(tag[0]) - len(tag[0].lstrip())]
    loads = f'<link rel="stylesheet" href="{name}">' if kind == "css" else f'<script type="module" src="{name}"></script>'
    return indent + loads + (tag[3] or "")


def build_page(root: Path, page: Path) -> PageBundle:
    """The bundles of ``page`` (an HTML file under ``root``) and the page
    that loads them; a ``BundleError`` if a file breaks the rules above."""
    base = root.resolve()
    page_path = page.resolve().relative_to(base).as_posix()
    folder = posixpath.dirname(page_path)
    html = page.read_text(encoding="utf-8")
    styles: list[str] = []
    entries: list[str] = []
    replaced: list[tuple[int, int, str]] = []
    for tag in TAG.finditer(html):
        if (bundled := _bundled(tag)) is None:
            continue
        kind, reference, media = bundled
        target = _target(base, folder, reference, page_path, _line(html, tag.start()))
        gathered = styles if kind == "css" else entries
        gathered.append(stylesheet(base, target, media, folder) if kind == "css" else target)
        first = len(gathered) == 1
        replaced.append((tag.start(), tag.end(), _replacement(tag, kind, f"{page.stem}.bundle.{kind}") if first else ""))
    assets: dict[str, Asset] = {}
    modules: tuple[str, ...] = ()
    if styles:
        assets[f"{page.stem}.bundle.css"] = _asset("".join(styles))
    if entries:
        script = bundle(base, entries)
        assets[f"{page.stem}.bundle.js"] = _asset(script.text)
        modules = script.modules
    for name in assets:
        if (page.parent / name).exists():
            raise BundleError(page_path, 1, f"{name} is the name of the page's bundle, but the site has a file by that name")
    for start, end, text in reversed(replaced):
        html = html[:start] + text + html[end:]
    return PageBundle(html.encode(), assets, modules)


def accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether an ``Accept-Encoding`` header allows gzip (RFC 9110: a
    ``q=0`` refuses it; ``*`` stands for any coding not named)."""
    if not accept_encoding:
        return False
    weights: dict[str, float] = {}
    for item in accept_encoding.split(","):
        coding, _, parameters = item.strip().lower().partition(";")
        weight = 1.0
        if (match := re.search(r"q\s*=\s*([^;\s]*)", parameters)) is not None:
            try:
                weight = float(match[1])
            except ValueError:
                weight = 0.0
        weights[coding.strip()] = weight
    return weights.get("gzip", weights.get("x-gzip", weights.get("*", 0.0))) > 0


log = logging.getLogger("arena.web")


class PageBundles:
    """Each page's bundles for the site's current version, built on the
    first request that needs them (in a thread: a fraction of a second)
    and kept in memory until the version changes.  A page whose files
    break the bundler's rules is logged once per version and served with
    its separate files: the error is a developer's, not the player's."""

    def __init__(self) -> None:
        self._built: dict[Path, tuple[str, PageBundle | None]] = {}

    async def get(self, root: Path, page: Path, version: str) -> PageBundle | None:
        """``page``'s bundles at ``version``, or None if it cannot be bundled."""
        held = self._built.get(page)
        if held is not None and held[0] == version:
            return held[1]
        built: PageBundle | None
        try:
            built = await asyncio.to_thread(build_page, root, page)
        except (ValueError, OSError) as error:  # a BundleError, or a file unreadable as UTF-8
            log.error("serving %s with its separate files, which the server cannot bundle: %s", page.name, error)
            built = None
        self._built[page] = (version, built)
        return built
