"""Ghost races in the client: the ghosts raced beside a ranked daily
attempt, their requests, and the text line of bars the terminal shows.

The server paces a ghost (docs/protocol.md, "Ghost races"): the reply
is the ghost at your attempt's clock and each ``ghost_update`` its next
counts when your clock reaches them, so ``GhostBoard`` only keeps the
latest of each; it never has more to show than the server sent.

Example::

    game = await client.new_game("klondike", deal="daily", options={"draw": 1})
    await race_ghost(client, game.game_id, leader=True)
    print(ghost_line(client.ghosts.of(game.game_id), 52))
"""

from __future__ import annotations

from typing import Callable

from protocol import ghosts as pg

from .friend_requests import FriendRequests
from .requests import ArenaRequests, expect

BAR_WIDTH = 20
LEADER = "leader"
"""What ``--ghost`` and the ``ghost`` command take for the day's leader."""


class GhostBoard:
    """The latest counts of each ghost raced, by attempt and player."""

    def __init__(self) -> None:
        self._ghosts: dict[str, dict[str, pg.Ghost]] = {}
        self._listeners: list[Callable[[str, pg.Ghost], None]] = []

    def apply(self, message: pg.GhostReply | pg.GhostUpdate) -> None:
        """Keep a ghost's counts and tell the listeners (attempt, ghost)."""
        self._ghosts.setdefault(message.game_id, {})[message.ghost.player.player_id] = message.ghost
        for listener in self._listeners:
            listener(message.game_id, message.ghost)

    def of(self, game_id: str) -> list[pg.Ghost]:
        """The ghosts raced beside the attempt ``game_id``, in the order asked."""
        return list(self._ghosts.get(game_id, {}).values())

    def on_change(self, listener: Callable[[str, pg.Ghost], None]) -> None:
        self._listeners.append(listener)


async def race_ghost(
    client: ArenaRequests, game_id: str, player_id: str | None = None, *, leader: bool = False
) -> pg.Ghost:
    """Race a friend's ghost (``player_id``) or the day's leader's beside
    your ranked daily attempt ``game_id``; raises ``GhostUnavailable``."""
    reply = expect(await client.request(pg.RaceGhost(game_id=game_id, player_id=player_id, leader=leader)), pg.GhostReply)
    return reply.ghost


async def race_named(client: FriendRequests, game_id: str, who: str) -> pg.Ghost:
    """``race_ghost`` for ``leader`` or a friend named as ``arena friends``
    lists them (a name, case aside, or a player id)."""
    if who.casefold() == LEADER:
        return await race_ghost(client, game_id, leader=True)
    listing = await client.friends()
    named = [entry.player_id for entry in listing.friends if entry.name.casefold() == who.casefold()]
    return await race_ghost(client, game_id, named[0] if len(named) == 1 else who)


async def stop_ghost(client: ArenaRequests, game_id: str, player_id: str | None = None) -> None:
    """Stop one ghost of the attempt, or all of them without ``player_id``."""
    await client.request(pg.StopGhost(game_id=game_id, player_id=player_id))


def ghost_bar(ghost: pg.Ghost, cards: int) -> str:
    """``ann [#####...............] 13/52  41 actions`` and how it ended."""
    filled = round(BAR_WIDTH * ghost.cards_home / cards) if cards else 0
    name = f"{ghost.player.name} ({LEADER})" if ghost.leader else ghost.player.name
    ended = "" if ghost.state == "playing" else f" {ghost.state}"
    return f"{name} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {ghost.cards_home}/{cards} {ghost.actions} actions{ended}"


def ghost_line(ghosts: list[pg.Ghost], cards: int) -> str:
    """One line of bars, every ghost raced beside an attempt."""
    return "ghosts: " + " | ".join(ghost_bar(ghost, cards) for ghost in ghosts) if ghosts else "ghosts: none"
