"""``arena board --friends`` (``arena leaderboard --friends``) as a real
subprocess against a real server: bob, ann's friend, resigned today's
daily and ann is still playing hers; the board prints both rows, counts
only, and refuses to run without a player; ``arena board --playing``
lists ann's attempt after the (no) wins.  The typed client method it
calls hears a watched row's update as it arrives.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from tests.client.arena_restart import RestartableServer
from tests.client.test_cli_friends import cli

from client import ArenaClient
from protocol import ServerMessage
from protocol import friends_board as pb


async def test_arena_board_friends_prints_you_and_your_friends(arena: RestartableServer, tmp_path: Path) -> None:
    updates: asyncio.Queue[pb.FriendsBoardUpdate] = asyncio.Queue()

    def heard(message: ServerMessage) -> bool:
        if isinstance(message, pb.FriendsBoardUpdate):
            updates.put_nowait(message)
        return True

    async with ArenaClient(arena.url, name="ann", message_filter=heard) as ann, ArenaClient(arena.url, name="bob") as bob:
        await bob.add_friend(await ann.friend_code())
        await ann.change_friend(bob.player_id or "", "accept")
        watched = await ann.friends_board("klondike", {"draw": 1})
        assert {row.player.name: row.state for row in watched.rows} == {"ann": "not_started", "bob": "not_started"}
        mine = await ann.new_game("klondike", deal="daily", options={"draw": 1})
        await ann.move(mine.game_id, "draw")
        theirs = await bob.new_game("klondike", deal="daily", options={"draw": 1})
        await bob.resign(theirs.game_id)
        while (update := await asyncio.wait_for(updates.get(), 30)).row.player.name != "bob" or update.row.state != "finished":
            pass
        assert update.row.result == "resigned"
        token = ann.token
        assert token is not None

    status, out = await cli(tmp_path, "board", "klondike", "--draw", "1", "--friends", f"--token={token}", "--server", arena.url)
    assert status == 0, out
    assert "you and your friends" in out
    assert re.search(r"-\s+ann \(you\)\s+playing\s+\S+\s+1 action\s+0 home", out), out
    assert re.search(r"-\s+bob\s+resigned\s+\S+\s+0 actions", out), out
    status, out = await cli(tmp_path / "nobody", "board", "klondike", "--draw", "1", "--playing", "--server", arena.url)
    assert status == 0 and re.search(r"\.\.\.\s+ann\s+\S+\s+1 action\s+0 home \(playing\)", out), out
    assert "bob" not in out, "a resigned attempt is not playing"
    status, out = await cli(tmp_path / "nobody", "leaderboard", "klondike", "--friends", "--server", arena.url)
    assert status == 2 and "--friends needs --token" in out, out
