"""``arena league`` as real subprocesses against a real server: one
terminal player creates a league, another joins by its code (typed in
lower case), both list it, read its board and this week's standings; the
owner removes the other by name and re-issues the code, which then names
no league for the removed player.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.client.arena_restart import RestartableServer
from tests.client.test_cli_friends import cli

from client import ArenaClient


async def test_arena_league_create_join_board_standings_remove_and_code(arena: RestartableServer, tmp_path: Path) -> None:
    ann_home, bob_home = tmp_path / "ann", tmp_path / "bob"
    async with ArenaClient(arena.url, name="bob") as bob_client:
        token = bob_client.token
    assert token is not None
    server = ("--server", arena.url)
    status, out = await cli(ann_home, "play", "chequers", "--name", "ann", *server, "--json")
    assert status == 0, out
    status, out = await cli(ann_home, "league", "create", "Lunch", "--game", "klondike", "--draw", "1", *server)
    found = re.search(r"^Lunch \((l_\S+)\), owned by ann: plays klondike draw=1,scoring=standard$", out, re.M)
    code = re.search(r"invite code (\w{4}-\w{4})", out)
    assert status == 0 and found is not None and code is not None, out
    league_id = found.group(1)
    status, out = await cli(bob_home, "league", "join", code.group(1).lower(), f"--token={token}", *server)
    assert status == 0 and re.search(r"^  bob\s+p_", out, re.M), out
    status, out = await cli(bob_home, "league", f"--token={token}", *server)
    assert status == 0 and f"Lunch ({league_id})" in out, out
    status, out = await cli(bob_home, "league", "board", league_id, f"--token={token}", *server)
    assert status == 0 and "Lunch: WordLink draw=1,scoring=standard" in out and re.search(r"bob \(you\)\s+not started", out), out
    status, out = await cli(bob_home, "league", "standings", league_id, f"--token={token}", *server)
    assert status == 0 and "so far" in out and re.search(r"1\. ann\s+0 points", out), out
    status, out = await cli(bob_home, "league", "standings", league_id, "--week", "2020-W01", f"--token={token}", *server)
    assert status == 0 and "week 2020-W01 (from Monday 2019-12-30), final" in out, out
    status, out = await cli(ann_home, "league", "remove", league_id, "BOB", *server)
    assert status == 0 and "bob" not in out, out
    status, out = await cli(ann_home, "league", "code", league_id, *server)
    assert status == 0 and code.group(1) not in out, out
    status, out = await cli(bob_home, "league", "join", code.group(1), f"--token={token}", *server)
    assert status == 1 and "error: no league has the invite code" in out, out
    status, out = await cli(ann_home, "league", "leave", league_id, *server)
    assert status == 0 and f"you left {league_id}" in out, out
