"""Codecs: messages to frames and back, one per WebSocket subprotocol.

``arena.v1.json`` carries UTF-8 JSON in text frames, ``arena.v1.msgpack``
the same objects in MessagePack binary frames; a client that offers no
subprotocol gets JSON.  Encoding returns ``bytes`` in both cases so the
server can encode a message once and hand the same bytes to every
watcher (``Codec.text`` says which frame type to use).

Decoding never raises anything but ``MalformedMessage``, which carries the
request ``id`` when one could be read, so even the error about a bad
message can be matched to its request.

Before a client message meets its model, ``_check_plain`` refuses what
one codec can read but the other cannot write back, or what no message
holds: nesting deeper than ``MAX_DEPTH``, integers outside signed 64-bit
(MessagePack's range; JSON reads any size), floats that are NaN or
infinite (not JSON), and strings with lone surrogates (JSON's ``\\ud800``
escapes, which no UTF-8 encoder writes).  Any of them could otherwise be
stored and then break every reply that shows it, to any client.
"""

from __future__ import annotations

import json
import math
from typing import Any, TypeVar

import msgpack
from pydantic import BaseModel, TypeAdapter, ValidationError

from .to_client import SERVER_MESSAGE, ServerMessage
from .to_server import CLIENT_MESSAGE, SAFE_INTEGER, ClientMessage

Message = TypeVar("Message")

JSON_SUBPROTOCOL = "arena.v1.json"
MSGPACK_SUBPROTOCOL = "arena.v1.msgpack"


