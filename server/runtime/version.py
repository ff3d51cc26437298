"""The release this process runs, as ``arena --version``, the start-up log
line and ``/metrics``' ``arena_build`` report it."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def arena_version() -> str:
    """The installed distribution's version; a source tree run without
    installing (``PYTHONPATH=.``) has no metadata and says so."""
    try:
        return version("solitaire-arena")
    except PackageNotFoundError:
        return "unknown (not installed)"
