"""The friends' board: a player and their friends on one daily variant's day.

Nothing is stored for it: a row is derived from what the daily already
keeps, the player's ranked claim on the day's deal
(``server.deals.claims.ranked_attempt``) and that game's stored log, so
every process reads the same board and a finish shows as soon as the
store took it.  A row carries counts only (``protocol.friends_board``),
as a secret deal's ``progress`` does, whoever asks and whenever.

Live updates: the process where a ranked daily attempt acts tells the
player and their friends through the player bus, on every process; each
process hands the update only to its connections watching that board.  A
start and a finish are told at once; progress at most once a second per
attempt (the last state of that second, sent when it ends), so a fast
player costs each friend one frame a second, not one per move.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable

import engine
from engine import EngineError, Game
from protocol import friends_board as pb
from protocol import to_client as tc
from server.deals.claims import ranked_attempts
from server.deals.daily import daily_key, daily_variant, known_game, requested_day
from server.games.owners import owner_of, owners_of
from server.games.replayed import ReplayedSessions
from server.model.fair_play import counted_actions, shown_counters
from server.model.refusal import from_engine
from server.model.session import Session
from server.net.outbox import Outbox, with_id
from server.net.peer import Peer, require_player
from server.runtime.scheduler import Scheduler, Timer
from server.social.bus import PlayerBus
from server.social.friends import Friends
from server.storage.base import StorageError, Store, board_score

log = logging.getLogger("arena.social")

PROGRESS_INTERVAL_MS = 1000
"""At most one progress update per attempt in this many milliseconds."""

Listen = Callable[[Callable[[Session], None]], None]
"""Where to hear of each game that starts or acts here (``Delivery.on_changed``)."""

FORGET_AFTER = 4096
"""Games whose last update time is kept before the stale ones (over a
second old, as good as never told) are forgotten: a game left unfinished
is not kept for ever."""

BoardKey = tuple[str, str, str]
"""A board: game, variant, UTC date."""


Row = dict[str, Any]
"""A ``FriendsBoardRow`` as plain data in the wire's shape, the model's
fields in its order: a board of a hundred friends took half a
millisecond to build, place and encode as models, a ghost's timeline
builds a row after every action of an attempt, and the rows come from
the server's own counts, so they skip validation (the tests check the
encoding byte for byte against the model)."""


def _player(owner: tc.Owner) -> dict[str, str]:
    return {"player_id": owner.player_id, "name": owner.name}


def row_of(session: Session, owner: tc.Owner, me: bool, now_ms: int) -> Row:
    """A ranked attempt's row: counts only, as ``progress`` shows a secret deal."""
    finished = session.result is not None
    return {
        "player": _player(owner),
        "me": me,
        "state": "finished" if finished else "playing",
        "result": session.result,
        "place": None,
        "time_ms": session.elapsed_ms(session.finished_ms if finished and session.finished_ms else now_ms),
        "actions": counted_actions(session),
        "cards_home": session.counters.get("foundation", 0),
        "counters": shown_counters(session),
    }


def not_started(owner: tc.Owner, me: bool) -> Row:
    """The row of a player with no ranked attempt at the deal."""
    return {"player": _player(owner), "me": me, "state": "not_started", "result": None, "place": None, "time_ms": None,
            "actions": None, "cards_home": None, "counters": {}}


def ranked_rows(rows: list[Row]) -> list[Row]:
    """The rows in board order, the winners placed: wins by time then
    actions, then those playing (most cards home first), the other
    finishers, and those not started."""
    wins = sorted(
        (row for row in rows if row["result"] == "won"), key=lambda row: board_score(row["time_ms"] or 0, row["actions"] or 0, 0)
    )
    placed = [{**row, "place": place} for place, row in enumerate(wins, start=1)]
    playing = sorted((row for row in rows if row["state"] == "playing"), key=lambda row: -(row["cards_home"] or 0))
    others = [row for row in rows if row["state"] == "finished" and row["result"] != "won"]
    idle = [row for row in rows if row["state"] == "not_started"]
    return placed + playing + others + idle


def chosen_variant(game: str, options: dict[str, Any]) -> tuple[type[Game], str]:
    """The game and daily variant a request's game and options pick
    (``bad_option`` for a variant without a daily deal)."""
    game_cls = known_game(game)
    try:
        chosen = engine.game_options(game_cls.id, **options)
    except EngineError as error:
        raise from_engine(error) from None
    return game_cls, daily_variant(game_cls, chosen)


async def stored_rows(
    store: Store, replayed: ReplayedSessions, key: BoardKey, owners: list[tc.Owner], me: str, now_ms: int,
) -> list[Row]:
    """Players' rows on a board, read from the store: their ranked claims
    on the day's deal, read at once, then the claimed games, replaying only
    what each log gained since this process last read it."""
    attempts = await ranked_attempts(store, daily_key(*key), [owner.player_id for owner in owners])
    sessions = await replayed.sessions(list(attempts.values()))
    rows = []
    for owner in owners:
        attempt = attempts.get(owner.player_id)
        session = sessions.get(attempt) if attempt is not None else None
        mine = owner.player_id == me
        rows.append(not_started(owner, mine) if session is None else row_of(session, owner, mine, now_ms))
    return rows


