"""The part of the store interface about a player's days: how each ranked
daily attempt ended (``DayResult``), one per game, variant and day, what
streaks and daily stats are derived from (``server.games.streaks``).
``Store`` inherits it, so every back end implements it and the contract
suite runs it on each.

A day is written by the game's end (``Store.settle_finish``) in the
player's keys, guarded like the record, and the first one written for a
key stays: a player has one ranked attempt per deal, and settling it again
(after a crash, in two processes at once) writes the same day.  Days are
part of the identity: renewed with it, gone with it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from server.model.records import DayResult


class DayStore(ABC):
    """A player's days; see the module docstring."""

    @abstractmethod
    async def add_day(self, player_id: str, day: DayResult) -> bool:
        """Keep ``day`` under its key unless the player has one there (the
        first stays); whether it was written.  Renews the identity."""

    @abstractmethod
    async def days(self, player_id: str) -> list[DayResult]:
        """Every day the player has, by key (game, variant, then date)."""

    @abstractmethod
    async def days_of(self, player_ids: list[str]) -> dict[str, list[DayResult]]:
        """``days`` of each player, by player, in one call (one job on
        SQLite, one pipeline on Redis): a league's standings score every
        member's days."""
