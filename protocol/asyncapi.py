"""The protocol as an AsyncAPI 3.0 document, generated from the models.

The same definitions as the JSON Schema (``protocol.schema``), placed
where AsyncAPI wants them (``components.schemas``), so that AsyncAPI
tooling (viewers, code generators) reads the protocol the server speaks:

- one channel, the WebSocket, whose ``ws`` binding and ``x-subprotocols``
  name the two subprotocols and whose ``x-close-codes`` list the close
  codes with their meaning;
- one message per model, named by its ``type``;
- seen from the server: a ``receive`` operation per client message and a
  ``send`` operation per server message.

AsyncAPI's own schema dialect is JSON Schema draft 07 plus a few
keywords; the models' schemas stay inside it except for pydantic's
OpenAPI-style ``discriminator`` object, which is written the AsyncAPI way:
the name of the property (``type``) that tells the members apart.
"""

from __future__ import annotations

import re
from typing import Any

from .close_codes import CLOSE_CODES
from .codec import CODECS, JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL
from .schema import model_schemas

ASYNCAPI_VERSION = "3.0.0"
CHANNEL = "arena"
SCHEMAS = "#/components/schemas/"
CONTENT_TYPES = {JSON_SUBPROTOCOL: "application/json", MSGPACK_SUBPROTOCOL: "application/vnd.msgpack"}


def _asyncapi_dialect(schema: Any) -> Any:
    """``schema`` with every discriminator object turned into its
    property name, AsyncAPI's form (see the module docstring)."""
    if isinstance(schema, list):
        return [_asyncapi_dialect(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {key: _asyncapi_dialect(value) for key, value in schema.items()}
    discriminator = converted.get("discriminator")
    if isinstance(discriminator, dict):
        converted["discriminator"] = discriminator["propertyName"]
    return converted


def _members(union_schema: dict[str, Any]) -> list[str]:
    """The model names a union's ``oneOf`` refers to, in order."""
    return [member["$ref"].removeprefix(SCHEMAS) for member in union_schema["oneOf"]]


def _message(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {
        "name": schema["properties"]["type"]["const"],
        "title": name,
        "payload": {"$ref": SCHEMAS + name},
    }
    if "description" in schema:
        message["summary"] = re.split(r"(?<=\.)\s", " ".join(schema["description"].split()), maxsplit=1)[0]
        message["description"] = schema["description"]
    return message


def _operation(action: str, name: str, type_name: str) -> dict[str, Any]:
    verb = "the server receives" if action == "receive" else "the server sends"
    return {
        "action": action,
        "channel": {"$ref": f"#/channels/{CHANNEL}"},
        "summary": f"{verb} `{type_name}`",
        "messages": [{"$ref": f"#/channels/{CHANNEL}/messages/{name}"}],
    }


def asyncapi_document(version: int, *, host: str, path: str) -> dict[str, Any]:
    """The protocol as an AsyncAPI 3.0.0 document (plain JSON data):
    ``host`` (``HOST:PORT``) and ``path`` say where the server listens by
    default, ``version`` is the protocol version."""
    schemas = _asyncapi_dialect(model_schemas(SCHEMAS + "{model}"))
    client, server = _members(schemas["ClientMessage"]), _members(schemas["ServerMessage"])
    messages = {name: _message(name, schemas[name]) for name in client + server}
    operations = {f"receive{name}": _operation("receive", name, messages[name]["name"]) for name in client}
    operations |= {f"send{name}": _operation("send", name, messages[name]["name"]) for name in server}
    subprotocols = [
        {"name": codec.subprotocol, "frames": "text" if codec.text else "binary", "contentType": CONTENT_TYPES[codec.subprotocol]}
        for codec in CODECS.values()
    ]
    return {
        "asyncapi": ASYNCAPI_VERSION,
        "info": {
            "title": "Solitaire Arena",
            "version": str(version),
            "description": (
                f"Version {version} of the Solitaire Arena protocol: an authoritative real-time solitaire server "
                "over one WebSocket. Every message is an object with a `type`; a request may carry an `id`, and "
                "the server's one reply to it carries the same `id`. docs/protocol.md is the full guide."
            ),
        },
        "defaultContentType": "application/json",
        "servers": {
            "local": {"host": host, "protocol": "ws", "description": "A server run with its default settings."},
        },
        "channels": {
            CHANNEL: {
                "address": path,
                "title": "The arena connection",
                "description": (
                    "One WebSocket per client. Offer a subprotocol (`Sec-WebSocket-Protocol`): "
                    + ", ".join(f"`{item['name']}` ({item['frames']} frames, {item['contentType']})" for item in subprotocols)
                    + "; a client that offers none speaks JSON. The messages are the same objects in both.\n\n"
                    "Close codes:\n\n" + "\n".join(f"- {code.code}: {code.when}" for code in CLOSE_CODES)
                ),
                "messages": {name: {"$ref": f"#/components/messages/{name}"} for name in messages},
                "bindings": {
                    "ws": {
                        "bindingVersion": "0.1.0",
                        "method": "GET",
                        "headers": {
                            "type": "object",
                            "properties": {
                                "Sec-WebSocket-Protocol": {"type": "string", "enum": [item["name"] for item in subprotocols]}
                            },
                        },
                    }
                },
                "x-subprotocols": subprotocols,
                "x-close-codes": [{"code": code.code, "when": code.when} for code in CLOSE_CODES],
            }
        },
        "operations": operations,
        "components": {"schemas": schemas, "messages": messages},
    }