class MalformedMessage(ValueError):
    """A frame that is not a valid message; ``request_id`` if one was readable."""

    def __init__(self, message: str, request_id: int | str | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id


MAX_DEPTH = 8
"""Containers inside containers a client message may have (``options`` is
the deepest field, at two); deeper ones are refused before validation, so
no validator or ``repr`` ever recurses far."""
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _refusal(value: object) -> str | None:
    """Why a scalar cannot travel both ways, or None."""
    if isinstance(value, str) and _has_surrogate(value):
        return "a string holds a lone surrogate (not UTF-8)"
    if isinstance(value, int) and not isinstance(value, bool) and not INT64_MIN <= value <= INT64_MAX:
        return "an integer is outside signed 64-bit"
    if isinstance(value, float) and not math.isfinite(value):
        return "a number is NaN or infinite"
    return None


def _check_plain(data: dict[Any, Any]) -> None:
    """Raise ``MalformedMessage`` unless ``data`` is plain data both codecs
    carry (see the module docstring); iterative, so depth costs no stack.
    ASCII text is passed over without ``_refusal``: it is most of what a
    client sends (every field of a move), and holds no surrogate."""
    pending: list[tuple[dict[Any, Any] | list[Any], int]] = [(data, 0)]
    while pending:
        container, depth = pending.pop()
        if depth >= MAX_DEPTH:
            raise MalformedMessage(f"the message nests deeper than {MAX_DEPTH} levels", _readable_id(data))
        items: list[object] = [*container.keys(), *container.values()] if isinstance(container, dict) else container
        for item in items:
            if type(item) is str and item.isascii():
                continue
            if isinstance(item, (dict, list)):
                pending.append((item, depth + 1))
            elif (problem := _refusal(item)) is not None:
                raise MalformedMessage(problem, _readable_id(data))


_KINDS = {list: "a list", str: "a string", int: "a number", float: "a number", bool: "a boolean", bytes: "bytes"}


def _readable_id(data: object) -> int | str | None:
    if isinstance(data, dict):
        value = data.get("id")
        if isinstance(value, str) and len(value) <= 64 and not _has_surrogate(value):
            return value
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= SAFE_INTEGER:
            return value
    return None


def _is_member_tag(part: int | str) -> bool:
    """Whether a location part names a member of a union (pydantic's
    ``bool``, ``constrained-int``, ``literal[...]``), not a field."""
    return isinstance(part, str) and part != "[key]" and ("-" in part or "[" in part or part in ("bool", "int", "str", "none"))


def _short(text: str) -> str:
    """Text a client chose, cut to fit in an error sentence."""
    return text if len(text) <= 40 else text[:37] + "..."


def _clip(value: object) -> str:
    return _short(repr(value))


def _where(loc: tuple[int | str, ...]) -> str:
    """A field's place, each part clipped (a client chooses option names)."""
    return ".".join(_short(str(part)) for part in loc)


def _explain(error: ValidationError) -> str:
    """The first validation problem as one sentence a developer can act on
    (a value that fits no member of a union lists what each would take)."""
    errors = error.errors(include_url=False)
    first = errors[0]
    where = _where(first["loc"])
    if len(first["loc"]) > 1 and _is_member_tag(first["loc"][-1]):
        field = first["loc"][:-1]
        wanted = [problem["msg"].removeprefix("Input should be ") for problem in errors if problem["loc"][:-1] == field]
        return f"{_where(field)}: Input should be {', or '.join(wanted)}"
    if first["type"] == "union_tag_invalid":
        return f"unknown message type {_clip(first['input'].get('type'))}" if isinstance(first["input"], dict) else first["msg"]
    if first["type"] == "union_tag_not_found":
        return "the message has no 'type' field"
    if first["type"] == "extra_forbidden":
        return f"unexpected field {_clip(first['loc'][-1])} in a {where.split('.')[0]} message"
    return f"{where}: {first['msg']}" if where else first["msg"]


class Codec:
    """One wire format.  Subclasses set ``subprotocol`` and ``text`` and
    fill ``_load`` / ``encode_data``."""

    subprotocol: str
    text: bool

    def _load(self, frame: bytes | str) -> object:
        raise NotImplementedError

    def encode_data(self, data: Any) -> bytes:
        """The frame for a message already turned into plain data (JSON types)."""
        raise NotImplementedError

    def _parse(self, frame: bytes | str, adapter: TypeAdapter[Message], check: bool = False) -> Message:
        try:
            data = self._load(frame)
        except (ValueError, RecursionError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as error:
            raise MalformedMessage(f"the frame is not {self.name}: {error or type(error).__name__}") from None
        if not isinstance(data, dict):
            raise MalformedMessage(f"a message is an object with a 'type', not {_KINDS.get(type(data), 'that')}")
        if check:
            _check_plain(data)
        try:
            return adapter.validate_python(data)
        except ValidationError as error:
            raise MalformedMessage(_explain(error), _readable_id(data)) from None

    @property
    def name(self) -> str:
        return self.subprotocol.rsplit(".", 1)[-1].replace("json", "JSON").replace("msgpack", "MessagePack")

    def decode(self, frame: bytes | str) -> ClientMessage:
        """The client message in ``frame``; raises ``MalformedMessage``."""
        return self._parse(frame, CLIENT_MESSAGE, check=True)

    def decode_reply(self, frame: bytes | str) -> ServerMessage:
        """The server message in ``frame`` (for clients); raises ``MalformedMessage``."""
        return self._parse(frame, SERVER_MESSAGE)

    def encode(self, message: BaseModel) -> bytes:
        """The frame for ``message`` (a server or a client message)."""
        return self.encode_data(message.model_dump(mode="json"))


class JsonCodec(Codec):
    subprotocol = JSON_SUBPROTOCOL
    text = True

    def _load(self, frame: bytes | str) -> object:
        return json.loads(frame)

    def encode_data(self, data: Any) -> bytes:
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()

    def encode(self, message: BaseModel) -> bytes:
        return message.__pydantic_serializer__.to_json(message)


_pack = msgpack.Packer(use_bin_type=True, autoreset=True).pack
"""One packer for every frame and every relay announcement
(``server.games.relay.pack``): ``msgpack.packb`` builds a new one per
call, which was two thirds of packing a diff.  Packing runs no Python
code and a failed pack empties the packer's buffer, so sharing it is
safe."""


class MsgpackCodec(Codec):
    subprotocol = MSGPACK_SUBPROTOCOL
    text = False

    def _load(self, frame: bytes | str) -> object:
        if isinstance(frame, str):
            raise ValueError("MessagePack travels in binary frames, this was a text frame")
        return msgpack.unpackb(frame, raw=False, strict_map_key=True)

    def encode_data(self, data: Any) -> bytes:
        packed: bytes = _pack(data)
        return packed


JSON = JsonCodec()
MSGPACK = MsgpackCodec()
CODECS: dict[str, Codec] = {codec.subprotocol: codec for codec in (JSON, MSGPACK)}


def codec_for(subprotocol: str | None) -> Codec:
    """The codec of a negotiated subprotocol; JSON when none was negotiated."""
    return CODECS.get(subprotocol or "", JSON)
