"""``arena schema --asyncapi``: an AsyncAPI 3.0 document generated from the
models, checked for the structure AsyncAPI 3.0 requires and against the
frames a real server sent.

The official JSON Schema of AsyncAPI 3.0 is published as an npm package
(``@asyncapi/specs``), not on PyPI, and no maintained PyPI package ships
it; so the rules it enforces that matter here are stated below
(``STRUCTURE``) and checked with ``jsonschema``, together with the rules a
JSON Schema cannot say: every ``$ref`` resolves, and an operation's
messages are messages of its own channel.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import jsonschema
from tests.protocol import protocol_doc
import pytest

from protocol import PROTOCOL_VERSION, SUBPROTOCOLS, ClientMessage, ServerMessage
from protocol.asyncapi import asyncapi_document
from protocol.close_codes import CLOSE_CODES
from server.transport.app import WEBSOCKET_PATH
from server.commands.schema import default_asyncapi

KEY = {"pattern": r"^[A-Za-z0-9_.\-]+$"}
"""AsyncAPI's rule for the keys of channels, operations and components."""
EXTENSIONS: dict[str, object] = {"^x-": {}}

STRUCTURE: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["asyncapi", "info", "channels", "operations", "components"],
    "properties": {
        "asyncapi": {"const": "3.0.0"},
        "id": {"type": "string"},
        "info": {
            "type": "object",
            "required": ["title", "version"],
            "properties": {"title": {"type": "string", "minLength": 1}, "version": {"type": "string", "minLength": 1}},
        },
        "defaultContentType": {"type": "string"},
        "servers": {
            "type": "object",
            "propertyNames": KEY,
            "additionalProperties": {
                "type": "object",
                "required": ["host", "protocol"],
                "properties": {"host": {"type": "string"}, "protocol": {"type": "string"}, "pathname": {"type": "string"}},
            },
        },
        "channels": {"type": "object", "propertyNames": KEY, "additionalProperties": {"$ref": "#/$defs/channel"}},
        "operations": {"type": "object", "propertyNames": KEY, "additionalProperties": {"$ref": "#/$defs/operation"}},
        "components": {
            "type": "object",
            "properties": {
                "schemas": {"type": "object", "propertyNames": KEY, "additionalProperties": {"type": ["object", "boolean"]}},
                "messages": {"type": "object", "propertyNames": KEY, "additionalProperties": {"$ref": "#/$defs/message"}},
            },
        },
    },
    "patternProperties": EXTENSIONS,
    "additionalProperties": False,
    "$defs": {
        "reference": {
            "type": "object",
            "required": ["$ref"],
            "properties": {"$ref": {"type": "string", "pattern": "^#/"}},
            "additionalProperties": False,
        },
        "channel": {
            "type": "object",
            "required": ["address", "messages"],
            "properties": {
                "address": {"type": ["string", "null"]},
                "title": {"type": "string"},
                "summary": {"type": "string"},
                "description": {"type": "string"},
                "messages": {
                    "type": "object",
                    "propertyNames": KEY,
                    "minProperties": 1,
                    "additionalProperties": {"anyOf": [{"$ref": "#/$defs/reference"}, {"$ref": "#/$defs/message"}]},
                },
                "bindings": {"type": "object"},
            },
            "patternProperties": EXTENSIONS,
            "additionalProperties": False,
        },
        "operation": {
            "type": "object",
            "required": ["action", "channel"],
            "properties": {
                "action": {"enum": ["send", "receive"]},
                "channel": {
                    "allOf": [{"$ref": "#/$defs/reference"}, {"properties": {"$ref": {"pattern": "^#/channels/"}}}]
                },
                "title": {"type": "string"},
                "summary": {"type": "string"},
                "description": {"type": "string"},
                "messages": {"type": "array", "items": {"$ref": "#/$defs/reference"}},
            },
            "patternProperties": EXTENSIONS,
            "additionalProperties": False,
        },
        "message": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "title": {"type": "string"},
                "summary": {"type": "string"},
                "description": {"type": "string"},
                "contentType": {"type": "string"},
                "payload": {"type": "object"},
            },
            "patternProperties": EXTENSIONS,
            "additionalProperties": False,
        },
    },
}


def _pointer(document: dict[str, Any], ref: str) -> Any:
    """What a local ``$ref`` points at (a JSON pointer in ``document``);
    KeyError when nothing is there."""
    target: Any = document
    for part in ref.removeprefix("#/").split("/"):
        target = target[part.replace("~1", "/").replace("~0", "~")]
    return target


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [ref for value in node.values() for ref in _refs(value)]
    if isinstance(node, list):
        return [ref for item in node for ref in _refs(item)]
    return []


def problems(document: dict[str, Any]) -> list[str]:
    """Every way ``document`` breaks the rules of the module docstring."""
    found = [error.message for error in jsonschema.Draft202012Validator(STRUCTURE).iter_errors(document)]
    for ref in _refs(document):
        try:
            _pointer(document, ref)
        except (KeyError, IndexError, TypeError):
            found.append(f"{ref} resolves to nothing")
    for name, operation in document.get("operations", {}).items():
        channel = operation.get("channel", {}).get("$ref", "")
        for message in operation.get("messages", []):
            if not message.get("$ref", "").startswith(channel + "/messages/"):
                found.append(f"operation {name} sends a message that is not its channel's: {message}")
    return found


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return default_asyncapi()


