"""The actions a client address has had the server replay, and their budget.

Rebuilding a game from its stored log runs the rules over every action:
15 ms for a game of 2,000 actions.  A client makes the server do that
when it asks for a replay page, and when it watches or analyses a game
this process does not hold (a finished game nobody watches is let go,
and loaded again at the next ``watch``): a loop of ``watch`` and ``unwatch`` on
one long finished game cost 14 ms a pair, which the message rate alone
let one connection repeat twenty times a second.  So those actions are
counted per client address, ``replay_actions_burst`` at once and
``replay_actions_per_second`` after that, and a request that would
replay more while the address is over its budget is refused
(``unavailable``, reason ``replay_rate``, with the seconds to wait).
A ghost race replays the attempt raced (``server.social.ghosts``) unless
this process replayed it already, and is paid from the same budget.
Reading a long game page by page, or watching a few finished games,
comes nowhere near it.
"""

from __future__ import annotations

import math
from typing import Awaitable, Callable, Container

from protocol import ErrorCode
from server.games.room import Room
from server.model.refusal import Refusal
from server.net.ratelimit import BucketTable
from server.runtime.settings import Settings


class ReplayBudget:
    """Each client address's budget of replayed actions."""

    def __init__(self, settings: Settings, monotonic: Callable[[], float]) -> None:
        self._settings = settings
        self._monotonic = monotonic
        self._buckets = BucketTable(settings.replay_actions_burst, settings.replay_actions_per_second, monotonic())

    def check(self, address: str, game_id: str) -> None:
        """Refuse (``replay_rate``) while ``address`` is over its budget."""
        wait = self._buckets.wait(address, self._monotonic())
        if wait is not None:
            settings = self._settings
            raise Refusal(
                ErrorCode.UNAVAILABLE,
                f"replays play at most {settings.replay_actions_per_second:g} actions a second per address "
                f"({settings.replay_actions_burst} at once); ask again in {math.ceil(wait)} s",
                reason="replay_rate",
                game_id=game_id,
            )

    def spend(self, address: str, actions: int) -> None:
        """Count ``actions`` replayed for ``address`` (into debt if need be:
        the cost is known once the work is done)."""
        self._buckets.spend(address, actions, self._monotonic())

    async def load(self, address: str, game_id: str, held: Container[str], load: Callable[[str], Awaitable[Room]]) -> Room:
        """``load(game_id)``, which ``address`` pays for when the game is not
        ``held`` here: refused while the address is over its budget, and
        charged the game's length once loaded (a held game costs nothing)."""
        if game_id in held:
            return await load(game_id)
        self.check(address, game_id)
        room = await load(game_id)
        self.spend(address, len(room.session.log))
        return room
