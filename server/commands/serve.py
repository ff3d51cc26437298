"""``arena serve``: placeholder registration until the server lands."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("serve", help="run the game server")
    parser.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:
    raise SystemExit("the server is not built yet")
