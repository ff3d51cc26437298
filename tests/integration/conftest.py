"""The integration tests' fixtures, from ``arena_processes``."""

from arena_processes import arena_processes, clients

__all__ = ["arena_processes", "clients"]
