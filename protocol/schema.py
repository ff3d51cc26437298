"""The JSON Schema of the protocol, generated from the models.

One document: ``$defs`` holds every message model, and the two unions
``ClientMessage`` (client to server) and ``ServerMessage`` (server to
client) are named at the top, so a third party can generate types or
validate frames without reading Python.  ``protocol.asyncapi`` builds its
AsyncAPI document from the same definitions (``model_schemas``).
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from .errors import ErrorCode
from .to_client import SERVER_MESSAGE
from .to_server import CLIENT_MESSAGE

REF_TEMPLATE = "#/$defs/{model}"


def _union_schema(adapter: TypeAdapter[Any], defs: dict[str, Any], ref_template: str) -> dict[str, Any]:
    schema = adapter.json_schema(ref_template=ref_template)
    defs.update(schema.pop("$defs", {}))
    return schema


def model_schemas(ref_template: str = REF_TEMPLATE) -> dict[str, Any]:
    """Every model's schema by name, the two unions ``ClientMessage`` and
    ``ServerMessage`` among them, with references built by ``ref_template``
    (where the document puts the definitions), sorted by name."""
    defs: dict[str, Any] = {}
    client = _union_schema(CLIENT_MESSAGE, defs, ref_template)
    server = _union_schema(SERVER_MESSAGE, defs, ref_template)
    defs["ClientMessage"] = {"description": "Any message a client sends.", **client}
    defs["ServerMessage"] = {"description": "Any message the server sends.", **server}
    defs["ErrorCode"]["description"] = "\n".join(f"{code.value}: {code.description}" for code in ErrorCode)
    return dict(sorted(defs.items()))


def protocol_schema(version: int) -> dict[str, Any]:
    """The whole protocol as one JSON Schema (draft 2020-12) document."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://solitaire-arena.invalid/protocol/v{version}.json",
        "title": f"Solitaire Arena protocol v{version}",
        "description": "A frame is one ClientMessage (client to server) or one ServerMessage (server to client).",
        "oneOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
        "$defs": model_schemas(),
    }
