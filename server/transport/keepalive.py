"""Plain HTTP answered on kept-alive connections, on websockets' port.

websockets answers the one request of a connection that is not a
WebSocket upgrade and closes it (``Connection: close``): loading the web
client then took a TCP connection per file, about 28, each a handshake,
an ``accept`` and the admission's screening.  ``KeepAliveConnection``
(handed to ``serve`` as ``create_connection``, the documented way to
customise a connection) answers plain GET and HEAD requests one after
another on the same connection instead, as HTTP/1.1 does by default,
and hands the first request it does not keep alive for (a WebSocket
upgrade, a refusal, ``Connection: close``, a connection past its time)
to websockets' own handshake, unchanged: a WebSocket opened on a
connection that served files first is like any other.

A connection is kept alive for ``KEEP_ALIVE_SECONDS`` from when it was
accepted: websockets gives the whole opening handshake ``open_timeout``
(10 s by default) and aborts the connection after it, so the last answer
is sent well before, with ``Connection: close``, and a connection idle
until then is closed.  An idle connection also closes as soon as the
server stops serving (checked every ``IDLE_CHECK_SECONDS``), so a
shutdown does not wait for browsers' idle connections.

A connection can be screened as it is made (``screen_connection``, the
listener's screening on a loop that bypasses it,
``server.transport.listener.screens_at_accept``): one refused is reset
before it reads a byte.
Each request after a connection's first is screened first
(``screen_request``; the server counts it against its TCP flood guard,
``server.net.admission``), so a loop gains nothing by keeping a connection.

Between requests the connection resets what websockets keeps of the one
before (the request, its future and the request parser of its Sans-I/O
protocol): websockets has no public way to read a second request.  If
that state is not what this module expects (another websockets
version), the connection answers as websockets does, one request and
close; ``tests/server/test_server_keepalive.py`` fails then.  Once a
WebSocket is open the connection keeps neither its handshake's headers
nor this module's parser, which websockets never reads again: an idle
WebSocket would otherwise hold them as long as it lives.

A request that announces a body (``Content-Length`` above 0, or
``Transfer-Encoding``) is answered like the same request without one:
websockets' parser refuses such a request by closing the connection
unanswered, so the connection's parser (``_parse_request``) takes the
body's headers out of the head before websockets parses it, keeps them
as ``body``, and drops the body and whatever follows unread.  Such a
request is its connection's last, and the server may refuse the body
itself (``server.transport.web.body_refusal``: 413, or 400 on an upgrade).

An open WebSocket joins the server's ``Heartbeat``
(``server.transport.heartbeat``) where websockets would start its own
keepalive task, and leaves it as the TCP connection is lost, where
websockets would cancel that task.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Generator

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import MAX_LINE_LENGTH, MAX_NUM_HEADERS, Request, Response
from websockets.protocol import State
from websockets.server import ServerProtocol

from server.net.admission import SocketPeer
from server.transport.heartbeat import Heartbeat
from server.transport.listener import reset

KEEP_ALIVE_SECONDS = 5.0
"""How long after it was accepted a connection still serves one more
request: half of websockets' default ``open_timeout``."""
IDLE_CHECK_SECONDS = 0.5
"""How often an idle connection checks that the server still serves."""
ScreenRequest = Callable[[ServerConnection, Request], "Response | None"]
"""Before a further request on a connection: None, or the refusal to answer it."""
KEPT_STATUSES = frozenset({200, 304, 404})
"""Answers after which the connection stays open; any other (a refusal,
an error, a 426 asking for an upgrade) is the connection's last."""
MAX_HEAD_BYTES = (MAX_NUM_HEADERS + 1) * MAX_LINE_LENGTH
"""The longest request head websockets would read: past it, its parser refuses."""
BODY_HEADERS = (b"content-length", b"transfer-encoding")
OPENED = Request("/", Headers())
"""A placeholder every open WebSocket keeps in place of its handshake's
request: websockets needs one there (without, it would take the next
frame for a request) and reads nothing of it."""


@dataclass(frozen=True)
class AnnouncedBody:
    """The body a request announced, which the server never reads:
    ``length`` as ``Content-Length`` says it, None when sent in chunks."""

    length: int | None


