"""``arena friends`` and ``arena challenge`` as real subprocesses against a
real server: one terminal player adds another by code, the other sees the
request as a notification line and accepts it by name, both list each
other as friends, and a challenge gives the race's invite code.  The
typed client methods are what the commands call; a client hears the
notifications as they arrive.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from tests.client.arena_cli import run
from tests.client.arena_restart import RestartableServer

from client import ArenaClient
from protocol import friends as pf


async def cli(config_home: Path, *arguments: str, stdin: str = "") -> tuple[int, str]:
    code, out, err = await run("-m", "server.cli", *arguments, stdin=stdin, config_home=config_home)
    assert "Traceback" not in err, err
    return code, out


async def test_arena_friends_add_then_accept_by_name_and_challenge(arena: RestartableServer, tmp_path: Path) -> None:
    ann_home, bob_home = tmp_path / "ann", tmp_path / "bob"
    async with ArenaClient(arena.url, name="bob") as bob_client:
        token = bob_client.token
        assert token is not None
        code = await bob_client.friend_code()
        status, out = await cli(ann_home, "play", "chequers", "--name", "ann", "--server", arena.url, "--json")
        assert status == 0, out
        status, out = await cli(ann_home, "friends", "add", code.lower(), "--server", arena.url)
        assert status == 0 and f"bob ({bob_client.player_id}): request sent" in out, out
        heard = await asyncio.wait_for(_first_notification(bob_client), 30)
        assert heard.kind == "friend_request" and heard.sender.name == "ann"

    status, out = await cli(bob_home, "friends", f"--token={token}", "--server", arena.url)
    assert status == 0 and "! ann asks to be your friend" in out and re.search(r"ann\s+\S+\s+asks to be your friend", out), out
    status, out = await cli(bob_home, "friends", "accept", "ANN", f"--token={token}", "--server", arena.url)
    assert status == 0 and "ann (" in out and "): friend" in out, out
    status, out = await cli(ann_home, "friends", "--server", arena.url)
    assert status == 0 and re.search(r"^bob\s+\S+\s+friend$", out, re.M), out
    status, out = await cli(ann_home, "friends", "add", "ZZZZ-ZZZZ", "--server", arena.url)
    assert status == 1 and "error: no player has the friend code" in out, out

    async with ArenaClient(arena.url, token=token) as bob_again:
        status, out = await cli(ann_home, "challenge", "bob", "--game", "klondike", "--deal", "winnable", "--server", arena.url)
        match = re.search(r"invite code (\w+); its lobby: arena race join (\w+)", out)
        assert status == 0 and match is not None and match.group(1) == match.group(2), out
        heard = await asyncio.wait_for(_first_notification(bob_again, "challenge"), 30)
        assert heard.race_code == match.group(1)
        race = await bob_again.answer_challenge(heard.notification_id, accept=True)
        assert race is not None and {racer.name for racer in race.racers} == {"ann", "bob"}


async def _first_notification(client: ArenaClient, kind: str = "friend_request") -> pf.NotificationEntry:
    heard: asyncio.Future[pf.NotificationEntry] = asyncio.get_running_loop().create_future()

    def listen(entry: pf.NotificationEntry) -> None:
        if entry.kind == kind and not heard.done():
            heard.set_result(entry)

    client.on_notification(listen)
    return await heard
