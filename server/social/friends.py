"""Friends: codes, requests, the four states, blocks and their limits.

Each side of a pair keeps its own edge (``server.storage.social``): a
request writes the sender's ``request_sent`` then the receiver's
``request_received``; accepting writes the accepter's ``friend`` then the
other's.  Each is one write of one key, so on a Redis Cluster (two
players, two slots) a crash can leave the first without the second;
``friends`` (the listing) repairs what it finds: a ``friend`` edge whose
other side is a request completes it, one whose other side is gone is
dropped (docs/storage.md, "Friends on a Cluster").

What a blocked player learns is what a declined request tells: nothing.
A decline drops only the receiver's edge, so the sender's request keeps
waiting until it lapses (``friend_request_days``); a request to a player
who blocked you is answered the same way and reaches nobody; blocking a
friend reads, on their side, as being removed.

Codes cannot be enumerated: a lookup that names nobody (mistyped, your
own, reissued) counts against the player and against its address, and
past ``friend_lookup_failures_per_hour`` (per address:
``friend_lookup_failures_per_address``) in the last hour every lookup is
refused, right or wrong, so a refusal tells nothing of the code either.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, Awaitable, Callable

from protocol import ErrorCode
from protocol import friends as pf
from protocol import to_client as tc
from server.games.owners import owner_of
from server.model.codes import FRIEND_CODE
from server.model.refusal import Refusal
from server.net.outbox import Outbox
from server.net.peer import Peer, require_player
from server.runtime.entropy import Entropy
from server.runtime.settings import Settings
from server.storage.base import Store
from server.social.part import HOUR, FailedLookups, SocialPart

FRIEND, SENT, RECEIVED, BLOCKED = "friend", "request_sent", "request_received", "blocked"
CODE_DRAWS = 5
"""Codes drawn before giving up on finding a free one (each is free with
overwhelming odds: 40 bits)."""

Notify = Callable[[str, str, tc.Owner], Awaitable[None]]
"""Tell a player (first argument) of a friends event (``friend_request``,
``friend_accepted``) from a sender."""


class Friends(SocialPart):
    """The friend requests, and what the other social parts ask of friendships."""

    def __init__(
        self, settings: Settings, store: Store, clock: Callable[[], int], entropy: Entropy, outbox: Outbox, notify: Notify
    ) -> None:
        super().__init__(settings, store, clock, entropy, outbox)
        self._notify = notify
        self._failed_lookups = FailedLookups(
            self._records, clock, entropy, "lookups", settings.friend_lookup_failures_per_hour,
            settings.friend_lookup_failures_per_address,
            ErrorCode.LOOKUPS_LIMITED, "too many friend codes that named nobody; try again within the hour",
        )

    # ---------------------------------------------------------------- questions

    async def are_friends(self, one: str, other: str) -> bool:
        mine, theirs = await self._pair(one, other)
        return _state(mine) == FRIEND and _state(theirs) in (FRIEND, SENT, RECEIVED)

    async def blocks(self, owner: str, viewer: str) -> bool:
        """Whether ``owner`` blocked ``viewer``: then ``viewer`` does not see
        ``owner``'s games, their presence, and cannot challenge them."""
        return _state(await self._records.edge(owner, viewer)) == BLOCKED

    async def blocked(self, pairs: list[tuple[str, str]]) -> set[tuple[str, str]]:
        """The ``(owner, viewer)`` pairs in which ``owner`` blocked ``viewer``
        (``blocks`` of each pair, in one read): presence asks it of all of a
        player's friends at every change it tells."""
        return {pair for pair, edge in (await self._records.edges_between(pairs)).items() if _state(edge) == BLOCKED}

    async def mutual_friends(self, player_id: str) -> list[str]:
        """``friends_of`` less those whose own side no longer says so
        (``are_friends`` of each, in two reads for all): a friend who just
        removed or blocked the player, their side written first, is left
        out before the player's own side is repaired."""
        listed = await self.friends_of(player_id)
        theirs = await self._records.edges_to(listed, player_id)
        return [friend for friend in listed if _state(theirs.get(friend)) in (FRIEND, SENT, RECEIVED)]

    async def friends_of(self, player_id: str) -> list[str]:
        """The players the player's own edges call friends: one listing, for
        telling them something of the player (its presence, its daily).  A
        half-written pair errs towards telling someone who just removed or
        blocked the player, never towards telling a player the other side
        hides from (a block is written on the blocker's side first)."""
        return [str(edge["other"]) for edge in await self._records.edges(player_id, self._edge_limit())
                if edge["state"] == FRIEND]

    # ---------------------------------------------------------------- requests

    async def listing(self, peer: Peer, message: pf.Friends) -> None:
        player_id = require_player(peer).player_id
        code = await self._code(player_id, reissue=False)
        entries = await self._entries(player_id)
        self._outbox.send(peer, pf.FriendList(id=message.id, code=FRIEND_CODE.shown(code), friends=entries))

    async def code(self, peer: Peer, message: pf.FriendCode) -> None:
        code = await self._code(require_player(peer).player_id, reissue=message.reissue)
        self._outbox.send(peer, pf.FriendCodeReply(id=message.id, code=FRIEND_CODE.shown(code)))

    async def add(self, peer: Peer, message: pf.FriendAdd) -> None:
        me = require_player(peer)
        target = await self._lookup(peer, message.code)
        other = await self._store.get_player(target) if target not in (None, me.player_id) else None
        if other is None or target is None:
            await self._failed_lookups.count(peer)
            raise Refusal(ErrorCode.FRIEND_CODE_UNKNOWN, f"no player has the friend code {message.code!r}")
        mine, theirs = await self._pair(me.player_id, target)
        state = _state(mine)
        if state == FRIEND or (state == SENT and _state(theirs) != SENT):
            self._reply(peer, message.id, target, other.display_name, state)
            return
        if state == RECEIVED or _state(theirs) == SENT:
            await self._befriend(me.player_id, target)
            await self._notify(target, "friend_accepted", _owner(me.player_id, me.display_name))
            self._reply(peer, message.id, target, other.display_name, FRIEND)
            return
        await self._check_request_limits(me.player_id)
        now = self._now()
        keep = self._settings.friend_request_days * 86400
        await self._records.count(f"requests/{me.player_id}", self._entropy.token_hex(8), now, HOUR)
        await self._records.put_edge(me.player_id, target, SENT, now, keep)
        if _state(theirs) != BLOCKED:
            await self._records.put_edge(target, me.player_id, RECEIVED, now, keep)
            await self._notify(target, "friend_request", _owner(me.player_id, me.display_name))
        self._reply(peer, message.id, target, other.display_name, SENT)

    async def change(self, peer: Peer, message: pf.FriendChange) -> None:
        me = require_player(peer).player_id
        other = message.player_id
        mine, theirs = await self._pair(me, other)
        state, action = _state(mine), message.action
        if action == "accept":
            if state != RECEIVED and _state(theirs) != SENT or other == me:
                raise Refusal(ErrorCode.NOT_FRIENDS, "this player has not asked to be your friend")
            await self._befriend(me, other)
            player = require_player(peer)
            await self._notify(other, "friend_accepted", _owner(me, player.display_name))
            now_state = FRIEND
        elif action == "decline":
            if state != RECEIVED:
                raise Refusal(ErrorCode.NOT_FRIENDS, "this player has not asked to be your friend")
            await self._records.drop_edge(me, other)
            now_state = "none"
        elif action == "remove":
            if state != BLOCKED:
                await self._records.drop_edge(me, other)
            if _state(theirs) in (FRIEND, RECEIVED):
                await self._records.drop_edge(other, me)
            now_state = BLOCKED if state == BLOCKED else "none"
        elif action == "block":
            if state != BLOCKED:
                await self._check_limit(me, BLOCKED, self._settings.friend_block_limit, "blocks")
                await self._records.put_edge(me, other, BLOCKED, self._now(), None)
            if _state(theirs) in (FRIEND, RECEIVED):
                await self._records.drop_edge(other, me)
            now_state = BLOCKED
        else:
            if state != BLOCKED:
                raise Refusal(ErrorCode.NOT_FRIENDS, "you have not blocked this player")
            await self._records.drop_edge(me, other)
            now_state = "none"
        self._reply(peer, message.id, other, (await owner_of(self._store, other)).name, now_state)

    # ---------------------------------------------------------------- inside

    def _reply(self, peer: Peer, request_id: Any, player_id: str, name: str, state: str) -> None:
        self._outbox.send(peer, pf.FriendReply(id=request_id, player_id=player_id, name=name, state=state))

    async def _pair(self, one: str, other: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        mine, theirs = await asyncio.gather(self._records.edge(one, other), self._records.edge(other, one))
        return mine, theirs

    async def _befriend(self, me: str, other: str) -> None:
        """Accepting: the accepter's edge first, then the other's (a crash
        between leaves a ``friend`` facing a request, which listing completes)."""
        await self._check_limit(me, FRIEND, self._settings.friends_limit, "friends")
        now = self._now()
        await self._records.put_edge(me, other, FRIEND, now, None)
        await self._records.put_edge(other, me, FRIEND, now, None)

    async def _code(self, player_id: str, reissue: bool) -> str:
        current = await self._records.code_of(player_id)
        if current is not None and not reissue:
            return current
        for _ in range(CODE_DRAWS):
            code = FRIEND_CODE.code_from(self._entropy.token_bytes(FRIEND_CODE.random_bytes))
            if await self._records.claim_code(player_id, code):
                return code
        raise Refusal(ErrorCode.INTERNAL_ERROR, "no free friend code was found; try again")

    async def _lookup(self, peer: Peer, text: str) -> str | None:
        """The player of a code, refused while its asker or address has too
        many failures within the hour, whatever the code."""
        await self._failed_lookups.check(peer)
        code = FRIEND_CODE.normalize(text)
        return None if code is None else await self._records.player_of_code(code)

    async def _check_request_limits(self, player_id: str) -> None:
        settings = self._settings
        if await self._records.recent(f"requests/{player_id}", settings.friend_requests_per_hour) >= settings.friend_requests_per_hour:
            raise Refusal(ErrorCode.FRIEND_LIMIT, "you sent too many friend requests this hour", reason="requests_per_hour")
        await self._check_limits(player_id, ((SENT, settings.friend_pending_limit, "pending"),
                                             (FRIEND, settings.friends_limit, "friends")))

    async def _check_limit(self, player_id: str, state: str, limit: int, reason: str) -> None:
        await self._check_limits(player_id, ((state, limit, reason),))

    async def _check_limits(self, player_id: str, limits: tuple[tuple[str, int, str], ...]) -> None:
        """Refuse when the player's edges of a state reach its limit (one listing for all)."""
        states = Counter(edge["state"] for edge in await self._records.edges(player_id, self._edge_limit()))
        for state, limit, reason in limits:
            if states[state] >= limit:
                raise Refusal(ErrorCode.FRIEND_LIMIT, f"you have reached the limit of {limit} ({reason})", reason=reason)

    def _edge_limit(self) -> int:
        settings = self._settings
        return 2 * settings.friends_limit + settings.friend_pending_limit + settings.friend_block_limit

    async def _entries(self, player_id: str) -> list[pf.FriendEntry]:
        """Every edge of the player whose other player is still stored, each
        checked against the other side and repaired.  The players and the
        other sides are read for all edges at once."""
        edges = await self._records.edges(player_id, self._edge_limit())
        others = [str(edge["other"]) for edge in edges]
        players = await self._store.get_players(others)
        theirs = await self._records.edges_to([other for other in others if other in players], player_id)
        entries = []
        for other, edge in zip(others, edges):
            found, state = players.get(other), str(edge["state"])
            if found is None:
                continue
            if state != BLOCKED:
                state = await self._reconciled(player_id, other, state, theirs.get(other))
                if state == "none":
                    continue
            entries.append(pf.FriendEntry(player_id=other, name=found.display_name, state=state, since_ms=int(edge["since_ms"])))
        return entries

    async def _reconciled(self, me: str, other: str, state: str, theirs: dict[str, Any] | None) -> str:
        """The state of my edge once the pair agrees (see the module docstring)."""
        their_state, now = _state(theirs), self._now()
        if state == FRIEND and their_state in (SENT, RECEIVED):
            await self._records.put_edge(other, me, FRIEND, now, None)
        elif state == FRIEND and their_state != FRIEND:
            await self._records.drop_edge(me, other)
            return "none"
        elif state in (SENT, RECEIVED) and their_state == FRIEND:
            await self._records.put_edge(me, other, FRIEND, now, None)
            return FRIEND
        elif state == RECEIVED and their_state != SENT:
            await self._records.drop_edge(me, other)
            return "none"
        return state


def _state(edge: dict[str, Any] | None) -> str | None:
    return None if edge is None else str(edge["state"])


def _owner(player_id: str, name: str) -> tc.Owner:
    return tc.Owner(player_id=player_id, name=name)
