"""The integration tests' fixtures, from ``arena_processes``."""

from tests.integration.arena_processes import arena_processes, clients

__all__ = ["arena_processes", "clients"]
