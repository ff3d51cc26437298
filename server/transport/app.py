"""The asyncio adapter: websockets connections in, ``Hub`` calls out.

Everything that decides lives in ``server.core``; this module only
accepts connections, negotiates the subprotocol, feeds frames to the hub,
writes frames the hub queued, answers plain HTTP (``/healthz``,
``/metrics``, the web client's files, the read-only API under
``/api/v1/``: ``server.transport.http_api``) and shuts down gracefully:
stop accepting, let in-flight actions finish, answer every request
already received and let queued frames go out, then close every
connection with 1012 (service restart) and a reason.

Decisions: the WebSocket endpoint is ``/ws`` (other paths are HTTP, and an
upgrade elsewhere gets 404); permessage-deflate is off by default
(``compression``), because it would compress each broadcast frame once per
watcher instead of once per codec.  An address over its limits
(``server.net.admission``) is refused before any HTTP is read when it is
over its TCP flood guard or cooling down (``server.transport.listener``
resets the TCP connection as it is accepted), except for the first such
connection, which hears why; that one, and a WebSocket handshake over the
WebSocket rate or the cap of open connections, is refused at the handshake
with HTTP 429, a ``Retry-After`` header and an ``error`` message as JSON
body: no WebSocket is ever opened for it.  ``/admission`` answers, over
plain HTTP, what a handshake would hear now.  Its connection slot is taken
at the handshake and given back when the handshake task ends, whatever way
it ends, so no slot leaks when a handshake fails half way.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from typing import Callable, Sequence
from urllib.parse import urlsplit

from prometheus_client import Counter
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.typing import Subprotocol

from protocol import CODECS, JSON, SUBPROTOCOLS, codec_for
from protocol import to_client as tc
from protocol.http_api import API_PREFIX
from server.net.admission import Denial, SocketPeer
from server.core import Hub, wall_clock_ms
from server.transport.heartbeat import Heartbeat
from server.transport.http_api import HttpApi
from server.transport.keepalive import screened_by
from server.transport.listener import LISTEN_BACKLOG, admit_every, host_and_port, screened_listener, screens_at_accept
from server.transport.outlet import WebSocketOutlet
from server.transport.tls import server_context
from server.games.retention import Sweeper, retention_of
from server.runtime.collector import tune_collector
from server.runtime.entropy import Entropy
from server.runtime.logs import WEBSOCKETS_LOGGER
from server.runtime.scheduler import LoopScheduler, Scheduler
from server.runtime.workers import WorkerPool
from server.runtime.settings import Settings
from server.storage import StorageRefused, StorageUnavailable, Store, open_store
from server.transport.web import METHODS, METRICS_CONTENT_TYPE, body_refusal, respond, site_response

log = logging.getLogger("arena.app")
access = logging.getLogger("arena.access")

WEBSOCKET_PATH = "/ws"
ADMISSION_PATH = "/admission"
"""Plain HTTP: whether this address's next WebSocket handshake would be
admitted (200), or why not (429, as the handshake would be refused)."""


def select_subprotocol(connection: ServerConnection, offered: Sequence[Subprotocol]) -> Subprotocol | None:
    """The client's first offer that we speak; none (JSON) otherwise."""
    return next((choice for choice in offered if choice in CODECS), None)


