"""How an ``ArenaClient`` keeps its mirrors: every server message goes
through ``message_filter``, then to the ``GameMirror`` or ``RaceMirror``
it is about, before any request's future resolves.  A gap in a game's
diffs is closed by a ``resync`` in the background.  Kept apart from
``client.connection``, which keeps the connection's life.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine

from protocol import ServerMessage
from protocol import friends as pf
from protocol import ghosts as pg
from protocol import to_client as tc
from protocol import to_server as ts

from .errors import ClientError
from .ghosts import GhostBoard
from .link import MessageFilter
from .mirror import DiffOutcome, GameMirror
from .race_mirror import RaceMirror
from .friend_requests import FriendRequests

log = logging.getLogger("arena.client")


class MirrorRouting(FriendRequests):
    """Feeds the mirrors of an ``ArenaClient`` (see ``client.connection``)."""

    message_filter: MessageFilter | None
    notifications: dict[str, pf.NotificationEntry]
    """Every notification heard since the client started, by id (the
    server sends the unread ones again after each hello: kept once)."""
    _notification_listeners: list[Callable[[pf.NotificationEntry], None]]
    ghosts: GhostBoard
    """The ghosts raced beside this player's ranked daily attempts (``client.ghosts``)."""
    _background: set[asyncio.Task[None]]

    def on_notification(self, listener: Callable[[pf.NotificationEntry], None]) -> None:
        """Call ``listener`` with each notification heard so far, then with
        each new one as it arrives."""
        for entry in self.notifications.values():
            listener(entry)
        self._notification_listeners.append(listener)

    def _accept(self, message: ServerMessage) -> bool:
        """Whether ``message`` passes ``message_filter``, and if so route it."""
        if self.message_filter is not None and not self.message_filter(message):
            return False
        self._route(message)
        return True

    def _route(self, message: ServerMessage) -> None:
        """Feed the mirrors (before any request hears of the message)."""
        if isinstance(message, tc.GameStarted):
            self.games.setdefault(message.game_id, GameMirror(message.game_id, message)).started = message
        elif isinstance(message, tc.Snapshot):
            self.games.setdefault(message.game_id, GameMirror(message.game_id)).apply_snapshot(message)
            for race in self.races.values():
                self._link_board(race)
        elif isinstance(message, tc.Race):
            race = self.races.setdefault(message.race.race_id, RaceMirror(message.race.race_id))
            race.apply_race(message)
            self._link_board(race)
        elif isinstance(message, pf.Notification):
            entry = message.notification
            if entry.notification_id not in self.notifications:
                self.notifications[entry.notification_id] = entry
                for listener in self._notification_listeners:
                    listener(entry)
        elif isinstance(message, (pg.GhostReply, pg.GhostUpdate)):
            self.ghosts.apply(message)
        elif isinstance(message, tc.RaceProgress):
            if (followed := self.races.get(message.race_id)) is not None:
                followed.apply_progress(message)
        elif isinstance(message, (tc.Diff, tc.GameOver, tc.FinishOffer)):
            mirror = self.games.get(message.game_id)
            if mirror is None:
                return
            if isinstance(message, tc.FinishOffer):
                mirror.apply_finish_offer(message)
            elif isinstance(message, tc.GameOver):
                mirror.apply_game_over(message)
            elif mirror.apply_diff(message) is DiffOutcome.GAP:
                log.info("gap in %s after seq %d (got %d): resyncing", mirror.game_id, mirror.seq, message.seq)
                self._in_background(self._resync_quietly(mirror.game_id))

    def _link_board(self, race: RaceMirror) -> None:
        """Give a race mirror its racer's own game mirror once both exist."""
        game_id = race.game_of(self.player_id)
        board = self.games.get(game_id) if game_id is not None else None
        if board is not None and board.ready and race.board is not board:
            race.attach_board(board)

    def _in_background(self, work: Coroutine[object, object, None]) -> None:
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _resync_quietly(self, game_id: str) -> None:
        try:
            await self._call(ts.Resync(game_id=game_id))
        except ClientError as error:
            log.warning("resync of %s failed: %s", game_id, error)
