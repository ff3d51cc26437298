"""One open WebSocket to an arena server, and its request/reply correlation.

A ``Link`` lives as long as one connection: ``ArenaClient`` opens a new
one on every reconnection, so nothing here outlives a dropped socket.
Each request gets a fresh ``id`` and a future keyed by it; the reader task
resolves the future with the reply carrying that id, or fails it with the
``ArenaError`` of the server's code, so requests may run concurrently and
still each get their own answer.  Every message goes to ``on_message``
first (the client's mirrors), so when a request's future resolves the
mirrors already show its effect; ``on_message`` may also drop a message
(``ArenaClient``'s ``message_filter``), which then answers nothing.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import ssl
import time
from typing import Any, Callable

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidMessage, InvalidStatus, InvalidURI
from websockets.typing import Subprotocol

from protocol import JSON, Codec, MalformedMessage, ServerMessage, codec_for
from protocol import to_client as tc
from protocol import to_server as ts

from .tls import context_for
from .errors import ArenaError, CannotConnect, ClientError, ConnectionLost, ProtocolMismatch, RequestTimeout, arena_error

log = logging.getLogger("arena.client")

MAX_FRAME_BYTES = 1 << 24
PACING_SHARE = 0.9
RATE_LIMITED = "rate_limited"

MessageFilter = Callable[[ServerMessage], bool]
"""Sees a decoded message first; False drops it."""


class Pacer:
    """A token bucket mirroring the server's, a little slower, so that a
    busy bot waits a little instead of being refused with ``rate_limited``."""

    def __init__(self, limits: tc.Limits) -> None:
        self.rate = limits.messages_per_second * PACING_SHARE
        self.capacity = max(1.0, limits.burst / 2)
        self.tokens = self.capacity
        self.last = time.monotonic()

    async def take(self) -> None:
        while True:
            now = time.monotonic()
            self.tokens = min(self.capacity, self.tokens + (now - self.last) * self.rate)
            self.last = now
            if self.tokens >= 1:
                self.tokens -= 1
                return
            await asyncio.sleep((1 - self.tokens) / self.rate)


class Link:
    """A connection being read, with the requests waiting on it.

    ``on_message`` sees every decoded message before any waiting request
    hears of it, and drops it by returning False.  ``pacer`` (set after
    ``welcome``) paces every request below the server's announced rate.
    """

    def __init__(self, ws: ClientConnection, on_message: MessageFilter) -> None:
        self.ws = ws
        self.codec: Codec = codec_for(ws.subprotocol)
        self.pacer: Pacer | None = None
        self._on_message = on_message
        self._pending: dict[int, asyncio.Future[ServerMessage]] = {}
        self._ids = itertools.count(1)
        self._send_lock = asyncio.Lock()
        self.reader: asyncio.Task[None] = asyncio.create_task(self._read(), name="arena client reader")

    async def call(self, message: ts.Request, timeout: float) -> ServerMessage:
        """Send ``message`` with a fresh id and return the reply carrying it;
        raises the ``ArenaError`` of a refusal, ``RequestTimeout`` or
        ``ConnectionLost``."""
        if self.pacer is not None:
            await self.pacer.take()
        request_id = next(self._ids)
        future: asyncio.Future[ServerMessage] = asyncio.get_running_loop().create_future()
        frame = self.codec.encode(message.model_copy(update={"id": request_id}))
        try:
            async with self._send_lock:
                self._pending[request_id] = future
                await self.ws.send(frame, text=self.codec.text)
            async with asyncio.timeout(timeout):
                return await future
        except ConnectionClosed:
            raise ConnectionLost("the connection closed while sending") from None
        except TimeoutError:
            raise RequestTimeout(f"the server did not answer {request_words(message)} within {timeout:g} s") from None
        finally:
            self._pending.pop(request_id, None)

    async def close(self, error: ClientError) -> None:
        """Close the socket, wait for the reader, and fail every request
        still waiting with ``error`` (it may have been applied)."""
        await self.ws.close()
        await asyncio.gather(self.reader, return_exceptions=True)
        self.fail_pending(error)

    def fail_pending(self, error: ClientError) -> None:
        pending, self._pending = self._pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(error)

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                self._receive(frame)
        except ConnectionClosed:
            pass

    def _receive(self, frame: bytes | str) -> None:
        try:
            message = self.codec.decode_reply(frame)
        except MalformedMessage as problem:
            self._unreadable(frame, problem)
            return
        if not self._on_message(message):
            return
        if message.id is not None:
            future = self._pending.pop(message.id, None) if isinstance(message.id, int) else None
            if future is None or future.done():
                log.debug("a reply nobody waits for: %s", message.type)
            elif isinstance(message, tc.Error):
                future.set_exception(arena_error(message.code, message.message, message.reason, message.game_id))
            else:
                future.set_result(message)
        elif isinstance(message, tc.Error):
            self._unaddressed_error(arena_error(message.code, message.message, message.reason, message.game_id))

    def _unaddressed_error(self, error: ArenaError) -> None:
        """An error without an id: ``rate_limited`` has none because the
        server dropped the frame unread, and since it answers a connection's
        frames in order it is the reply to the oldest request waiting."""
        if error.code == RATE_LIMITED:
            oldest = next((future for future in self._pending.values() if not future.done()), None)
            if oldest is not None:
                oldest.set_exception(error)
                return
        log.warning("the server reported: %s", error)

    def _unreadable(self, frame: bytes | str, problem: MalformedMessage) -> None:
        """A frame the shared models reject (a newer server): an ``error``
        still fails its request (code kept), any other reply fails it with
        ``ProtocolMismatch``, anything else is logged and skipped."""
        fields = _raw_fields(frame, self.codec) or {}
        request_id = problem.request_id
        future = self._pending.pop(request_id, None) if isinstance(request_id, int) else None
        if fields.get("type") == "error":
            reason, game_id = fields.get("reason"), fields.get("game_id")
            error = arena_error(
                str(fields.get("code")),
                str(fields.get("message", "")),
                reason if isinstance(reason, str) else None,
                game_id if isinstance(game_id, str) else None,
            )
            if future is not None and not future.done():
                future.set_exception(error)
            else:
                self._unaddressed_error(error)
        elif future is not None and not future.done():
            future.set_exception(ProtocolMismatch(f"cannot read the server's reply: {problem}"))
        else:
            log.warning("skipped a server message this client cannot read: %s", problem)


async def open_link(
    url: str, subprotocol: str, timeout: float, on_message: MessageFilter, tls: ssl.SSLContext | None = None
) -> Link:
    """Connect and start reading; ``CannotConnect`` (with the server's
    refusal when the handshake carried one) if that fails.  ``tls``: whom
    a ``wss://`` URL trusts (``client.tls``; the system's CAs by default)."""
    context = context_for(url, tls)
    trust: dict[str, Any] = {} if context is None else {"ssl": context}
    try:
        ws = await connect(
            url, subprotocols=[Subprotocol(subprotocol)], open_timeout=timeout, max_size=MAX_FRAME_BYTES, **trust
        )
    except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as error:
        refusal = _handshake_refusal(error)
        reason = refusal if refusal is not None else error
        untrusted = " (to trust its certificate, give its CA: --ca FILE or ArenaClient's ca)"
        hint = untrusted if isinstance(error, ssl.SSLCertVerificationError) else ""
        if isinstance(error, InvalidMessage) and url.lower().startswith("ws:"):
            hint = " (if the server speaks TLS, its URL starts wss://)"
        raise CannotConnect(f"cannot connect to {url}: {reason}{hint}", refusal) from error
    return Link(ws, on_message)


def request_words(message: ts.Request) -> str:
    """A request as a sentence names it: ``the new game request`` (every
    request's ``type``, which the base model does not declare)."""
    kind = str(getattr(message, "type", "server"))
    return f"the {kind.replace('_', ' ')} request"


def _handshake_refusal(error: Exception) -> ArenaError | None:
    """The server's ``error`` in the body of a refused handshake (HTTP 429
    for an address over its limits), so the caller learns the stable code
    and the sentence rather than a bare status."""
    if not isinstance(error, InvalidStatus):
        return None
    try:
        message = JSON.decode_reply(bytes(error.response.body))
    except MalformedMessage:
        return None
    return arena_error(message.code, message.message) if isinstance(message, tc.Error) else None


def _raw_fields(frame: bytes | str, codec: Codec) -> dict[str, object] | None:
    """A frame's top-level object without validation (for frames the
    models reject), or None if it is not even an object."""
    try:
        data: object = json.loads(frame) if codec.text else msgpack.unpackb(frame, raw=False)
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError):
        return None
    return data if isinstance(data, dict) else None
