"""`arena serve` as real child processes, and the clients that talk to them.

The integration tests run the server the way an operator does: a
subprocess started with ``arena serve --port 0`` on a store, whose port
the test learns from the line it prints once it is listening.  Killing it
(``kill -9``) and starting it again on the same port is then a real crash
and a real restart; nothing of the old process survives but its store
(Redis, or the SQLite database of its data directory).

The wire client and the mirror come from the server tests
(``tests/server/arena_wire.py``), imported from there, not copied.  This
module holds fixtures instead of a ``conftest.py``, because a second
``conftest.py`` would shadow the one other test directories load from
``tests/server`` by file path; test modules import the fixtures they use.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import AsyncIterator, Awaitable, Callable

import pytest
from tests.integration.stored_state import reading
from tests.server.arena_wire import Mirror, WireClient

from server.model.records import Action

ROOT = Path(__file__).resolve().parents[2]

LISTENING = "arena: listening on "
# Hang bounds only, so generous: a passing run never waits for them, while
# at load 20 on 2 cores a child's imports and start-up settling alone can
# take most of 20 s.
START_SECONDS = 120.0
STOP_SECONDS = 10.0
HEALTH_SECONDS = 30.0

# Loopback test servers: no keepalive pings to wait for, and no rate limit
# in the way of tests that send many requests at once.
TEST_ENVIRONMENT = {
    "ARENA_PING_INTERVAL": "none",
    "ARENA_RATE_PER_SECOND": "100000",
    "ARENA_RATE_BURST": "100000",
    "ARENA_READS_BURST": "100000",
    "ARENA_NEW_GAMES_BURST": "100000",
    "ARENA_SHUTDOWN_GRACE_SECONDS": "2",
    "ARENA_ALLOW_POSITIONS": "true",
}


class ServerProcess:
    """One ``arena serve`` child process on the store at ``store_url`` (with
    ``data_dir`` as its data directory, if given); ``start`` may follow
    ``kill`` or ``stop``, on the same port and store."""

    def __init__(
        self, store_url: str, directory: Path, name: str, environment: dict[str, str] | None = None,
        data_dir: Path | None = None, program: list[str] | None = None,
    ) -> None:
        self.program = program or [sys.executable, "-m", "server.cli", "serve"]
        """What runs: ``arena serve``, or a test's own server taking its options."""
        # ``--redis`` is what older checkouts (a bench's baseline) understand;
        # newer ones read it as ``--store``.
        self.store_arguments = ["--store", store_url, "--data", str(data_dir)] if data_dir else ["--redis", store_url]
        self.environment = {**TEST_ENVIRONMENT, **(environment or {})}
        self.name = name
        self.output = directory / f"{name}.out"
        self.errors = directory / f"{name}.err"
        self.port = 0
        self.url = ""
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self._process is not None, f"{self.name} is not running"
        return self._process.pid

    async def start(self) -> None:
        """Run the server (on its former port, if it had one) and return
        once it prints that it listens."""
        assert self._process is None, f"{self.name} is already running"
        command = [*self.program, "--port", str(self.port), *self.store_arguments]
        with self.output.open("wb") as stdout, self.errors.open("ab") as stderr:
            self._process = subprocess.Popen(
                command, cwd=ROOT, stdout=stdout, stderr=stderr, env={**os.environ, **self.environment}
            )
        deadline = asyncio.get_running_loop().time() + START_SECONDS
        while (line := self._listening_line()) is None:
            if self._process.poll() is not None or asyncio.get_running_loop().time() > deadline:
                self.kill()
                raise RuntimeError(f"{self.name} did not start:\n{self.log()}")
            await asyncio.sleep(0.02)
        self.url = line.removeprefix(LISTENING).strip()
        self.port = int(self.url.rsplit(":", 1)[1].split("/", 1)[0])

    def _listening_line(self) -> str | None:
        for line in self.output.read_text(errors="replace").splitlines():
            if line.startswith(LISTENING):
                return line
        return None

    def kill(self) -> None:
        """``kill -9``: no shutdown, no flush, no goodbye to anyone."""
        self._end(signal.SIGKILL)

    def stop(self) -> None:
        """SIGTERM: the graceful shutdown an operator asks for."""
        self._end(signal.SIGTERM)

    def _end(self, signum: int) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signum)
        try:
            process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def log(self) -> str:
        """What the process wrote to stderr (for failure messages)."""
        return self.errors.read_text(errors="replace")[-4000:] if self.errors.exists() else ""

    async def health(self) -> int:
        """The HTTP status of ``/healthz`` (what a container health check sees)."""
        address = self.url.replace("ws://", "http://").removesuffix("/ws") + "/healthz"

        def fetch() -> int:
            try:
                with urllib.request.urlopen(address, timeout=HEALTH_SECONDS) as response:
                    return int(response.status)
            except urllib.error.HTTPError as error:
                return int(error.code)

        return await asyncio.to_thread(fetch)


ServerStarter = Callable[..., Awaitable[ServerProcess]]
ClientOpener = Callable[..., Awaitable[WireClient]]


@pytest.fixture
async def arena_processes(tmp_path: Path) -> AsyncIterator[ServerStarter]:
    """Start ``arena serve`` processes on a Redis URL (with ``ARENA_*``
    variables of the test's own beside ``TEST_ENVIRONMENT``); every one is
    killed at the end of the test, whatever happened."""
    started: list[ServerProcess] = []

    async def start(redis_url: str, environment: dict[str, str] | None = None) -> ServerProcess:
        process = ServerProcess(redis_url, tmp_path, f"arena-{len(started) + 1}", environment)
        started.append(process)
        await process.start()
        return process

    yield start
    for process in started:
        process.kill()


@pytest.fixture
async def clients() -> AsyncIterator[ClientOpener]:
    """Open wire clients (MessagePack unless told); all closed at the end."""
    opened: list[WireClient] = []

    async def open_client(url: str, subprotocol: str = "arena.v1.msgpack") -> WireClient:
        client = await WireClient.open(url, subprotocol)
        opened.append(client)
        return client

    yield open_client
    for client in opened:
        await client.close()


async def stored_log(store_url: str, game_id: str) -> list[Action]:
    """The game's log as the store has it, read with a store of the test's own."""
    async with reading(store_url) as store:
        loaded = await store.load_session(game_id)
    assert loaded is not None, f"{game_id} is not in the store"
    return loaded[1]


def view_of(message: object) -> dict[str, object]:
    """A snapshot's view as plain data, comparable with a ``Mirror``'s."""
    view = getattr(message, "view")
    return dict(view.model_dump())


__all__ = ["Mirror", "ServerProcess", "WireClient", "arena_processes", "clients", "stored_log", "view_of"]
