"""Subcommands of ``arena``; see ``server.cli``."""
