"""The server tests' fixtures, from ``arena_fixtures``."""

from tests.server.arena_fixtures import SUBPROTOCOL_CHOICES, connect, server, subprotocol

__all__ = ["SUBPROTOCOL_CHOICES", "connect", "server", "subprotocol"]