def announced_body(head_lines: list[bytes]) -> AnnouncedBody | None:
    """The body a request's header lines announce, if any (a
    ``Content-Length`` of 0 announces none, as websockets reads it)."""
    values = {}
    for line in head_lines:
        name, colon, value = line.partition(b":")
        if colon:
            values[name.strip().lower()] = value.strip()
    if b"transfer-encoding" in values:
        return AnnouncedBody(None)
    length = values.get(b"content-length", b"0")
    if length == b"0":
        return None
    return AnnouncedBody(int(length) if length.isdigit() else None)


class KeepAliveConnection(ServerConnection):
    """A websockets server connection that answers plain HTTP requests
    on a kept-alive connection (see the module docstring).  Before each
    request after the first, ``screen_request`` may refuse it (its answer
    is then the connection's last): a request on a kept-alive connection
    should cost what the new connection it saves would have.  A server
    sets it on a subclass of its own (``screened_by``), since websockets
    makes connections from a class."""

    screen_request: ScreenRequest | None = None
    screen_connection: Callable[[SocketPeer], bool] | None = None
    """Whether to serve a connection from this address and port at all."""
    heartbeat: Heartbeat | None = None
    """The server's keepalive pings (None: websockets' own, a task per connection)."""

    def __init__(self, protocol: ServerProtocol, *args: Any, **kwargs: Any) -> None:
        super().__init__(protocol, *args, **kwargs)
        self.body: AnnouncedBody | None = None
        self._read_next_request()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        if self.screen_connection is not None and not self.screen_connection(transport.get_extra_info("peername")[:2]):
            reset(transport.get_extra_info("socket"))
            self.transport.abort()

    def start_keepalive(self) -> None:
        if self.heartbeat is None:
            super().start_keepalive()
        else:
            self.heartbeat.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self.heartbeat is not None:
            self.heartbeat.discard(self)
        # websockets sets the server's subprotocol chooser on the protocol
        # as a closure over this connection: a reference cycle, which would
        # keep each closed connection alive until a full collection.
        vars(self.protocol).pop("select_subprotocol", None)

    def _read_next_request(self) -> None:
        """Parse the next request with ``_parse_request`` (no data of it has come yet)."""
        self.protocol.parser = self._parse_request()
        next(self.protocol.parser)

    def _parse_request(self) -> Generator[None, None, None]:
        """websockets' own request parser once the head has come, except
        for a head announcing a body (see the module docstring)."""
        protocol, reader = self.protocol, self.protocol.reader
        searched = 0
        while (end := reader.buffer.find(b"\r\n\r\n", searched)) < 0 and len(reader.buffer) <= MAX_HEAD_BYTES and not reader.eof:
            searched = max(0, len(reader.buffer) - 3)
            yield
        lines = bytes(reader.buffer[:end]).split(b"\r\n") if end >= 0 else []
        self.body = announced_body(lines[1:])
        if self.body is None:
            # websockets' parser takes over, as websockets' own parser hands
            # over to another on a bad request: this generator, and the head's
            # lines it holds, are dropped rather than kept as long as the
            # WebSocket lives.
            protocol.parser = ServerProtocol.parse(protocol)
            next(protocol.parser)
            yield
            return
        kept = [lines[0]] + [line for line in lines[1:] if line.split(b":", 1)[0].strip().lower() not in BODY_HEADERS]
        reader.buffer[:] = b"".join(line + b"\r\n" for line in kept) + b"\r\n"
        websockets_parser = ServerProtocol.parse(protocol)
        # The whole head is buffered: one step parses it (the request, or
        # websockets' own refusal of a bad head, which replaces this parser)
        # and stops where it would wait for a WebSocket frame.
        next(websockets_parser)
        if protocol.handshake_exc is None:
            while not (yield from reader.at_eof()):
                reader.discard()
        while True:
            yield

    async def handshake(
        self,
        process_request: Any = None,
        process_response: Any = None,
        server_header: Any = None,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        until = self.loop.time() + KEEP_ALIVE_SECONDS
        await asyncio.wait([self.request_rcvd, self.connection_lost_waiter], return_when=asyncio.FIRST_COMPLETED)
        served = 0
        while process_request is not None and process_response is None and self.body is None and _kept_alive_for(self.request):
            assert self.request is not None
            refused = self.screen_request(self, self.request) if served and self.screen_request is not None else None
            if refused is not None:
                process_request = _answering(refused)
                break
            try:
                response = process_request(self, self.request)
                if isinstance(response, Awaitable):
                    response = await response
            except Exception as error:
                # As websockets' own handshake does: logged, and a 500 that ends the connection.
                self.protocol.handshake_exc = error
                self.logger.error("process_request failed", exc_info=True)
                process_request = _answering(self.protocol.reject(500, "Failed to answer.\nSee server log for more information.\n"))
                break
            served += 1
            if not (response is not None and response.status_code in KEPT_STATUSES and self.loop.time() < until and self._may_read_again()):
                process_request = _answering(response)
                break
            if not await self._answer(response, server_header, until):
                return
        await super().handshake(process_request, process_response, server_header, *args, **kwargs)
        if self.protocol.state is State.OPEN and self.request is not None:
            # websockets reads neither past the handshake, and their headers
            # are most of what an idle WebSocket would otherwise keep.
            self.request = OPENED
            self.response = None

    async def _answer(self, response: Response, server_header: Any, until: float) -> bool:
        """Send ``response`` keeping the connection, and wait for the next
        request: whether one came (False: the connection is closed)."""
        headers = response.headers
        for name in ("Connection", "Server", "Keep-Alive"):
            if name in headers:
                del headers[name]
        headers["Keep-Alive"] = f"timeout={max(1, int(until - self.loop.time()))}"
        if server_header is not None:
            headers["Server"] = server_header
        self.request = None
        self.request_rcvd = self.loop.create_future()
        self._read_next_request()
        self.transport.write(response.serialize())
        await self.drain()
        while not self.request_rcvd.done() and not self.connection_lost_waiter.done():
            left = until - self.loop.time()
            if left <= 0 or not self.server.is_serving():
                self.transport.close()
                return False
            await asyncio.wait(
                [self.request_rcvd, self.connection_lost_waiter],
                timeout=min(left, IDLE_CHECK_SECONDS),
                return_when=asyncio.FIRST_COMPLETED,
            )
        return self.request is not None

    def _may_read_again(self) -> bool:
        """Whether the connection is as a first request leaves it: nothing
        read past that request, and websockets' state where expected."""
        protocol = self.protocol
        return (
            protocol.state is State.CONNECTING
            and not protocol.reader.buffer
            and not protocol.eof_sent
            and hasattr(protocol, "parse")
            and isinstance(self.request_rcvd, asyncio.Future)
        )


def _kept_alive_for(request: Request | None) -> bool:
    """Whether ``request`` may be answered with the connection kept open:
    one that asks neither for an upgrade nor for the connection to close
    (a request with a body is always the last: its body is dropped, and
    the server refuses methods other than GET and HEAD, and a refusal
    ends the connection)."""
    if request is None:
        return False
    tokens = {token.strip().lower() for value in request.headers.get_all("Connection") for token in value.split(",")}
    return "close" not in tokens and "upgrade" not in tokens and "Upgrade" not in request.headers


def _answering(response: Response | None) -> Any:
    """A ``process_request`` that answers ``response`` (computed already),
    for websockets' own handshake to send as the connection's last."""

    def process_request(connection: ServerConnection, request: Request) -> Response | None:
        return response

    return process_request


def screened_by(
    screen_request: ScreenRequest,
    screen_connection: Callable[[SocketPeer], bool] | None = None,
    heartbeat: Heartbeat | None = None,
) -> type[KeepAliveConnection]:
    """``KeepAliveConnection`` with ``screen_request`` (and ``screen_connection``,
    ``heartbeat``), for ``serve``'s ``create_connection``."""
    screens: dict[str, object] = {"screen_request": staticmethod(screen_request), "heartbeat": heartbeat}
    if screen_connection is not None:
        screens["screen_connection"] = staticmethod(screen_connection)
    return type("ScreenedKeepAliveConnection", (KeepAliveConnection,), screens)
