"""The server without its adapter: a ``Hub`` and clients that need no socket.

Most server tests check a rule of the server (who may act, what a
watcher is shown, what a race allows), not the WebSocket adapter, and
the core decides all of those (``server.core``: frames in, frames out).
So they run here: a ``MemoryClient`` hands its frames to ``Hub.handle``
one at a time and in order, as ``server.transport.app`` does for a connection, and
records what the hub writes to it, with the same API as the real
``WireClient``.  What only the adapter does (the handshake, subprotocol
negotiation, frame size limits, admission, keepalive, slow sockets,
shutdown, HTTP) is tested through real sockets, each path once or more.

Searches and deal proofs run in threads of the test process
(``thread_workers``): the same jobs, pickled the same way as for a worker
process, so a test starts no process.  The pool of worker processes has
its own tests.  Every memory hub's prover keeps its proofs in one
``PROVEN`` for the whole test process: the tests' dailies are all under
one secret, so each day's deals are proven once, not in every test.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any, AsyncIterator, Callable

import pytest
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WAIT_SECONDS, RecordingClient

from protocol import MSGPACK_SUBPROTOCOL, codec_for
from server.core import Hub
from server.deals.proofs import DealProver, ProvenDeals
from server.runtime.clock import wall_clock_ms
from server.runtime.workers import Answer, WorkerPool, answer_of, run_job
from server.runtime.settings import Settings
from server.storage.base import Store
from server.storage.memory import MemoryStore

CLIENT_ADDRESS = "192.0.2.1"
"""Where memory clients say they connect from (TEST-NET-1)."""
CLOSE_NORMAL = 1000


PROVEN = ProvenDeals()


class ThreadWorker:
    """A pool's worker that is a thread of this process."""

    def __init__(self) -> None:
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="worker")

    def alive(self) -> bool:
        return True

    async def run(self, payload: bytes) -> Answer:
        return answer_of(await asyncio.get_running_loop().run_in_executor(self._thread, run_job, payload))

    async def stop(self) -> None:
        await asyncio.to_thread(self._thread.shutdown, wait=True, cancel_futures=True)


def thread_workers(settings: Settings) -> WorkerPool:
    """The worker pool as the settings size it, each worker a thread."""
    return WorkerPool.sized(settings, ThreadWorker)


class _ClientOutlet:
    """The hub's side of a memory connection: a frame is taken at once, as
    by an idle socket, and handed to the client."""

    def __init__(self, deliver: Callable[[bytes], None], end: Callable[[int, str], None]) -> None:
        self.deliver = deliver
        self.end = end

    def write_now(self, frame: bytes) -> bool:
        self.deliver(frame)
        return True

    def wake(self) -> None:
        raise AssertionError("a memory outlet takes every frame at once, so no frame is ever queued")

    def close(self, code: int, reason: str) -> None:
        self.end(code, reason)


class MemoryClient(RecordingClient):
    """A connection to a hub in this process; every frame the hub writes
    to it is recorded at once."""

    def __init__(self, hub: Hub, subprotocol: str | None, address: str) -> None:
        super().__init__(codec_for(subprotocol))
        self.hub = hub
        self._inbox: asyncio.Queue[bytes | str | None] = asyncio.Queue()
        self._close_code: int | None = None
        self.close_reason = ""
        outlet = _ClientOutlet(self._deliver, self._end)
        self.peer = hub.connect(self.codec, outlet, address)
        self._serving = asyncio.create_task(self._serve(), name=f"memory client {self.peer.number}")

    async def _serve(self) -> None:
        """The adapter's loop: one frame answered before the next is read;
        frames that arrive after the hub closed the peer are dropped."""
        try:
            while (frame := await self._inbox.get()) is not None:
                if not self.peer.closed:
                    await self.hub.handle(self.peer, frame)
        finally:
            self.hub.disconnect(self.peer)

    def _deliver(self, frame: bytes) -> None:
        if self._close_code is None:
            self._record(frame.decode() if self.codec.text else frame)

    def _end(self, code: int, reason: str) -> None:
        if self._close_code is None:
            self._close_code, self.close_reason = code, reason
            self._inbox.put_nowait(None)
            self._wake_waiters()

    @property
    def ended(self) -> bool:
        return self._close_code is not None

    @property
    def close_code(self) -> int | None:
        return self._close_code

    async def send_raw(self, frame: bytes | str) -> None:
        if self.ended:
            raise ConnectionError(f"connection closed: {self._close_code}")
        self._inbox.put_nowait(frame)

    async def closed(self, timeout: float = WAIT_SECONDS) -> int | None:
        async with asyncio.timeout(timeout):
            await asyncio.shield(self._serving)
        return self._close_code

    async def close(self) -> None:
        self._end(CLOSE_NORMAL, "")
        await asyncio.gather(self._serving, return_exceptions=True)


class MemoryArena:
    """One server process without sockets: the hub the adapter would serve.
    ``injected`` are the hub's clock, monotonic clock, scheduler, worker
    pool, prover and entropy, as ``server.transport.app.ArenaServer`` takes
    them; the pool defaults to ``thread_workers``, the prover to one that
    keeps its proofs in ``PROVEN``.  A memory store made here runs on the
    hub's clock."""

    def __init__(self, settings: Settings, store: Store | None = None, **injected: Any) -> None:
        self.settings = settings
        self.store = store if store is not None else MemoryStore(injected.get("clock", wall_clock_ms))
        workers = injected.setdefault("workers", thread_workers(settings))
        injected.setdefault("prover", DealProver(workers, settings.deal_proof_nodes, settings.deal_proof_attempts, PROVEN))
        self.hub = Hub(settings, self.store, **injected)
        self.clients: list[MemoryClient] = []

    async def client(self, subprotocol: str | None = MSGPACK_SUBPROTOCOL, address: str = CLIENT_ADDRESS) -> MemoryClient:
        """A new connection, speaking the codec ``subprotocol`` names (JSON
        for None, as for a WebSocket client that offers none)."""
        client = MemoryClient(self.hub, subprotocol, address)
        self.clients.append(client)
        return client

    async def __aenter__(self) -> MemoryArena:
        await self.store.ping()
        await self.hub.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.hub.drain(self.settings.shutdown_grace_seconds)
        for client in self.clients:
            await client.close()
        await self.hub.close()


@pytest.fixture
async def arena() -> AsyncIterator[MemoryArena]:
    async with MemoryArena(make_settings()) as running:
        yield running
