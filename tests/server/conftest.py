"""The server tests' fixtures, from ``arena_fixtures`` (real sockets) and ``arena_memory`` (none)."""

from tests.server.arena_fixtures import SUBPROTOCOL_CHOICES, connect, server, subprotocol
from tests.server.arena_memory import arena

__all__ = ["SUBPROTOCOL_CHOICES", "arena", "connect", "server", "subprotocol"]
