"""The wire protocol: message models, codecs, error codes, version.

Pure data, no I/O, so the server and every client share it.  Read
``docs/protocol.md`` for the prose; ``arena schema`` prints the JSON
Schema generated from these models.
"""

from __future__ import annotations

from .codec import CODECS, JSON, JSON_SUBPROTOCOL, MSGPACK, MSGPACK_SUBPROTOCOL, Codec, MalformedMessage, codec_for
from .errors import ErrorCode
from .to_client import SERVER_MESSAGE, ServerMessage
from .to_server import CLIENT_MESSAGE, ClientMessage

PROTOCOL_VERSION = 1
SUBPROTOCOLS = (MSGPACK_SUBPROTOCOL, JSON_SUBPROTOCOL)

__all__ = [
    "CLIENT_MESSAGE",
    "CODECS",
    "JSON",
    "JSON_SUBPROTOCOL",
    "MSGPACK",
    "MSGPACK_SUBPROTOCOL",
    "PROTOCOL_VERSION",
    "SERVER_MESSAGE",
    "SUBPROTOCOLS",
    "ClientMessage",
    "Codec",
    "ErrorCode",
    "MalformedMessage",
    "ServerMessage",
    "codec_for",
]
