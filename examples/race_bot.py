"""A bot that joins a race by its invite code and plays it by hints.

    python examples/race_bot.py CODE [SERVER_URL]

It declares itself a bot, waits through the lobby and the countdown for
its board, plays it with the hint loop of ``examples/bot.py``, prints
each rival's progress and the results when the race ends: the race API.
"""

from __future__ import annotations

import asyncio
import sys

from bot import play_by_hints

from client import DEFAULT_URL, ArenaClient, ClientError, RaceUpdate, Updates
from client.board import counted


async def report(stream: Updates[RaceUpdate], me: str | None) -> None:
    """Print the race's news until it ends (the stream ends with it)."""
    async for update in stream:
        if update.type == "race_progress" and update.racer.player_id != me:
            racer = update.racer
            print(f"{racer.name}: {racer.state}, {counted(racer.moves, 'move')}, {racer.foundation} on foundations", flush=True)
        elif update.type == "race" and update.event == "started":
            print(f"the race starts at {update.race.starts_at} (server time {update.server_time})", flush=True)


async def race_by_hints(url: str, code: str) -> None:
    """Join, play, wait for the others, print the results."""
    async with ArenaClient(url, name="race-bot", bot=True) as client:
        race = await client.join_race(code)
        host = race.info.host.name if race.info else "?"
        print(f"joined race {race.race_id} hosted by {host}; waiting for the start", flush=True)
        with race.updates() as stream:
            news = asyncio.create_task(report(stream, client.player_id))
            board = await client.race_board(race.race_id)
            await play_by_hints(client, board)
            await news
        for row in race.results or []:
            print(f"{row.place or '-'} {row.name} {row.result} {counted(row.moves, 'move')} {row.time_ms / 1000:.1f} s", flush=True)


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    url = sys.argv[2] if len(sys.argv) > 2 else DEFAULT_URL
    try:
        asyncio.run(race_by_hints(url, sys.argv[1]))
    except ClientError as error:
        print(f"error: {error}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
