"""The sdist carries what the README names, and the repository's own
documents: built as a user would (``python -m build --sdist``, offline:
without isolation, with the setuptools the test extra installs) from a
copy of the tree, then listed."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import tarfile
from fnmatch import fnmatch
from pathlib import Path

import pytest

from tests.source_files import files_under

ROOT = Path(__file__).resolve().parent.parent
NAMED = re.compile(
    r"(?<![\w/.$-])((?:bench|deploy|docs|examples|tests|client|server|engine|protocol|\.ci)/(?:[\w./-]*\w)?"
    r"|Dockerfile|docker-compose\.yml|LICENSE|[A-Z]+\.md)"
)
"""A path as the README writes one: under a folder of the repository, or a file at its top."""
REPOSITORY_FILES = {"CHANGELOG.md", "CONTRIBUTING.md", "SECURITY.md", "LICENSE", "README.md", "Dockerfile", "docker-compose.yml"}
SHIPPED_FOLDERS = ("bench", "deploy", "docs", "examples", "tests", ".ci")
LOCAL = (
    ".git", "__pycache__", "*.pyc", "*.egg-info", ".pytest_cache", ".mypy_cache", ".hypothesis", ".benchmarks", ".venv",
    "build", "dist", "node_modules", "results", ".install.lock",
)
"""What a working tree holds that is nobody else's (caches, builds, results,
and the lock the JavaScript tests take to install their npm tools, which
appears whenever one of them first runs, in parallel with this test)."""


def local(path: Path) -> bool:
    return any(fnmatch(part, pattern) for part in path.parts for pattern in LOCAL)


def test_the_readme_reader_finds_paths_and_folders() -> None:
    text = "see `bench/server.py`, deploy/haproxy.cfg, `docs/` and $HOME/server; the Dockerfile (not my/docs/rules.md), CONTRIBUTING.md"
    assert NAMED.findall(text) == ["bench/server.py", "deploy/haproxy.cfg", "docs/", "Dockerfile", "CONTRIBUTING.md"]


@pytest.mark.skipif(importlib.util.find_spec("build") is None, reason="needs the build package (pip install -e '.[test]')")
def test_the_sdist_carries_every_path_the_readme_names_and_the_repositorys_documents(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(*LOCAL))
    built = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(tmp_path / "dist"), str(tree)],
        capture_output=True, text=True, timeout=600,
    )
    assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-4000:]
    (archive,) = (tmp_path / "dist").glob("*.tar.gz")
    with tarfile.open(archive) as sdist:
        names = {name.partition("/")[2].rstrip("/") for name in sdist.getnames()}
    named = set(NAMED.findall((ROOT / "README.md").read_text(encoding="utf-8")))
    assert {"bench/", "deploy/haproxy.cfg", "Dockerfile", "docs/"} <= named, "the README names these (the reader works)"
    missing = sorted(path for path in named | REPOSITORY_FILES if path.rstrip("/") not in names)
    assert not missing, f"the sdist leaves out what the README names: {missing}"
    files = [
        path.relative_to(ROOT) for folder in SHIPPED_FOLDERS for path in files_under(ROOT / folder, lambda name: local(Path(name)))
    ]
    left_out = sorted(str(path) for path in files if not local(path) and str(path) not in names)
    assert not left_out, f"files of the repository's folders missing from the sdist: {left_out[:20]}"
    stray = [name for name in names if local(Path(name)) and not name.startswith("solitaire_arena.egg-info")]
    assert not stray, f"no caches, results or compiled files: {stray[:20]}"
