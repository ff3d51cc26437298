"""The facts the visibility rules (``server.model.visibility``) read of a
game beside its header, gathered where they live: the clock, a daily
deal's reveal (from the settings) and a race game's race, as the race
ledgers tell it.  The races are above the games, so they are handed in
as one call (``RaceFactsOf``)."""

from __future__ import annotations

from datetime import date
from typing import Awaitable, Callable

from server.deals.daily import reveals_at
from server.model.records import SessionHeader
from server.model.visibility import Facts, RaceFacts
from server.runtime.settings import Settings

RaceFactsOf = Callable[[str], Awaitable[RaceFacts]]
"""A race now, loaded if need be (``RACE_GONE`` when the store no longer
has it): ``RaceRooms.race_facts``."""


def reveal_ms(header: SessionHeader, settings: Settings) -> int | None:
    """When a daily game's deal is revealed (None for any other game)."""
    return reveals_at(date.fromisoformat(header.daily), settings) if header.daily is not None else None


class GameFacts:
    """Gathers a game's ``Facts``; see the module docstring."""

    def __init__(self, settings: Settings, clock: Callable[[], int], race_facts: RaceFactsOf) -> None:
        self._settings = settings
        self._clock = clock
        self._race_facts = race_facts

    async def of(self, header: SessionHeader, result: str | None) -> Facts:
        """The facts of a game with ``result`` (None while played); a race
        game's race is loaded if this process does not hold it."""
        race = await self._race_facts(header.race_id) if header.race_id is not None else None
        return Facts(self._clock(), result, reveal_ms(header, self._settings), race)

    def now(self, header: SessionHeader, result: str | None, race: RaceFacts | None) -> Facts:
        """The facts of a game whose race, if any, the caller already knows."""
        return Facts(self._clock(), result, reveal_ms(header, self._settings), race)
