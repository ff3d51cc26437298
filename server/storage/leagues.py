"""What the store keeps of leagues, on every back end: built on the
``Store`` interface's documents, indexes and settings (as
``server.storage.social`` is for friends), so the memory, SQLite and Redis
stores (a Cluster included) keep it alike, ``arena export`` and ``arena
import`` carry it, and the contract suite covers it on each.

Every write touches one key, so on a Redis Cluster no step needs two slots:

- ``league`` documents (by league id): name, owner, variants, invite code,
  creation time;
- ``league_member`` documents ``LEAGUE/PLAYER`` (``joined_ms``), indexed
  by league, and their mirror ``league_of`` documents ``PLAYER/LEAGUE``,
  indexed by player, for "my leagues".  A join writes the member first,
  then the mirror; a leave drops the mirror first, then the member.  A
  member counts only while both exist (``member`` reads both), so a crash
  between two writes leaves nobody half in: the leftover is dropped by
  the next join, leave or listing that meets it;
- ``league_code:CODE`` settings naming a league, claimed first writer wins;
  a code counts only while its league's document names it, so a
  re-issued code is dead even before its setting is deleted;
- ``league_week`` documents ``LEAGUE/YYYY-Www``, a finished week's
  standings, indexed by league by the week's Monday.
"""

from __future__ import annotations

from typing import Any

from .base import Store

LEAGUE = "league"
MEMBER = "league_member"
MEMBERSHIP = "league_of"
CODE_OWNER = "league_code"
WEEK = "league_week"


class LeagueRecords:
    """Leagues, their members, invite codes and finished weeks over a ``Store``."""

    def __init__(self, store: Store) -> None:
        self._store = store

    # ---------------------------------------------------------------- leagues

    async def league(self, league_id: str) -> dict[str, Any] | None:
        found = await self._store.get_document(LEAGUE, league_id)
        return found or None

    async def leagues(self, league_ids: list[str]) -> dict[str, dict[str, Any]]:
        """``league`` of each id, by id, in one read (those gone left out)."""
        found = await self._store.get_documents(LEAGUE, league_ids)
        return {league_id: league for league_id, league in found.items() if league}

    async def put_league(self, league: dict[str, Any]) -> None:
        await self._store.put_document(LEAGUE, str(league["league_id"]), league)

    async def drop_league(self, league_id: str) -> None:
        await self._store.put_document(LEAGUE, league_id, {}, 0)

    # ---------------------------------------------------------------- members

    async def add_member(self, league_id: str, player_id: str, joined_ms: int) -> None:
        """The member first, then the player's mirror (see the module docstring)."""
        key = f"{league_id}/{player_id}"
        await self._store.put_document(MEMBER, key, {"player_id": player_id, "joined_ms": joined_ms})
        await self._store.index_document(MEMBER, league_id, key, joined_ms)
        mirror = f"{player_id}/{league_id}"
        await self._store.put_document(MEMBERSHIP, mirror, {"league_id": league_id, "joined_ms": joined_ms})
        await self._store.index_document(MEMBERSHIP, player_id, mirror, joined_ms)

    async def drop_member(self, league_id: str, player_id: str) -> None:
        """The mirror first, then the member."""
        await self._store.put_document(MEMBERSHIP, f"{player_id}/{league_id}", {}, 0)
        await self._store.put_document(MEMBER, f"{league_id}/{player_id}", {}, 0)

    async def whole_members(self, league_id: str, player_ids: list[str]) -> dict[str, dict[str, Any]]:
        """``member`` of each player whose both halves exist, by player, in two reads for all."""
        members = await self._store.get_documents(MEMBER, [f"{league_id}/{player_id}" for player_id in player_ids])
        mirrors = await self._store.get_documents(MEMBERSHIP, [f"{player_id}/{league_id}" for player_id in player_ids])
        return {
            player_id: member for player_id in player_ids
            if (member := members.get(f"{league_id}/{player_id}")) and mirrors.get(f"{player_id}/{league_id}")
        }

    async def member(self, league_id: str, player_id: str) -> dict[str, Any] | None:
        """The member's ``{player_id, joined_ms}`` while both halves exist."""
        found = await self._store.get_document(MEMBER, f"{league_id}/{player_id}")
        if not found or not await self._store.get_document(MEMBERSHIP, f"{player_id}/{league_id}"):
            return None
        return found

    async def members(self, league_id: str, limit: int) -> list[dict[str, Any]]:
        """The league's member documents, earliest joined last (index order:
        newest first); a half left by a crash is listed, ``member`` is not fooled."""
        return [found for found in await self._store.list_documents(MEMBER, league_id, limit) if found]

    async def leagues_of(self, player_id: str, limit: int) -> list[dict[str, Any]]:
        """The player's ``{league_id, joined_ms}`` mirrors, newest first."""
        return [found for found in await self._store.list_documents(MEMBERSHIP, player_id, limit) if found]

    # ---------------------------------------------------------------- codes

    async def claim_code(self, league_id: str, code: str) -> bool:
        """Make ``code`` the league's unless another league holds it; the
        caller then writes it into the league's document."""
        return await self._store.setting(f"{CODE_OWNER}:{code}", league_id) == league_id

    async def release_code(self, league_id: str, code: str) -> None:
        await self._store.replace_setting(f"{CODE_OWNER}:{code}", league_id, None, 0)

    async def league_of_code(self, code: str) -> dict[str, Any] | None:
        """The league whose current code is ``code``."""
        league_id = await self._store.get_setting(f"{CODE_OWNER}:{code}")
        league = await self.league(league_id) if league_id is not None else None
        if league is None or league.get("code") != code:
            return None
        return league

    # ---------------------------------------------------------------- weeks

    async def week(self, league_id: str, week: str) -> dict[str, Any] | None:
        found = await self._store.get_document(WEEK, f"{league_id}/{week}")
        return found or None

    async def put_week(self, league_id: str, week: str, monday_ms: int, standings: dict[str, Any], keep_seconds: int) -> None:
        key = f"{league_id}/{week}"
        await self._store.put_document(WEEK, key, standings, keep_seconds)
        await self._store.index_document(WEEK, league_id, key, monday_ms)

    async def weeks(self, league_id: str, limit: int) -> list[dict[str, Any]]:
        """The league's kept weeks, newest first."""
        return [found for found in await self._store.list_documents(WEEK, league_id, limit) if found]
