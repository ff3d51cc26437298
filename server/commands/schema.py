"""``arena schema``: the protocol's JSON Schema, or with ``--asyncapi`` its
AsyncAPI 3.0 document, or with ``--openapi`` the HTTP API's OpenAPI 3.1
document, all generated from the models."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from protocol import PROTOCOL_VERSION
from protocol.asyncapi import asyncapi_document
from protocol.http_api import API_VERSION
from protocol.openapi import openapi_document
from protocol.schema import protocol_schema
from server.transport.app import WEBSOCKET_PATH
from server.transport.listener import host_and_port
from server.runtime.exits import EXIT_OK
from server.runtime.settings import Settings


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "schema",
        help="print the protocol's JSON Schema (or its AsyncAPI document, or the HTTP API's OpenAPI document)",
        description="Print the JSON Schema of every message a client sends and receives, generated from the models "
        "the server itself validates with, for writing or checking a client in another language.",
    )
    parser.add_argument("--out", type=Path, metavar="FILE", help="write to FILE instead of standard output")
    documents = parser.add_mutually_exclusive_group()
    documents.add_argument(
        "--asyncapi", action="store_true", help="the AsyncAPI 3.0 document instead: channel, messages, operations, close codes"
    )
    documents.add_argument(
        "--openapi", action="store_true", help="the OpenAPI 3.1 document of the read-only HTTP API under /api/v1/ instead"
    )
    parser.set_defaults(handler=_schema)


def default_asyncapi() -> dict[str, Any]:
    """The AsyncAPI document naming where a server with default settings listens."""
    defaults = Settings()
    return asyncapi_document(PROTOCOL_VERSION, host=f"{defaults.host}:{defaults.port}", path=WEBSOCKET_PATH)


def default_openapi() -> dict[str, Any]:
    """The OpenAPI document naming where a server with default settings listens."""
    defaults = Settings()
    return openapi_document(API_VERSION, f"http://{host_and_port(defaults.host, defaults.port)}")


def _schema(args: argparse.Namespace) -> int:
    if args.openapi:
        document = default_openapi()
    else:
        document = default_asyncapi() if args.asyncapi else protocol_schema(PROTOCOL_VERSION)
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if args.out is None:
        print(text, end="")
    else:
        args.out.write_text(text, encoding="utf-8")
    return EXIT_OK
