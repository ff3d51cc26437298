"""``arena play --ghost`` as a real subprocess against a real server: bob
races the ghost of ann, his friend, who resigned today's daily, and asks
for the day's leader, whom nobody is yet; the ghosts' line of bars and
the refusal are printed, and the in-game ``ghosts`` command prints the
bars again.  The library's ``race_ghost`` and ``client.ghosts`` hear the
reply; the bars' text is checked on its own.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.client.arena_restart import RestartableServer
from tests.client.test_cli_friends import cli

from client import ArenaClient, GhostUnavailable
from client.ghosts import ghost_line, race_ghost
from protocol import ghosts as pg


async def test_arena_play_races_a_friends_ghost_beside_the_daily(arena: RestartableServer, tmp_path: Path) -> None:
    async with ArenaClient(arena.url, name="ann") as ann, ArenaClient(arena.url, name="bob") as bob:
        await bob.add_friend(await ann.friend_code())
        await ann.change_friend(bob.player_id or "", "accept")
        mine = await ann.new_game("klondike", deal="daily", options={"draw": 1})
        await ann.move(mine.game_id, "draw")
        await ann.resign(mine.game_id)
        token = bob.token
        assert token is not None
        casual = await bob.new_game("klondike", deal=3, options={"draw": 1})
        try:
            await race_ghost(bob, casual.game_id, ann.player_id)
            raise AssertionError("a casual game races no ghost")
        except GhostUnavailable as refusal:
            assert refusal.reason == "attempt_required"
        await bob.resign(casual.game_id)

    status, out = await cli(
        tmp_path, "play", "klondike", "--deal", "daily", "--draw", "1", "--ghost", "ANN", "--ghost", "leader",
        f"--token={token}", "--server", arena.url, stdin="ghosts\n",
    )
    assert status == 0, out
    assert len(re.findall(r"ghosts: ann \[\.{20}\] 0/52 [01] actions", out)) >= 2, out
    assert re.search(r"ghost leader: error: nobody has won .* \[ghost_unavailable, no_leader\]", out), out


def test_the_ghosts_line_draws_a_bar_per_ghost() -> None:
    ann = pg.Ghost(player={"player_id": "p_a", "name": "ann"}, leader=False, offset_ms=1, cards_home=26, actions=40,
                   state="playing")
    lea = pg.Ghost(player={"player_id": "p_l", "name": "lea"}, leader=True, offset_ms=1, cards_home=52, actions=99,
                   state="won")
    assert ghost_line([ann, lea], 52) == (
        "ghosts: ann [##########..........] 26/52 40 actions | lea (leader) [####################] 52/52 99 actions won"
    )
    assert ghost_line([], 52) == "ghosts: none"
