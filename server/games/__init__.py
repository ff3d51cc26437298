"""Games held by this process: rooms and their table, the table of held
logs and the channel between processes that races share, play and the
delivery of its changes, watching and delayed boards, replays, records,
leaderboards, assists, the lobby's requests and the retention sweeper.

It may import ``server.model``, ``server.runtime``, ``server.storage``,
``server.net`` and ``server.deals`` (docs/architecture.md, "The server's
folders").
"""
