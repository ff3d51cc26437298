"""A real server that can go down and come back on the same port, and a
way to cut a player's connections from the server's side."""

from __future__ import annotations

from pathlib import Path
from typing import Awaitable, Callable

from server.transport.app import ArenaServer
from server.core import Hub
from server.runtime.settings import Settings
from server.storage.memory import MemoryStore

REPO_ROOT = Path(__file__).resolve().parents[2]


class RestartableServer:
    """``ArenaServer`` on a fixed port with a store that outlives it, as a
    server on Redis would: ``stop`` and ``start`` again lose nothing."""

    def __init__(self, make_settings: Callable[..., Settings], **settings: object) -> None:
        self.make_settings = make_settings
        self.store = MemoryStore()
        self.settings = settings
        self.port = 0
        self.running: ArenaServer | None = None

    async def start(self) -> None:
        self.running = ArenaServer(self.make_settings(**{**self.settings, "port": self.port}), store=self.store)
        await self.running.start()
        self.port = self.running.port

    async def stop(self) -> None:
        if self.running is not None:
            await self.running.shutdown()
            self.running = None

    @property
    def url(self) -> str:
        scheme = "wss" if self.settings.get("ssl_certfile") is not None else "ws"
        return f"{scheme}://127.0.0.1:{self.port}/ws"

    @property
    def hub(self) -> Hub:
        assert self.running is not None, "the server is stopped"
        return self.running.hub


ServerFactory = Callable[..., Awaitable[RestartableServer]]


CLOSE_SERVICE_RESTART = 1012


def drop_connections(arena: RestartableServer, player_id: str | None) -> None:
    """Close, from the server's side, every connection of ``player_id``
    (None: the anonymous ones), as a proxy or a crash would."""
    peers = [peer for peer in arena.hub.peers if (peer.player.player_id if peer.player else None) == player_id]
    assert peers, "nobody to disconnect"
    for peer in peers:
        peer.close(CLOSE_SERVICE_RESTART, "dropped by the test")