class ArenaServer:
    """One server process.  Use ``async with ArenaServer(settings) as server``
    (tests) or ``await run(settings)`` (the CLI).  ``monotonic`` is the
    hub's clock of rate limits and admission, ``clock`` (ms) and
    ``scheduler`` those of races, spectator delays and keepalive pings, ``workers`` the
    worker pool of searches and proofs: all injected by tests that advance time or
    hold a search instead of sleeping, so that a timing rule seen through
    real sockets cannot fail on a loaded machine.  ``entropy`` is the hub's
    source of ids, tokens, codes and nonces (``server.runtime.entropy``),
    seeded by tests that compare the frames of two runs.  A certificate
    that cannot serve (``server.transport.tls``) raises ``SettingsError``
    here, before the store is opened or a port taken."""

    def __init__(
        self,
        settings: Settings,
        store: Store | None = None,
        monotonic: Callable[[], float] = time.monotonic,
        *,
        clock: Callable[[], int] = wall_clock_ms,
        scheduler: Scheduler | None = None,
        workers: WorkerPool | None = None,
        entropy: Entropy | None = None,
    ) -> None:
        self.settings = settings
        self.tls = server_context(settings)
        self._own_store = store is None
        scheduler = scheduler or LoopScheduler()
        self.store = store if store is not None else open_store(
            settings.redis_url, retention=retention_of(settings), clock=clock, scheduler=scheduler
        )
        self.hub = Hub(
            settings, self.store, clock=clock, monotonic=monotonic, scheduler=scheduler, workers=workers, entropy=entropy
        )
        self.api = HttpApi.of(self.hub)
        self.sweeper = Sweeper(self.store, settings, self.hub.metrics.registry, self.hub.scheduler)
        self.heartbeat = Heartbeat(settings.ping_interval, settings.ping_timeout, self.hub.scheduler)
        self._resets = Counter(
            "arena_connections_reset",
            "TCP connections reset as they were accepted (over the TCP flood guard, or cooling down).",
            registry=self.hub.metrics.registry,
        )
        self._server: Server | None = None
        self._outlets: set[WebSocketOutlet] = set()
        self._handlers: set[asyncio.Task[None]] = set()
        """Each connection's handler, for a shutdown that must not wait on one for ever."""
        self._addresses: dict[asyncio.Task[None], str] = {}

    async def start(self) -> None:
        """Open the store's work, then listen; a port that cannot be had
        (in use, say) releases what was started, so the process ends
        without its worker tasks pending."""
        await self.store.ping()
        await self.sweeper.sweep()
        await self.hub.start()
        self.sweeper.start()
        self.heartbeat.start()
        try:
            await self._listen()
        except BaseException:
            await self._stop_parts()
            raise

    async def _listen(self) -> None:
        settings = self.settings
        at_accept = screens_at_accept(asyncio.get_running_loop())
        self.listener = screened_listener(
            settings.host, settings.port, self._screen if at_accept else admit_every, self.hub.admission.barred_seconds
        )
        self.hub.admission.on_told_barred = self.listener.drop_from
        self._server = await serve(
            self._serve_connection,
            sock=self.listener,
            ssl=self.tls,
            backlog=LISTEN_BACKLOG,
            subprotocols=[Subprotocol(name) for name in SUBPROTOCOLS],
            select_subprotocol=select_subprotocol,
            process_request=self._process_request,
            create_connection=screened_by(self._another_request, None if at_accept else self._screen, self.heartbeat),
            compression="deflate" if settings.compression else None,
            logger=logging.getLogger(WEBSOCKETS_LOGGER),
            max_size=settings.max_frame_bytes,
            ping_interval=None,  # self.heartbeat pings every connection instead of a task per connection
            close_timeout=settings.close_timeout,
            write_limit=settings.write_buffer_bytes,
        )

    @property
    def port(self) -> int:
        assert self._server is not None, "start the server first"
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        scheme = "ws" if self.tls is None else "wss"
        return f"{scheme}://{host_and_port(self.settings.host, self.port)}{WEBSOCKET_PATH}"

    async def __aenter__(self) -> ArenaServer:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.shutdown()

    # ------------------------------------------------------------ connections

    async def _serve_connection(self, connection: ServerConnection) -> None:
        send_buffer = self.settings.kernel_send_buffer_bytes
        if send_buffer is not None:
            connection.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
        codec = codec_for(connection.subprotocol)
        outlet = WebSocketOutlet(connection, codec.text, self.settings.write_timeout_seconds)
        handler = asyncio.current_task()
        assert handler is not None, "websockets runs each connection's handshake and handler in one task"
        address = self._addresses[handler]
        peer = self.hub.connect(codec, outlet, address, connection.id.hex[:8])
        log.info("%r opened from %s", peer, address, extra=peer.log_fields())
        outlet.start(peer)
        self._outlets.add(outlet)
        self._handlers.add(handler)
        try:
            async for frame in connection:
                # After the core closed this peer (1008, 1013) keep reading and
                # dropping frames, so the client's close reply is read and the
                # closing handshake ends now rather than at its timeout.
                if not peer.closed:
                    outlet.handling = True
                    try:
                        await self.hub.handle(peer, frame)
                    finally:
                        outlet.handling = False
        except ConnectionClosed:
            pass
        finally:
            self.hub.disconnect(peer)
            self._outlets.discard(outlet)
            self._handlers.discard(handler)
            await outlet.finish()
            log.info("%r closed with code %s", peer, connection.close_code, extra={**peer.log_fields(), "close_code": connection.close_code})

    async def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        """Answer one HTTP request (None: upgrade it to the WebSocket),
        with its line in the access log when the operator asked for one."""
        if not self.settings.access_log:
            return await self._answer(connection, request)
        started = time.monotonic()
        response = await self._answer(connection, request)
        status = 101 if response is None else response.status_code
        duration_ms = round((time.monotonic() - started) * 1000, 3)
        peer = self._address(connection, request)
        access.info(
            "%s %s %s %s %.3f ms", peer, request.method, request.path, status, duration_ms,
            extra={"peer": peer, "method": request.method, "path": request.path, "status": status, "duration_ms": duration_ms},
        )
        return response

    async def _answer(self, connection: ServerConnection, request: Request) -> Response | None:
        path = urlsplit(request.path).path
        remote = connection.remote_address
        notice = self.hub.admission.notice((remote[0], remote[1])) if remote else None
        if notice is not None:
            return self._refuse(connection, notice)
        if (refused := body_refusal(connection, request)) is not None:
            return refused
        if path == API_PREFIX or path.startswith(API_PREFIX + "/"):
            return await self.api.answer(connection, request, self._address(connection, request))
        if request.method not in METHODS:
            log.debug("refused %s %s: method not allowed", request.method, path)
            response = respond(connection, 405, f"{request.method} is not served here: use GET\n", "text/plain")
            response.headers["Allow"] = ", ".join(METHODS)
            return response
        if request.headers.get("Upgrade", "").lower() == "websocket":
            if path != WEBSOCKET_PATH:
                log.debug("refused a WebSocket upgrade on %s", path)
                return respond(connection, 404, f"the WebSocket endpoint is {WEBSOCKET_PATH}\n", "text/plain")
            if self.hub.closing:
                return respond(connection, 503, "shutting down\n", "text/plain")
            return self._admit(connection, request)
        if path == WEBSOCKET_PATH:
            log.debug("refused %s %s without an upgrade", request.method, path)
            response = respond(connection, 426, f"{WEBSOCKET_PATH} speaks WebSocket only\n", "text/plain")
            response.headers["Upgrade"] = "websocket"
            response.headers["Connection"] = "Upgrade"
            return response
        if path == "/healthz":
            status, body = await self._health()
            return respond(connection, status, body, "text/plain")
        if path == "/metrics":
            return respond(connection, 200, self.hub.render_metrics(), METRICS_CONTENT_TYPE)
        if path == ADMISSION_PATH:
            return self._verdict(connection, request)
        return await site_response(connection, request, self.settings.static_dir, path)

    async def _health(self) -> tuple[int, str]:
        """``/healthz``: 200 while the store takes a write within
        ``health_timeout_seconds`` (``StoreHealth.probe``; a full or
        read-only Redis still answers PING, so a write is what is asked)
        and the server is not draining; 503 and the reason otherwise."""
        health = self.hub.store_health
        try:
            async with asyncio.timeout(self.settings.health_timeout_seconds):
                failure = await health.probe(self.store)
        except TimeoutError:
            failure = StorageUnavailable(f"no answer within {self.settings.health_timeout_seconds} s")
            health.failed(failure)
        if isinstance(failure, StorageRefused):
            return 503, f"storage cannot write: {failure.reason}\n"
        if failure is not None:
            return 503, "storage unavailable\n"
        return 503 if self.hub.closing else 200, "ok\n"

    def _screen(self, peer: SocketPeer) -> bool:
        """``Admission.screen``, counting the connections it resets."""
        admitted = self.hub.admission.screen(peer)
        if not admitted:
            self._resets.inc()
        return admitted

    def _another_request(self, connection: ServerConnection, request: Request) -> Response | None:
        """``Admission.another_request`` for a kept-alive connection: None,
        or its refusal (429)."""
        remote = connection.remote_address
        denial = self.hub.admission.another_request(remote[0]) if remote else None
        return None if denial is None else self._refuse(connection, denial)

    def _admit(self, connection: ServerConnection, request: Request) -> Response | None:
        """Take a connection slot for the client's address, or refuse the
        handshake (429).  The slot is given back when this handshake's task
        ends: it runs the whole connection, so that is when the TCP
        connection is gone, even if the handshake never completed."""
        address = self._address(connection, request)
        denial = self.hub.admission.open(address)
        if denial is not None:
            return self._refuse(connection, denial)
        task = asyncio.current_task()
        assert task is not None, "websockets runs each handshake in a task"
        self._addresses[task] = address
        task.add_done_callback(self._release)
        return None

    def _address(self, connection: ServerConnection, request: Request) -> str:
        header = self.settings.forwarded_for_header
        remote = connection.remote_address
        return self.hub.admission.address(remote[0] if remote else None, request.headers.get_all(header) if header else [])

    def _verdict(self, connection: ServerConnection, request: Request) -> Response:
        """``ADMISSION_PATH``: what a handshake from this address would hear now."""
        denial = self.hub.admission.verdict(self._address(connection, request))
        if denial is None:
            response = respond(connection, 200, '{"type": "admitted"}', "application/json")
        else:
            response = self._denial(connection, denial)
        response.headers["Cache-Control"] = "no-store"
        return response

    def _release(self, task: asyncio.Task[None]) -> None:
        self.hub.admission.close(self._addresses.pop(task))

    def _refuse(self, connection: ServerConnection, denial: Denial) -> Response:
        self.hub.metrics.errors.labels(denial.code.value).inc()
        return self._denial(connection, denial)

    def _denial(self, connection: ServerConnection, denial: Denial) -> Response:
        body = JSON.encode(tc.Error(code=denial.code, message=denial.message))
        response = respond(connection, 429, body, "application/json")
        response.headers["Retry-After"] = denial.retry_after_header
        return response

    # ------------------------------------------------------------ shutdown

    async def shutdown(self) -> None:
        """Stop accepting, finish in-flight actions, answer every request
        received (new ones are refused with ``shutting_down``), close each
        connection with 1012 and a reason, release the store if we opened
        it.  Everything within ``shutdown_grace_seconds``: a request still
        being handled then (one waiting on a proof, say) is cancelled, since
        websockets waits for every connection's handler to return and one
        that never does would hold the process for ever."""
        server = self._server
        if server is None:
            return
        self._server = None
        server.server.close()
        grace = self.settings.shutdown_grace_seconds
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        if not await self.hub.drain(grace):
            log.warning("shutting down with actions still in flight after %.1f s", grace)
        await asyncio.gather(*(outlet.close_for_restart(deadline) for outlet in list(self._outlets)))
        server.close()
        try:
            await asyncio.wait_for(server.wait_closed(), max(0.0, deadline - loop.time()))
        except TimeoutError:
            stuck = list(self._handlers)
            log.warning("shutdown grace of %.1f s over, connections still closing: %d requests cancelled", grace, len(stuck))
            for handler in stuck:
                handler.cancel()
            await server.wait_closed()
        await self._stop_parts()

    async def _stop_parts(self) -> None:
        self.heartbeat.stop()
        await self.sweeper.close()
        await self.hub.close()
        if self._own_store:
            await self.store.close()


async def run(settings: Settings, stop: asyncio.Event, on_ready: Callable[[ArenaServer], None] | None = None) -> None:
    """Serve until ``stop`` is set, then shut down gracefully.  The
    collector is set for a server once it listens (``tune_collector``):
    servers made in process, by tests, leave their process's collector alone."""
    server = ArenaServer(settings)
    await server.start()
    heap_watch = tune_collector(settings, lambda: len(server.hub.peers) + len(server.hub.rooms))
    try:
        if on_ready is not None:
            on_ready(server)
        await stop.wait()
    finally:
        if heap_watch is not None:
            heap_watch.cancel()
        await server.shutdown()
