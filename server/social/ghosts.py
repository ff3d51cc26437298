"""Ghost races: a friend's (or the day's leader's) finished ranked daily
attempt, replayed as counts beside a player's own attempt at that daily.

Nothing is stored for it: a ghost's timeline is derived from what the
daily keeps, the ghost player's ranked claim on the day's deal
(``server.deals.claims.ranked_attempt``) and that game's stored log,
replayed entry by entry into the counts the friends' board shows of a
row (``friends_board.row_of``: cards home, counted actions, state), at
each entry's offset from that player's first snapshot.  Counts only:
never a card, a move or a pile, whatever the deal's secrecy.

Decisions, and why:
- Only during the requester's own ranked daily attempt at that day and
  variant, named by its game id (``attempt_required`` otherwise): a ghost
  cannot be read to plan an attempt before starting it, and it is never
  the future of a deal one has not yet seen.
- The server paces each ghost: the reply is the ghost as it stood at the
  requester's clock (the same offset from the requester's first
  snapshot), and each later change is pushed when the requester's clock
  reaches its offset.  So no client holds a ghost's future (how fast a
  friend cleared the deal, when they got stuck) before living that far
  into its own attempt.  The cost: one timer per raced ghost, and a frame
  only when its counts change, at most one a second per ghost (the
  latest counts of that second, as the friends' board coalesces
  progress), so ``ghost_limit`` ghosts cost a connection at most that
  many frames a second.
- Who may be raced: a mutual friend (``Friends.are_friends``, so a block
  ends it), the day's leader (the first of the public board) unless one
  of the two blocked the other, and whoever a part given to ``allow``
  accepts (league members).  Only a finished attempt: a friend still
  playing is live on the friends' board already.
- A ghost stops at its own attempt's end (its last update says how it
  ended), when the requester's attempt ends (a finish acted here, or seen
  in the room held here when the ghost's next change is due), on
  ``stop_ghost`` and when the connection closes.  At most
  ``ghost_limit`` ghosts per attempt on this process; asking again for a
  ghost already raced restarts it without counting twice.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Awaitable, Callable, cast

from engine import EngineError
from protocol import ErrorCode
from protocol import ghosts as pg
from protocol import to_client as tc
from protocol.parts import Status
from server.deals.claims import ranked_attempt
from server.deals.daily import daily_key, daily_variant, known_game
from server.games.owners import owner_of
from server.games.pacing import CHUNK, Pace
from server.games.replay_budget import ReplayBudget
from server.games.tables import GameRooms
from server.model.fair_play import board_name
from server.model.records import Action, SessionHeader
from server.model.refusal import Refusal
from server.model.session import FINAL_RESULTS, Session
from server.net.outbox import Outbox
from server.net.peer import Peer, require_player
from server.runtime.scheduler import Scheduler, Timer
from server.runtime.settings import Settings
from server.social.bus import PlayerBus
from server.social.friends import Friends
from server.social.friends_board import Listen, row_of
from server.storage.base import Store

PUSH_INTERVAL_MS = 1000
"""At most one update per ghost in this many milliseconds."""

TIMELINES_KEPT = 256
"""Finished attempts' timelines kept here, the least recently raced
dropped first: a ghost raced by many is replayed from its log once."""

Raceable = Callable[[str, str], Awaitable[bool]]
"""Whether the first player may race the second one's ghost."""

RunKey = tuple[str, str]
"""A raced ghost: the requester's attempt and the ghost's player."""


@dataclass(frozen=True)
class Point:
    """A ghost's counts from one offset on."""

    offset_ms: int
    cards_home: int
    actions: int
    state: Status


async def timeline(header: SessionHeader, log: list[Action], pace: Pace) -> list[Point]:
    """The counts of a stored attempt after each entry that changed them,
    at its offset from the attempt's first snapshot.  The attempt is
    replayed a chunk of entries at a time on ``pace`` (``server.games.pacing``):
    an attempt has no length limit, and 2,000 draws took 40 ms."""
    start = header.started_ms if header.started_ms is not None else log[0].at_ms if log else header.created_ms
    session = Session.replay(replace(header, status="playing"), [])
    owner = tc.Owner(player_id=header.owner, name=header.owner)

    def point(at_ms: int) -> Point:
        row = row_of(session, owner, False, at_ms)
        return Point(max(0, at_ms - start), row["cards_home"] or 0, row["actions"] or 0, row["result"] or "playing")

    points = [point(start)]
    for index, action in enumerate(log, start=1):
        try:
            session.apply_committed(action)
        except EngineError:
            break
        if index % CHUNK == 0:
            await pace.step()
        counted = point(action.at_ms)
        if counted.offset_ms < points[-1].offset_ms:
            counted = replace(counted, offset_ms=points[-1].offset_ms)
        if (counted.cards_home, counted.actions, counted.state) != (points[-1].cards_home, points[-1].actions, points[-1].state):
            points.append(counted)
    if points[-1].state == "playing" and header.status in FINAL_RESULTS:
        points.append(replace(points[-1], state=cast(Status, header.status)))
    return points


