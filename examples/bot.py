"""A bot that plays today's daily deal from what it sees.

    python examples/bot.py [SERVER_URL] [GAME]

(defaults: ws://127.0.0.1:8765/ws and klondike).  It shows how little a
client needs: connect and declare itself a bot (``bot=True``: bots are
welcome, and rank on their own leaderboard), start a game, then ask the
engine's solver for a hint on the public view the server sent
(``hint_from_view``: the face-down cards are unknown to it, as to any
player, and a ranked game gives no hints from the server), play it,
repeat.  It stops when the game is over or when no move leads to a view
it has not seen yet; a game it cannot finish it resigns, so every run
ends with a result.  ``examples/race_bot.py`` plays a race with the same
loop.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from client import DEFAULT_URL, ArenaClient, GameMirror
from client.board import counted
from engine.solver.assist import hint_from_view


async def play_by_hints(client: ArenaClient, game: GameMirror) -> str:
    """Play ``game`` by local hints to its end (resigning when stuck); the result."""
    seen: list[dict[str, Any]] = []
    while game.status == "playing":
        view = game.view
        # The search takes a fraction of a second: off the event loop, so
        # the client keeps reading (and answering pings) meanwhile.
        move = await asyncio.to_thread(hint_from_view, view, seen)
        if move is None:
            print("no move leads anywhere new", flush=True)
            break
        seen.append(view)
        await client.move(game.game_id, move)
    if not game.finished:
        print(f"resigning a game that is {game.status}", flush=True)
        await client.resign(game.game_id)
    await game.wait_until(lambda mirror: mirror.result is not None)
    assert game.result is not None
    over = game.result
    score = f", score {over.score}" if over.score is not None else ""
    print(f"{over.result}: {counted(over.moves, 'move')} in {over.time_ms / 1000:.1f} s{score}", flush=True)
    return over.result


def bot_client(url: str) -> ArenaClient:
    """A client that says ``"bot": true`` in its ``hello``."""
    return ArenaClient(url, name="view-bot", bot=True)


async def play_daily(url: str, game_name: str) -> str:
    """Play the daily deal of ``game_name`` as a declared bot; return the result."""
    async with bot_client(url) as client:
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
