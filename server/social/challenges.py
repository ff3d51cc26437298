"""Challenge a friend: a race in one request, an answer in another.

``challenge`` creates the race as ``create_race`` does, the challenger its
host (the race desk's ``host``, handed in by the Hub: the races know
nothing of friends), then keeps the challenge (``challenge_seconds``) and
notifies the friend with the race's invite code.  The challenge is stored
before the notification is told, so an answer from another process never
finds it missing.  Accepting joins the race as ``join_race`` does, so
both are in its lobby, on whichever processes they are (the race's ledger
is shared); declining tells the challenger.  The race itself lives as any
race: its invite code works for ``race_invite_seconds``, so a friend told
the code may still join it by code after the challenge lapsed.

Only a friend who is online may be challenged.  Whether a player is
online anywhere is presence's to say; until it is wired, ``is_online``
defaults to this process's own connections (``PlayerBus.connections``).
"""

from __future__ import annotations

from typing import Awaitable, Callable

from protocol import ErrorCode
from protocol import friends as pf
from protocol import to_client as tc
from protocol import to_server as ts
from server.model.refusal import Refusal
from server.net.outbox import Outbox
from server.net.peer import Peer, require_player
from server.runtime.entropy import Entropy
from server.runtime.settings import Settings
from server.social.part import SocialPart
from server.storage.base import Store


HostRace = Callable[[Peer, ts.CreateRace], Awaitable[tuple[str, str]]]
"""Create a race as ``create_race`` does, ``peer`` its host: its id and invite code."""
JoinRace = Callable[[Peer, ts.JoinRace], Awaitable[None]]
IsOnline = Callable[[str], Awaitable[bool]]
AreFriends = Callable[[str, str], Awaitable[bool]]
Notify = Callable[..., Awaitable[pf.NotificationEntry]]


class Challenges(SocialPart):
    """Challenge requests and answers; see the module docstring."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        clock: Callable[[], int],
        entropy: Entropy,
        outbox: Outbox,
        are_friends: AreFriends,
        notify: Notify,
        host_race: HostRace,
        join_race: JoinRace,
        is_online: IsOnline,
    ) -> None:
        super().__init__(settings, store, clock, entropy, outbox)
        self._are_friends = are_friends
        self._notify = notify
        self._host_race = host_race
        self._join_race = join_race
        self.is_online = is_online
        """Replaceable once presence can tell about every process."""

    async def challenge(self, peer: Peer, message: pf.Challenge) -> None:
        me = require_player(peer)
        friend = message.player_id
        if friend == me.player_id or not await self._are_friends(me.player_id, friend):
            raise Refusal(ErrorCode.NOT_FRIENDS, "you can challenge only your friends")
        if not await self.is_online(friend):
            raise Refusal(ErrorCode.FRIEND_OFFLINE, "your friend is not connected; challenge them when they are")
        create = ts.CreateRace(id=message.id, game=message.game, options=message.options, deal=message.deal)
        race_id, code = await self._host_race(peer, create)
        expires_ms = self._now() + self._settings.challenge_seconds * 1000
        challenge_id = self._entropy.new_id("n_")
        await self._records.put_challenge(
            challenge_id,
            {"challenger": me.player_id, "friend": friend, "code": code, "expires_ms": expires_ms, "game": message.game},
            self._settings.challenge_seconds + self._settings.inbox_days * 86400,
        )
        await self._notify(
            friend, "challenge", tc.Owner(player_id=me.player_id, name=me.display_name), notification_id=challenge_id,
            race_code=code, race_id=race_id, game=message.game, expires_ms=expires_ms,
        )

    async def answer(self, peer: Peer, message: pf.ChallengeAnswer) -> None:
        me = require_player(peer)
        found = await self._records.challenge(message.challenge_id)
        if found is None or found.get("friend") != me.player_id:
            raise Refusal(ErrorCode.CHALLENGE_NOT_FOUND, "you have no such challenge")
        if self._now() >= int(found["expires_ms"]):
            await self._records.drop_challenge(message.challenge_id)
            raise Refusal(ErrorCode.CHALLENGE_EXPIRED, "this challenge has expired; ask your friend for a new one")
        if message.accept:
            await self._join_race(peer, ts.JoinRace(id=message.id, code=found["code"]))
            await self._records.drop_challenge(message.challenge_id)
            return
        await self._records.drop_challenge(message.challenge_id)
        await self._notify(
            found["challenger"], "challenge_declined", tc.Owner(player_id=me.player_id, name=me.display_name),
            game=found["game"],
        )
        self._outbox.send(peer, tc.Ack(id=message.id))