@dataclass
class GhostRun:
    """One ghost raced by one connection, and how far it has been shown."""

    peer: Peer
    attempt: str
    start_ms: int
    ghost: tc.Owner
    leader: bool
    points: list[Point]
    index: int
    sent_ms: int
    timer: Timer | None = None

    @property
    def key(self) -> RunKey:
        return self.attempt, self.ghost.player_id

    def shown(self) -> pg.Ghost:
        point = self.points[self.index]
        return pg.Ghost(
            player=self.ghost, leader=self.leader, offset_ms=point.offset_ms, cards_home=point.cards_home,
            actions=point.actions, state=point.state,
        )

    def reached(self, now_ms: int) -> int:
        """The last point at or before the requester's clock."""
        offsets = [point.offset_ms for point in self.points]
        return max(0, bisect.bisect_right(offsets, now_ms - self.start_ms) - 1)


def _refused(reason: str, message: str) -> Refusal:
    return Refusal(ErrorCode.GHOST_UNAVAILABLE, message, reason=reason)


class Ghosts:
    """``race_ghost`` and ``stop_ghost``, and the ghosts raced here."""

    def __init__(
        self, settings: Settings, store: Store, clock: Callable[[], int], scheduler: Scheduler, outbox: Outbox,
        bus: PlayerBus, friends: Friends, listen: Listen, tables: GameRooms, replay_budget: ReplayBudget,
    ) -> None:
        self._settings = settings
        self._store = store
        self._now = clock
        self._scheduler = scheduler
        self._outbox = outbox
        self._tables = tables
        self._replay_budget = replay_budget
        self._blocks = friends.blocks
        self._raceable: list[Raceable] = [friends.are_friends]
        self._runs: dict[Peer, dict[RunKey, GhostRun]] = {}
        self._timelines: OrderedDict[str, list[Point]] = OrderedDict()
        bus.on_departure(self.departed)
        listen(self.changed)

    def allow(self, raceable: Raceable) -> None:
        """Let a player also race the ghosts of those ``raceable`` accepts
        (the members of a league they share, say): a part that knows
        another circle of players hands its check in here."""
        self._raceable.append(raceable)

    # ---------------------------------------------------------------- requests

    async def race(self, peer: Peer, message: pg.RaceGhost) -> None:
        player_id = require_player(peer).player_id
        header = await self._attempt(player_id, message.game_id)
        day = (header.game, daily_variant(known_game(header.game), header.options), str(header.daily))
        ghost_id = await self._leader(day, player_id) if message.leader else message.player_id
        assert ghost_id is not None
        if not message.leader and (ghost_id == player_id or not await self._may_race(player_id, ghost_id)):
            raise _refused("not_raceable", "you can race the ghost of a friend, of a league mate, or of the day's leader")
        points = await self._timeline(day, ghost_id, peer.address, message.game_id)
        owner = await owner_of(self._store, ghost_id)
        if peer.closed:
            return
        key = (message.game_id, ghost_id)
        if key not in self._runs.get(peer, {}) and self.raced(message.game_id) >= self._settings.ghost_limit:
            raise _refused("ghost_limit", f"an attempt races at most {self._settings.ghost_limit} ghosts; stop one first")
        now = self._now()
        self._stop(peer, lambda run: run.key == key)
        start = header.started_ms if header.started_ms is not None else now
        run = GhostRun(peer, message.game_id, start, owner, message.leader, points, 0, now)
        run.index = run.reached(now)
        self._runs.setdefault(peer, {})[key] = run
        self._outbox.send(peer, pg.GhostReply(id=message.id, game_id=message.game_id, ghost=run.shown(), server_time=now))
        self._schedule(run)

    async def stop(self, peer: Peer, message: pg.StopGhost) -> None:
        require_player(peer)
        self._stop(peer, lambda run: run.attempt == message.game_id and message.player_id in (None, run.ghost.player_id))
        self._outbox.send(peer, tc.Ack(id=message.id, game_id=message.game_id))

    async def _attempt(self, player_id: str, game_id: str) -> SessionHeader:
        """The header of the requester's ranked daily attempt in progress."""
        room = self._tables.rooms.get(game_id)
        header: SessionHeader | None = None
        if room is not None:
            header, over = room.session.header, room.session.result is not None
        else:
            loaded = await self._store.load_session(game_id)
            header, over = (loaded[0], loaded[0].status != "playing") if loaded is not None else (None, True)
        mine = header is not None and not over and header.owner == player_id and header.ranked
        if header is None or not mine or header.daily is None or header.practice or header.race_id is not None:
            raise _refused("attempt_required", "ghosts are raced during your ranked daily attempt: give its game_id")
        variant = daily_variant(known_game(header.game), header.options)
        if await ranked_attempt(self._store, daily_key(header.game, variant, header.daily), player_id) != game_id:
            raise _refused("attempt_required", "ghosts are raced during your ranked daily attempt: give its game_id")
        return header

    async def _leader(self, day: tuple[str, str, str], player_id: str) -> str:
        first = await self._store.leaderboard(board_name(*day), 0, 1)
        if not first:
            raise _refused("no_leader", f"nobody has won the {day[2]} daily of {day[0]} {day[1]} yet")
        leader = first[0].player_id
        if await self._blocks(leader, player_id) or await self._blocks(player_id, leader):
            raise _refused("not_raceable", "you can race the ghost of a friend, or of the day's leader")
        return leader

    async def _may_race(self, player_id: str, ghost_id: str) -> bool:
        for raceable in self._raceable:
            if await raceable(player_id, ghost_id):
                return True
        return False

    async def _timeline(self, day: tuple[str, str, str], ghost_id: str, address: str, attempt: str) -> list[Point]:
        """The ghost's finished attempt at that daily, as counts.  Reading
        one not kept here replays it, which the asker's address pays from its
        replay budget (``server.games.replay_budget``), as it pays for a game
        loaded to watch: else identities of one address, each with a long
        attempt of its own, could have the server replay every one for free
        (a process keeps ``TIMELINES_KEPT`` timelines, so racing one again is free)."""
        game_id = await ranked_attempt(self._store, daily_key(*day), ghost_id)
        kept = self._timelines.get(game_id) if game_id is not None else None
        if kept is not None:
            self._timelines.move_to_end(str(game_id))
            return kept
        loaded = await self._store.load_session(game_id) if game_id is not None else None
        if game_id is None or loaded is None or loaded[0].status == "playing":
            raise _refused("not_finished", "that player has no finished attempt at this daily")
        self._replay_budget.check(address, attempt)
        self._replay_budget.spend(address, len(loaded[1]))
        points = await timeline(*loaded, self._tables.pacing.pace())
        self._timelines[game_id] = points
        if len(self._timelines) > TIMELINES_KEPT:
            self._timelines.popitem(last=False)
        return points

    def raced(self, attempt: str) -> int:
        """How many ghosts the attempt races on this process."""
        return sum(1 for runs in self._runs.values() for run_attempt, _ in runs if run_attempt == attempt)

    # ---------------------------------------------------------------- pacing

    def _schedule(self, run: GhostRun) -> None:
        """Wait for the ghost's next change, and a second since the last."""
        run.timer = None
        if run.index + 1 >= len(run.points):
            return
        due = max(run.start_ms + run.points[run.index + 1].offset_ms, run.sent_ms + PUSH_INTERVAL_MS)
        run.timer = self._scheduler.call_later(max(0, due - self._now()) / 1000, lambda: self._due(run))

    def _due(self, run: GhostRun) -> None:
        if self._runs.get(run.peer, {}).get(run.key) is not run:
            return
        room = self._tables.rooms.get(run.attempt)
        if room is not None and room.session.result is not None:
            self.ended(run.attempt)
            return
        now = self._now()
        reached = run.reached(now)
        if reached > run.index:
            run.index, run.sent_ms = reached, now
            self._outbox.send(run.peer, pg.GhostUpdate(game_id=run.attempt, ghost=run.shown(), server_time=now))
        self._schedule(run)

    # ---------------------------------------------------------------- stopping

    def changed(self, session: Session) -> None:
        """A game acted here: its end stops the ghosts raced beside it."""
        if session.result is not None:
            self.ended(session.game_id)

    def ended(self, attempt: str) -> None:
        for peer in list(self._runs):
            self._stop(peer, lambda run: run.attempt == attempt)

    def departed(self, peer: Peer) -> None:
        self._stop(peer, lambda run: True)

    def _stop(self, peer: Peer, which: Callable[[GhostRun], bool]) -> None:
        runs = self._runs.get(peer, {})
        for key, run in list(runs.items()):
            if which(run):
                if run.timer is not None:
                    run.timer.cancel()
                del runs[key]
        if not runs:
            self._runs.pop(peer, None)
