"""Codecs: messages to frames and back, one per WebSocket subprotocol.

``arena.v1.json`` carries UTF-8 JSON in text frames, ``arena.v1.msgpack``
the same objects in MessagePack binary frames; a client that offers no
subprotocol gets JSON.  Encoding returns ``bytes`` in both cases so the
server can encode a message once and hand the same bytes to every
watcher (``Codec.text`` says which frame type to use).

Decoding never raises anything but ``MalformedMessage``, which carries the
request ``id`` when one could be read, so even the error about a bad
message can be matched to its request.
"""

from __future__ import annotations

import json
from typing import Any

import msgpack
from pydantic import BaseModel, TypeAdapter, ValidationError

from .to_client import SERVER_MESSAGE, ServerMessage
from .to_server import CLIENT_MESSAGE, ClientMessage

JSON_SUBPROTOCOL = "arena.v1.json"
MSGPACK_SUBPROTOCOL = "arena.v1.msgpack"


class MalformedMessage(ValueError):
    """A frame that is not a valid message; ``request_id`` if one was readable."""

    def __init__(self, message: str, request_id: int | str | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id


_KINDS = {list: "a list", str: "a string", int: "a number", float: "a number", bool: "a boolean", bytes: "bytes"}


def _readable_id(data: Any) -> int | str | None:
    if isinstance(data, dict):
        value = data.get("id")
        if isinstance(value, str) and len(value) <= 64 or isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _explain(error: ValidationError) -> str:
    """The first validation problem as one sentence a developer can act on."""
    first = error.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"])
    if first["type"] == "union_tag_invalid":
        return f"unknown message type {first['input'].get('type')!r}" if isinstance(first["input"], dict) else first["msg"]
    if first["type"] == "union_tag_not_found":
        return "the message has no 'type' field"
    if first["type"] == "extra_forbidden":
        return f"unexpected field {first['loc'][-1]!r} in a {where.split('.')[0]} message"
    return f"{where}: {first['msg']}" if where else first["msg"]


class Codec:
    """One wire format.  Subclasses set ``subprotocol`` and ``text`` and
    fill ``_load`` / ``encode_data``."""

    subprotocol: str
    text: bool

    def _load(self, frame: bytes | str) -> Any:
        raise NotImplementedError

    def encode_data(self, data: Any) -> bytes:
        """The frame for a message already turned into plain data (JSON types)."""
        raise NotImplementedError

    def _parse(self, frame: bytes | str, adapter: TypeAdapter[Any]) -> Any:
        try:
            data = self._load(frame)
        except (ValueError, RecursionError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as error:
            raise MalformedMessage(f"the frame is not {self.name}: {error or type(error).__name__}") from None
        if not isinstance(data, dict):
            raise MalformedMessage(f"a message is an object with a 'type', not {_KINDS.get(type(data), 'that')}")
        try:
            return adapter.validate_python(data)
        except ValidationError as error:
            raise MalformedMessage(_explain(error), _readable_id(data)) from None

    @property
    def name(self) -> str:
        return self.subprotocol.rsplit(".", 1)[-1].replace("json", "JSON").replace("msgpack", "MessagePack")

    def decode(self, frame: bytes | str) -> ClientMessage:
        """The client message in ``frame``; raises ``MalformedMessage``."""
        return self._parse(frame, CLIENT_MESSAGE)

    def decode_reply(self, frame: bytes | str) -> ServerMessage:
        """The server message in ``frame`` (for clients); raises ``MalformedMessage``."""
        return self._parse(frame, SERVER_MESSAGE)

    def encode(self, message: BaseModel) -> bytes:
        """The frame for ``message`` (a server or a client message)."""
        return self.encode_data(message.model_dump(mode="json"))


class JsonCodec(Codec):
    subprotocol = JSON_SUBPROTOCOL
    text = True

    def _load(self, frame: bytes | str) -> Any:
        return json.loads(frame)

    def encode_data(self, data: Any) -> bytes:
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()

    def encode(self, message: BaseModel) -> bytes:
        return message.__pydantic_serializer__.to_json(message)


class MsgpackCodec(Codec):
    subprotocol = MSGPACK_SUBPROTOCOL
    text = False

    def _load(self, frame: bytes | str) -> Any:
        if isinstance(frame, str):
            raise ValueError("MessagePack travels in binary frames, this was a text frame")
        return msgpack.unpackb(frame, raw=False, strict_map_key=True)

    def encode_data(self, data: Any) -> bytes:
        return msgpack.packb(data, use_bin_type=True)


JSON = JsonCodec()
MSGPACK = MsgpackCodec()
CODECS: dict[str, Codec] = {codec.subprotocol: codec for codec in (JSON, MSGPACK)}


def codec_for(subprotocol: str | None) -> Codec:
    """The codec of a negotiated subprotocol; JSON when none was negotiated."""
    return CODECS.get(subprotocol or "", JSON)
