"""``arena serve``, with a friend relation of the test's own: the server
process a presence test kills.

Presence takes the friend graph as two calls (``Presence.use_friends``);
this server hands it a relation of the test's own, given as JSON on the
command line, in place of the friends part's, so the test needs no
friend requests; everything else is the real server on the real store.  Run as ``python -m tests.integration.presence_server
FRIENDS_JSON --port PORT --redis URL`` (what ``ServerProcess`` passes).
"""

from __future__ import annotations

import argparse
import asyncio
import json

from server.runtime.settings import Settings
from server.transport.app import ArenaServer, run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("friends", help='JSON: {"player id": ["friend id", ...]}')
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--redis", required=True)
    args = parser.parse_args()
    graph: dict[str, list[str]] = json.loads(args.friends)

    async def friends_of(player_id: str) -> list[str]:
        return graph.get(player_id, [])

    async def hidden(pairs: list[tuple[str, str]]) -> set[tuple[str, str]]:
        return set()

    def ready(server: ArenaServer) -> None:
        server.hub.presence.use_friends(friends_of, hidden)
        print(f"arena: listening on {server.url}", flush=True)

    settings = Settings.from_env(port=args.port, redis_url=args.redis, prepare_dailies=False)
    asyncio.run(run(settings, asyncio.Event(), ready))


if __name__ == "__main__":
    main()
