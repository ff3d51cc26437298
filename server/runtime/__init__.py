"""What a server process runs on: its settings, the clock, the scheduler,
the entropy, metrics, logs, the data directory, progress lines, the
worker pools that search, and the release's version.

It may import ``server.model`` (docs/architecture.md, "The server's
folders").
"""
