"""``FriendRequests``: the friends, inbox and challenge requests of
``ArenaClient``, on the same ``_ask`` and ``_race`` as the others
(``client.requests``)."""

from __future__ import annotations

from protocol import friends as pf
from protocol import to_client as tc

from .race_mirror import RaceMirror
from .requests import ArenaRequests, Options, RaceDeal


class FriendRequests(ArenaRequests):
    """The requests between friends: links, the inbox, challenges."""

    async def friends(self) -> pf.FriendList:
        """Your friend code and everyone you are linked to, each with its
        state: ``friend``, ``request_sent``, ``request_received``, ``blocked``."""
        return await self._ask(pf.Friends(), pf.FriendList)

    async def friend_code(self, *, reissue: bool = False) -> str:
        """Your friend code (``XXXX-XXXX``); ``reissue`` draws a new one and
        the old one stops working."""
        return (await self._ask(pf.FriendCode(reissue=reissue), pf.FriendCodeReply)).code

    async def add_friend(self, code: str) -> pf.FriendReply:
        """Ask the holder of a friend code to be friends (friends at once
        if they had asked you); the reply is the pair's state now."""
        return await self._ask(pf.FriendAdd(code=code), pf.FriendReply)

    async def change_friend(self, player_id: str, action: pf.FriendAction) -> pf.FriendReply:
        """``accept``, ``decline``, ``remove``, ``block`` or ``unblock``."""
        return await self._ask(pf.FriendChange(player_id=player_id, action=action), pf.FriendReply)

    async def inbox(self, *, unread: bool = False, limit: int = 50) -> pf.NotificationList:
        """Your inbox, newest first (those that arrive while connected are
        also in ``client.notifications`` and told to ``on_notification``)."""
        return await self._ask(pf.Notifications(unread=unread, limit=limit), pf.NotificationList)

    async def read_notifications(self, notification_ids: list[str] | None = None) -> None:
        """Mark the named notifications read, or every one without names."""
        await self._ask(pf.ReadNotifications(notification_ids=list(notification_ids or [])), tc.Ack)

    async def challenge(
        self, player_id: str, game: str, options: Options | None = None, deal: int | RaceDeal = "daily"
    ) -> RaceMirror:
        """Challenge a friend who is online: the race you now host (its
        mirror); your friend gets a ``challenge`` notification."""
        return await self._race(pf.Challenge(player_id=player_id, game=game, options=dict(options or {}), deal=deal))

    async def answer_challenge(self, challenge_id: str, accept: bool) -> RaceMirror | None:
        """Accept a challenge (the race's mirror: you are in its lobby) or
        decline it (None; the challenger is told)."""
        if accept:
            return await self._race(pf.ChallengeAnswer(challenge_id=challenge_id, accept=True))
        await self._ask(pf.ChallengeAnswer(challenge_id=challenge_id, accept=False), tc.Ack)
        return None
