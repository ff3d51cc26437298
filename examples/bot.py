"""A bot that plays today's daily deal by following the server's hints.

    python examples/bot.py [SERVER_URL] [GAME]

(defaults: ws://127.0.0.1:8765/ws and klondike).  It shows how little a
client needs: connect, start a game, ask for a hint, play it, repeat.
It stops when the game is over, when no hint is useful, or when a
position comes back (the hints are going round in circles, e.g. drawing
through the stock with nothing to play); a game it cannot finish it
resigns, so every run ends with a result.  ``examples/race_bot.py``
plays a race with the same loop.
"""

from __future__ import annotations

import asyncio
import json
import sys

from client import DEFAULT_URL, ArenaClient, GameMirror


async def play_by_hints(client: ArenaClient, game: GameMirror) -> str:
    """Play ``game`` by hints to its end (resigning when stuck); the result."""
    seen: set[str] = set()
    while game.status == "playing":
        position = json.dumps(game.view, sort_keys=True)
        if position in seen:
            print("the hints go round in circles", flush=True)
            break
        seen.add(position)
        move = await client.hint(game.game_id)
        if move is None:
            print("no useful move left", flush=True)
            break
        await client.move(game.game_id, move)
    if not game.finished:
        print(f"resigning a game that is {game.status}", flush=True)
        await client.resign(game.game_id)
    await game.wait_until(lambda mirror: mirror.result is not None)
    assert game.result is not None
    over = game.result
    score = f", score {over.score}" if over.score is not None else ""
    print(f"{over.result}: {over.moves} moves in {over.time_ms / 1000:.1f} s{score}, deal {over.deal}", flush=True)
    return over.result


async def play_daily(url: str, game_name: str) -> str:
    """Play the daily deal of ``game_name``; return the result."""
    async with ArenaClient(url, name="hint-bot") as client:
        game = await client.new_game(game_name, deal="daily")
        print(f"playing {game.title} {game.game_id}, the daily deal", flush=True)
        return await play_by_hints(client, game)


def main() -> int:
    url = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_URL
    game_name = sys.argv[2] if len(sys.argv) > 2 else "klondike"
    result = asyncio.run(play_daily(url, game_name))
    return 0 if result in ("won", "lost", "resigned") else 1


if __name__ == "__main__":
    sys.exit(main())
