"""``arena schema``: the protocol's JSON Schema, generated from the models."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from protocol import PROTOCOL_VERSION
from protocol.schema import protocol_schema
from server.cli import EXIT_OK


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("schema", help="print the protocol's JSON Schema")
    parser.add_argument("--out", type=Path, metavar="FILE", help="write to FILE instead of standard output")
    parser.set_defaults(handler=_schema)


def _schema(args: argparse.Namespace) -> int:
    text = json.dumps(protocol_schema(PROTOCOL_VERSION), indent=2, ensure_ascii=False) + "\n"
    if args.out is None:
        print(text, end="")
    else:
        args.out.write_text(text, encoding="utf-8")
    return EXIT_OK
