"""The part of the store interface that reads one kind of record by key:
one key at a time, and many keys in one call.

A board of friends names a hundred players, and for each of them reads
its player, the friend edge facing the asker, and its ranked claim on
the day's deal.  Read one key at a time, each read was a task of its own
and, on SQLite, a job handed to the store's thread and back: a board of
a hundred friends took 8.5 ms of the server's CPU on SQLite, 3.1 ms with
the reads below (``bench/request_costs.py``).  Each of them takes every
key of one kind in one call: one job on SQLite, one pipeline on Redis (a
Cluster's split by node), dictionary lookups in memory.  They answer
what the single reads would, key for key, at the moment of the call: a
key without a value (an unknown player, an expired identity or document,
a dropped edge) is left out of the answer.  ``Store`` inherits this, so every back end
implements it and the contract suite runs it on each.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Iterable

from server.model.records import PlayerRecord


class KeyedReads(ABC):
    """Players, settings and documents by key; see the module docstring."""

    @abstractmethod
    async def get_player(self, player_id: str) -> PlayerRecord | None: ...

    @abstractmethod
    async def get_players(self, player_ids: Iterable[str]) -> dict[str, PlayerRecord]:
        """``get_player`` of each id, in one call: the players found, by id."""

    @abstractmethod
    async def get_setting(self, name: str) -> str | None:
        """The stored value of ``name``, or None, storing nothing (to learn
        whether a costly default, a proven deal, is needed at all)."""

    @abstractmethod
    async def get_settings(self, names: Iterable[str]) -> dict[str, str]:
        """``get_setting`` of each name, in one call: the values set, by name."""

    @abstractmethod
    async def get_document(self, kind: str, key: str) -> dict[str, Any] | None: ...

    @abstractmethod
    async def get_documents(self, kind: str, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """``get_document`` of each key of ``kind``, in one call: the
        documents found, by key."""
