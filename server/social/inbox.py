"""Notifications: kept first, then told.

Each notification is stored in its recipient's inbox (``inbox_size``
entries at most, each kept ``inbox_days``: ``server.storage.social``)
before it is sent to the recipient's connections through the player bus,
on whichever process they are.  So a player offline, or connected to a
process that missed the message (a pub/sub outage), finds it later: every
``hello`` sends the unread ones, and so does the bus's ``on_resume`` for
every player connected here.  A client may therefore see a notification
twice; its ``notification_id`` tells.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from typing import Any, Awaitable, Callable

from protocol import friends as pf
from protocol import to_client as tc
from server.games.owners import owner_of
from server.net.outbox import Outbox
from server.model.session import Session
from server.net.peer import Peer, require_player
from server.runtime.entropy import Entropy
from server.runtime.settings import Settings
from server.social.bus import PlayerBus
from server.storage.base import StorageError, Store
from server.social.part import SocialPart

DAY = 86400
log = logging.getLogger("arena.social")

FriendsOf = Callable[[str], Awaitable[list[str]]]
"""A player's friends (the friends part's ``friends_of``)."""


async def nobody(player_id: str) -> list[str]:
    return []


class Inbox(SocialPart):
    """Every player's notifications: storing, telling, listing, marking read."""

    def __init__(
        self, settings: Settings, store: Store, clock: Callable[[], int], entropy: Entropy, outbox: Outbox, bus: PlayerBus
    ) -> None:
        super().__init__(settings, store, clock, entropy, outbox)
        self._bus = bus
        self._friends_of: FriendsOf = nobody
        self._telling: set[asyncio.Task[None]] = set()
        self._sequence = itertools.count()
        bus.on_arrival(self.arrived)
        bus.on_resume(self.resumed)

    async def notify(
        self, recipient: str, kind: str, sender: tc.Owner, notification_id: str | None = None, **details: Any
    ) -> pf.NotificationEntry:
        """Keep a notification for ``recipient``, then tell every connection
        of theirs.  ``notification_id``: one the caller drew, having stored
        what the notification names under it first (a challenge)."""
        entry = pf.NotificationEntry(
            notification_id=notification_id or self._entropy.new_id("n_"), kind=kind, at_ms=self._now(), sender=sender,
            **details,
        )
        keep = self._settings.inbox_days * DAY
        await self._records.add_notification(
            recipient, entry.model_dump(mode="json"), keep, self._settings.inbox_size, next(self._sequence)
        )
        await self._bus.tell([recipient], pf.Notification(notification=entry))
        return entry

    async def tell_friends_event(self, recipient: str, kind: str, sender: tc.Owner) -> None:
        """``notify`` for the friends part (its ``Notify``)."""
        await self.notify(recipient, kind, sender)

    def use_friends(self, friends_of: FriendsOf) -> None:
        """Who a player's friends are, once the friends part exists."""
        self._friends_of = friends_of

    def game_ended(self, session: Session) -> None:
        """A game's end was settled here: a ranked daily attempt's is told
        to its player's friends (``friend_finished_daily``: the game, the
        result and the moves, counts only, as a secret deal's progress)."""
        header = session.header
        if header.ranked and header.daily is not None and not header.practice:
            task = asyncio.create_task(self._tell_daily(session), name=f"daily news {header.game_id}")
            self._telling.add(task)
            task.add_done_callback(self._telling.discard)

    async def _tell_daily(self, session: Session) -> None:
        header = session.header
        try:
            player = await owner_of(self._store, header.owner)
            for friend in await self._friends_of(header.owner):
                await self.notify(
                    friend, "friend_finished_daily", player, game=header.game, result=session.result, moves=session.moves
                )
        except StorageError as error:
            log.warning("could not tell %s's friends of the daily: %s", header.owner, error)

    async def arrived(self, peer: Peer) -> None:
        """After ``hello``: each unread notification, oldest first."""
        for entry in reversed(await self._unread(require_player(peer).player_id)):
            self._outbox.send(peer, pf.Notification(notification=entry))

    async def resumed(self) -> None:
        """The bus's channel was down: what it lost is in the inbox."""
        for player_id in self._bus.players_here():
            unread = await self._unread(player_id)
            for entry in reversed(unread):
                self._bus.tell_here([player_id], pf.Notification(notification=entry))

    async def listing(self, peer: Peer, message: pf.Notifications) -> None:
        player_id = require_player(peer).player_id
        entries = await self._entries(player_id)
        unread = sum(1 for entry in entries if not entry.read)
        shown = [entry for entry in entries if not (message.unread and entry.read)][: message.limit]
        self._outbox.send(peer, pf.NotificationList(id=message.id, notifications=shown, unread=unread))

    async def read(self, peer: Peer, message: pf.ReadNotifications) -> None:
        player_id = require_player(peer).player_id
        wanted = set(message.notification_ids)
        keep_until = self._now() // 1000
        for entry in await self._entries(player_id):
            if not entry.read and (not wanted or entry.notification_id in wanted):
                left = entry.at_ms // 1000 + self._settings.inbox_days * DAY - keep_until
                await self._records.mark_read(player_id, entry.model_dump(mode="json"), left)
        self._outbox.send(peer, tc.Ack(id=message.id))

    async def _entries(self, player_id: str) -> list[pf.NotificationEntry]:
        stored = await self._records.notifications(player_id, self._settings.inbox_size)
        return [pf.NotificationEntry.model_validate(entry) for entry in stored]

    async def _unread(self, player_id: str) -> list[pf.NotificationEntry]:
        return [entry for entry in await self._entries(player_id) if not entry.read]
