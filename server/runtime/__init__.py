"""What a server process runs on: its settings, the scheduler, metrics,
logs, the data directory, progress lines, the one worker pool that runs
every search and deal proof, and the release's version.

It may import ``server.model`` (docs/architecture.md, "The server's
folders").
"""