class FriendsBoards:
    """``friends_board`` requests, the connections watching a board here,
    and the updates a ranked daily attempt acting here sends out."""

    def __init__(
        self, store: Store, clock: Callable[[], int], scheduler: Scheduler, outbox: Outbox, bus: PlayerBus,
        friends: Friends, listen: Listen, replayed: ReplayedSessions,
    ) -> None:
        self._store = store
        self._now = clock
        self._scheduler = scheduler
        self._outbox = outbox
        self._bus = bus
        self._friends_of = friends.friends_of
        self._mutual_friends = friends.mutual_friends
        self._replayed = replayed
        self._watching: dict[Peer, BoardKey] = {}
        self._last_told: dict[str, int] = {}
        self._pending: dict[str, tuple[Timer, Session]] = {}
        self._telling: dict[str, asyncio.Task[None]] = {}
        """The latest update being sent of each game: each waits for the one
        before it, so a watcher never hears a game go back in time."""
        bus.only(pb.FriendsBoardUpdate, self._wants)
        bus.on_departure(self._departed)
        listen(self.changed)

    # ---------------------------------------------------------------- reading

    async def board(self, peer: Peer, message: pb.FriendsBoard) -> None:
        player = require_player(peer)
        game_cls, variant = chosen_variant(message.game, message.options)
        now = self._now()
        key: BoardKey = (game_cls.id, variant, requested_day(message.date, now).isoformat())
        members = [player.player_id, *await self._mutual_friends(player.player_id)]
        rows = await self._rows(key, members, player.player_id, now)
        if message.watch:
            self._watching[peer] = key
        else:
            self._watching.pop(peer, None)
        self._outbox.send(peer, with_id(message.id, {
            "type": "friends_board", "game": key[0], "title": game_cls.title, "variant": key[1], "date": key[2],
            "rows": ranked_rows(rows), "server_time": now,
        }))

    async def _rows(self, key: BoardKey, members: list[str], me: str, now_ms: int) -> list[Row]:
        return await stored_rows(self._store, self._replayed, key, await owners_of(self._store, members), me, now_ms)

    # ---------------------------------------------------------------- telling

    def changed(self, session: Session) -> None:
        """A ranked daily attempt started or acted here: tell its player's
        friends now (a start, a finish) or by the end of its second."""
        header = session.header
        if not header.ranked or header.daily is None or header.practice:
            return
        game_id = header.game_id
        now = self._now()
        if session.result is not None or not session.log:
            self._cancel(game_id)
            self._tell(session)
            if session.result is not None:
                self._last_told.pop(game_id, None)
            return
        if game_id in self._pending:
            return
        wait_ms = self._last_told.get(game_id, -PROGRESS_INTERVAL_MS) + PROGRESS_INTERVAL_MS - now
        if wait_ms <= 0:
            self._tell(session)
            return
        timer = self._scheduler.call_later(wait_ms / 1000, lambda: self._due(game_id))
        self._pending[game_id] = (timer, session)

    def _due(self, game_id: str) -> None:
        pending = self._pending.pop(game_id, None)
        if pending is not None:
            self._tell(pending[1])

    def _cancel(self, game_id: str) -> None:
        pending = self._pending.pop(game_id, None)
        if pending is not None:
            pending[0].cancel()

    def _tell(self, session: Session) -> None:
        game_id = session.header.game_id
        now = self._now()
        if len(self._last_told) >= FORGET_AFTER:
            self._last_told = {game: at for game, at in self._last_told.items() if now - at < PROGRESS_INTERVAL_MS}
        self._last_told[game_id] = now
        task = asyncio.create_task(self._send(session, self._telling.get(game_id)), name=f"friends board {game_id}")
        self._telling[game_id] = task
        task.add_done_callback(lambda done: self._sent(game_id, done))

    def _sent(self, game_id: str, task: asyncio.Task[None]) -> None:
        if self._telling.get(game_id) is task:
            del self._telling[game_id]

    async def _send(self, session: Session, before: asyncio.Task[None] | None) -> None:
        if before is not None:
            await asyncio.wait([before])
        header = session.header
        try:
            now = self._now()
            game_cls = known_game(header.game)
            update = pb.FriendsBoardUpdate(
                game=header.game, variant=daily_variant(game_cls, header.options), date=str(header.daily),
                row=pb.FriendsBoardRow.model_validate(row_of(session, await owner_of(self._store, header.owner), False, now)),
                server_time=now,
            )
            await self._bus.tell([header.owner, *await self._friends_of(header.owner)], update)
        except StorageError as error:
            log.warning("could not tell %s's friends' boards: %s", header.owner, error)

    # ---------------------------------------------------------------- watchers here

    def _wants(self, peer: Peer, message: tc.Event) -> bool:
        """Whether ``peer`` watches the board an update is about; an update
        reaches only the connections watching its board."""
        assert isinstance(message, pb.FriendsBoardUpdate)
        return self._watching.get(peer) == (message.game, message.variant, message.date)

    def _departed(self, peer: Peer) -> None:
        self._watching.pop(peer, None)