def _message_of(document: dict[str, Any], action: str, type_name: str) -> dict[str, Any]:
    """The message of type ``type_name`` in an operation with ``action``."""
    for operation in document["operations"].values():
        if operation["action"] == action:
            for ref in operation["messages"]:
                message = _pointer(document, _pointer(document, ref["$ref"])["$ref"])
                if message["name"] == type_name:
                    return message
    raise LookupError(f"no {action} operation has a {type_name!r} message")


def _payload_validator(document: dict[str, Any], message: dict[str, Any]) -> jsonschema.Draft7Validator:
    """The message's payload schema, with the document's components to
    resolve against (AsyncAPI's schema dialect is JSON Schema draft 07's)."""
    return jsonschema.Draft7Validator({"allOf": [message["payload"]], "components": document["components"]})


def test_the_document_has_the_structure_asyncapi_3_requires(document: dict[str, Any]) -> None:
    assert problems(document) == []


def test_the_checks_catch_a_broken_document(document: dict[str, Any]) -> None:
    broken = json.loads(json.dumps(document))
    del broken["components"]["messages"]["Hello"]
    broken["operations"]["sendWelcome"]["action"] = "publish"
    broken["operations"]["receiveMove"]["messages"] = [{"$ref": "#/components/messages/Move"}]
    del broken["channels"]["arena"]["address"]
    found = problems(broken)
    assert "#/components/messages/Hello resolves to nothing" in found
    assert any("'publish' is not one of" in problem for problem in found)
    assert any("operation receiveMove" in problem for problem in found)
    assert any("'address' is a required property" in problem for problem in found)


def test_every_model_is_a_message_in_its_direction(document: dict[str, Any]) -> None:
    for action, union in (("receive", ClientMessage), ("send", ServerMessage)):
        members = typing.get_args(typing.get_args(union)[0])
        named = [
            _pointer(document, _pointer(document, ref["$ref"])["$ref"])["name"]
            for operation in document["operations"].values()
            if operation["action"] == action
            for ref in operation["messages"]
        ]
        assert sorted(named) == sorted(member.model_fields["type"].default for member in members), action


def test_every_schema_is_a_draft_07_schema(document: dict[str, Any]) -> None:
    for name, schema in document["components"]["schemas"].items():
        jsonschema.Draft7Validator.check_schema(schema)
        assert not isinstance(schema.get("discriminator", ""), dict), name


def test_the_frames_of_the_recorded_sessions_match_their_messages(document: dict[str, Any]) -> None:
    """Every frame the documented sessions recorded from a real server is
    valid under its message's payload, client frames under ``receive``
    operations, server frames under ``send``."""
    doc = protocol_doc.DOC.read_text(encoding="utf-8")
    frames = [frame for name in ("session", "race-session", "assists-session", "friends-session") for frame in protocol_doc.session_frames(doc, name)]
    assert len(frames) > 50
    for frame in frames:
        data = json.loads(frame.text)
        message = _message_of(document, "receive" if frame.way == "→" else "send", data["type"])
        errors = list(_payload_validator(document, message).iter_errors(data))
        assert not errors, (frame.line(), errors[0].message)
    hello = _payload_validator(document, _message_of(document, "receive", "hello"))
    assert not hello.is_valid({"type": "hello", "name": 7})


def test_the_channel_names_the_websocket_its_subprotocols_and_close_codes(document: dict[str, Any]) -> None:
    (channel,) = document["channels"].values()
    assert channel["address"] == WEBSOCKET_PATH
    offered = channel["bindings"]["ws"]["headers"]["properties"]["Sec-WebSocket-Protocol"]["enum"]
    assert sorted(offered) == sorted(SUBPROTOCOLS) == sorted(item["name"] for item in channel["x-subprotocols"])
    assert [entry["code"] for entry in channel["x-close-codes"]] == [code.code for code in CLOSE_CODES]
    doc = protocol_doc.DOC.read_text(encoding="utf-8")
    assert re.findall(r"^\| (\d{4}) \|", protocol_doc.section(doc, "close-codes"), re.M) == [str(code.code) for code in CLOSE_CODES]


def test_the_document_follows_the_protocol_version() -> None:
    assert asyncapi_document(7, host="example.invalid:1", path="/x")["info"]["version"] == "7"


def test_arena_schema_asyncapi_prints_the_document(tmp_path: Path, document: dict[str, Any]) -> None:
    printed = subprocess.run(
        [sys.executable, "-m", "server.cli", "schema", "--asyncapi"], capture_output=True, text=True, timeout=60
    )
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout) == json.loads(json.dumps(document))
    out = tmp_path / "asyncapi.json"
    written = subprocess.run(
        [sys.executable, "-m", "server.cli", "schema", "--asyncapi", "--out", str(out)], capture_output=True, text=True, timeout=60
    )
    assert written.returncode == 0, written.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["asyncapi"] == "3.0.0"
    assert json.loads(out.read_text(encoding="utf-8"))["info"]["version"] == str(PROTOCOL_VERSION)
