"""What the store keeps of friends, notifications and challenges, on every
back end: built on the ``Store`` interface's documents, indexes and
settings rather than on three new implementations, so the memory, SQLite
and Redis stores (a Cluster included) keep it alike, ``arena export`` and
``arena import`` carry it (the ``document`` and ``setting`` spaces), and
the contract suite covers it on each.

Every write here touches one key: on a Redis Cluster each is in the slot of
its own name, and no step needs two slots at once.  A friendship is two
edges, one per player (``friend`` documents ``OWNER/OTHER``, indexed by
owner), each written alone; docs/storage.md ("Friends on a Cluster") says
why a crash between the two writes is harmless or repaired, and the
friends part (``server.social.friends``) writes them in that order.

A friend code is a setting ``friend_code:CODE`` naming its player,
claimed first-writer-wins (two players never share one), beside the
player's ``friend_code`` document naming the code; the setting counts
only while the document names it too, so a reissue that died between its
writes leaves the old code dead all the same.
"""

from __future__ import annotations

from typing import Any

from .base import Store

FRIEND = "friend"
CODE_OWNER = "friend_code"
NOTIFICATION = "notification"
CHALLENGE = "challenge"
WINDOW = "window"


class SocialRecords:
    """Friend edges, codes, inboxes, challenges and counting windows over a ``Store``."""

    def __init__(self, store: Store) -> None:
        self._store = store

    # ---------------------------------------------------------------- edges

    async def edge(self, owner: str, other: str) -> dict[str, Any] | None:
        """``owner``'s edge to ``other`` (state, since_ms), or None."""
        return await self._store.get_document(FRIEND, f"{owner}/{other}")

    async def edges_to(self, owners: list[str], other: str) -> dict[str, dict[str, Any]]:
        """Each owner's edge to ``other``, by owner, in one read (owners
        without one are left out): the other sides of a player's friends."""
        found = await self.edges_between([(owner, other) for owner in owners])
        return {owner: edge for (owner, _), edge in found.items()}

    async def edges_between(self, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
        """The edge of each ``(owner, other)`` pair that has one, by pair, in one read."""
        found = await self._store.get_documents(FRIEND, [f"{owner}/{other}" for owner, other in pairs])
        return {(owner, other): edge for owner, other in pairs if (edge := found.get(f"{owner}/{other}")) is not None}

    async def put_edge(self, owner: str, other: str, state: str, since_ms: int, keep_seconds: int | None) -> None:
        """Write ``owner``'s side of the pair; ``keep_seconds`` for what expires (a request)."""
        key = f"{owner}/{other}"
        await self._store.put_document(FRIEND, key, {"other": other, "state": state, "since_ms": since_ms}, keep_seconds)
        await self._store.index_document(FRIEND, owner, key, since_ms)

    async def drop_edge(self, owner: str, other: str) -> None:
        await self._store.put_document(FRIEND, f"{owner}/{other}", {}, 0)

    async def edges(self, owner: str, limit: int) -> list[dict[str, Any]]:
        """Every edge of ``owner``, newest first (edges gone are skipped)."""
        return [edge for edge in await self._store.list_documents(FRIEND, owner, limit) if edge]

    # ---------------------------------------------------------------- codes

    async def code_of(self, player_id: str) -> str | None:
        document = await self._store.get_document(CODE_OWNER, player_id)
        return None if document is None else str(document["code"])

    async def claim_code(self, player_id: str, code: str) -> bool:
        """Make ``code`` ``player_id``'s, unless another player holds it."""
        if await self._store.setting(f"{CODE_OWNER}:{code}", player_id) != player_id:
            return False
        old = await self.code_of(player_id)
        await self._store.put_document(CODE_OWNER, player_id, {"code": code})
        if old is not None and old != code:
            await self._store.replace_setting(f"{CODE_OWNER}:{old}", player_id, None, 0)
        return True

    async def player_of_code(self, code: str) -> str | None:
        """The player whose current code is ``code``."""
        player_id = await self._store.get_setting(f"{CODE_OWNER}:{code}")
        if player_id is None or await self.code_of(player_id) != code:
            return None
        return player_id

    # ---------------------------------------------------------------- notifications

    async def add_notification(self, player_id: str, entry: dict[str, Any], keep_seconds: int, limit: int,
                               tiebreak: int = 0) -> None:
        """Keep ``entry`` in the inbox; past ``limit`` entries the oldest go.
        Entries of one millisecond are ordered by ``tiebreak`` (below 1,000)."""
        key = f"{player_id}/{entry['notification_id']}"
        await self._store.put_document(NOTIFICATION, key, entry, keep_seconds)
        await self._store.index_document(NOTIFICATION, player_id, key, entry["at_ms"] * 1000 + tiebreak % 1000)
        # Asking for more than the inbox holds reads the index to its end,
        # which on Redis also removes the names of entries dropped before.
        for dropped in (await self._store.list_documents(NOTIFICATION, player_id, 2 * limit))[limit:]:
            await self._store.put_document(NOTIFICATION, f"{player_id}/{dropped['notification_id']}", {}, 0)

    async def notifications(self, player_id: str, limit: int) -> list[dict[str, Any]]:
        return [entry for entry in await self._store.list_documents(NOTIFICATION, player_id, limit) if entry]

    async def mark_read(self, player_id: str, entry: dict[str, Any], keep_seconds: int) -> None:
        await self._store.put_document(NOTIFICATION, f"{player_id}/{entry['notification_id']}", entry | {"read": True},
                                       max(keep_seconds, 1))

    # ---------------------------------------------------------------- challenges

    async def put_challenge(self, challenge_id: str, value: dict[str, Any], keep_seconds: int) -> None:
        await self._store.put_document(CHALLENGE, challenge_id, value, keep_seconds)

    async def challenge(self, challenge_id: str) -> dict[str, Any] | None:
        found = await self._store.get_document(CHALLENGE, challenge_id)
        return found or None

    async def drop_challenge(self, challenge_id: str) -> None:
        await self._store.put_document(CHALLENGE, challenge_id, {}, 0)

    # ---------------------------------------------------------------- windows

    async def recent(self, window: str, limit: int) -> int:
        """How many events ``window`` counted within its lifetime (at most ``limit``)."""
        return len(await self._store.list_documents(WINDOW, window, limit))

    async def count(self, window: str, event_id: str, at_ms: int, keep_seconds: int) -> None:
        """Count one event in ``window`` for ``keep_seconds``."""
        key = f"{window}/{event_id}"
        await self._store.put_document(WINDOW, key, {"at_ms": at_ms}, keep_seconds)
        await self._store.index_document(WINDOW, window, key, at_ms)
