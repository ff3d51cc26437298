"""Replays: a finished game, action by action, as its player saw it.

A replay is built from the stored log the way a process that loads the
game rebuilds it (``Session``), but one entry at a time, keeping what a
watcher was sent after each: the first page starts with the snapshot at
seq 0 and goes on with every ``diff`` (``Room.diff``, the broadcast's own
code), so the views are the player's views at each step and a face-down
card is never named before it was turned.  A client needs no rules
engine: it applies the diffs with the mirror it already has.

Decisions made here, and why:
- Permission is ``analyse``'s (``AssistDesk.check_over_and_public``): a
  live game, a race still running and a daily deal before its reveal are
  refused with the same codes, its owner included, since a replay of a
  secret deal would show every card that was turned.
- A page's prefix is replayed a chunk of entries at a time and its own
  entries one at a time, and the others are served in between once a
  slice of the loop's time is spent (``server.games.pacing``): the
  first page of a long game took 8 ms.
  It is sent as the plain data it was built as, the model's very
  encoding without building 200 ``Diff`` models to encode them again.
- Pages, not one frame: a page stops before its encoding would exceed
  ``max_frame_bytes``, the largest frame the server accepts (what a
  careful client sizes its own receive limit by); every page holds at
  least one action, so paging always ends.  A ``from_seq`` past the end
  gives the final position and no diffs.
- A ``line`` (a variation, e.g. the analysis's winning line) is played
  from ``from_seq`` on a copy, at that position's time, and never stored:
  once the game is over and its deal public, what any line would show is
  no secret.
- A page costs the engine's pass over the log up to its end, and a game
  this process does not hold costs its load besides: both are counted
  against the asking address's ``ReplayBudget``
  (``server.games.replay_budget``).
- A client reading page after page pays for each page once: the replayed
  game is kept where a page ended, with the finished game itself
  (``CURSORS`` of them, the least lately used forgotten), and the next
  page from there goes on from it instead of loading the game and
  replaying the log from the start.  A page is then ended before an
  action whose diff might not fit (twice the largest diff of the page so
  far), so that the game is kept exactly at the page's end.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any, Iterator, Sequence

from engine import EngineError

from protocol import to_client as tc
from protocol import to_server as ts
from protocol.codec import Codec
from server.games.assists import AssistDesk
from server.games.pacing import Pace, Pacing
from server.games.replay_budget import ReplayBudget
from server.games.tables import GameRooms
from server.net.outbox import Outbox
from server.net.peer import Peer
from server.model.refusal import from_engine
from server.games.room import Room
from server.model.session import ActionKind, Change, Session
from server.runtime.settings import Settings
from server.model.records import Action

PAGE_MARGIN_BYTES = 64
"""Room left under ``max_frame_bytes`` for the separators the estimate
of a page's size does not count."""


CURSORS = 64
"""Replays kept where their last page ended, for their next page."""


@dataclass
class _Cursor:
    """A finished game (``finished``, its room as loaded) replayed as far as
    ``session.seq``, on its mirror room."""

    finished: Room
    session: Session
    mirror: Room


class Replays:
    """Answers ``replay``; see the module docstring."""

    def __init__(
        self, settings: Settings, rooms: GameRooms, assists: AssistDesk, outbox: Outbox, budget: ReplayBudget
    ) -> None:
        self._settings = settings
        self._rooms = rooms
        self._assists = assists
        self._outbox = outbox
        self._budget = budget
        self._cursors: OrderedDict[tuple[str, int], _Cursor] = OrderedDict()

    async def replay(self, peer: Peer, message: ts.Replay) -> None:
        self._budget.check(peer.address, message.game_id)
        cursor = None if message.line else self._cursors.pop((message.game_id, message.from_seq), None)
        if cursor is not None:
            await self._send_page(peer, message, cursor.finished, cursor)
            return
        room = await self._budget.load(peer.address, message.game_id, self._rooms.rooms, self._rooms.room)
        try:
            await self._send_page(peer, message, room, None)
        finally:
            self._rooms.release(room)

    async def _send_page(self, peer: Peer, message: ts.Replay, room: Room, cursor: _Cursor | None) -> None:
        """Send the page from ``cursor`` (a kept place, which brings its game
        along: a finished game does not change, and the next page of a game
        nobody watches then costs no load), else from the start."""
        await self._assists.check_over_and_public(room)
        page, played = await self._page(room, message.from_seq, message.line, peer.codec, cursor)
        self._budget.spend(peer.address, played)
        self._outbox.send(peer, page if message.id is None else {"id": message.id, **page})

    async def _page(
        self, room: Room, from_seq: int, line: list[str], codec: Codec, cursor: _Cursor | None
    ) -> tuple[dict[str, Any], int]:
        """The page and the actions played to make it, and the place it
        ended kept for the next."""
        played = 0
        pace = self._rooms.pacing.pace()
        if cursor is None:
            cursor = await start_replay(self._rooms.pacing, room, min(from_seq, len(room.session.log)), pace)
            played = cursor.session.seq
        page, ended = await replay_page(room, cursor, line, codec, self._settings.max_frame_bytes, pace)
        if ended and not line and cursor.session.seq < len(room.session.log):
            self._cursors[(room.game_id, cursor.session.seq)] = cursor
            while len(self._cursors) > CURSORS:
                self._cursors.popitem(last=False)
        return page, played + len(page["diffs"])


async def start_replay(pacing: Pacing, room: Room, start_seq: int, pace: Pace) -> _Cursor:
    """``room``'s finished game replayed from its deal to ``start_seq``."""
    finished = room.session
    session = await pacing.replay(replace(finished.header, status="playing"), finished.log[:start_seq], pace)
    return _Cursor(room, session, Room(session, room.owner))


async def replay_page(
    room: Room, cursor: _Cursor, line: list[str], codec: Codec, max_bytes: int, pace: Pace
) -> tuple[dict[str, Any], bool]:
    """The page of ``room``'s finished game from where ``cursor`` stands, as
    large as fits in ``max_bytes`` once encoded with ``codec``, as the
    plain data of a ``ReplayReply`` without its ``id``; with ``line``,
    those moves from there instead of the game's own (``Refusal`` if one
    is not legal where it is played).  Also whether the page ended with
    ``cursor`` exactly at its last diff (it did not when an action's diff
    overflowed the page: that action is played)."""
    session, mirror = cursor.session, cursor.mirror
    log = room.session.log
    start_seq = session.seq
    at_ms = log[start_seq - 1].at_ms if start_seq else session.header.created_ms
    page = tc.ReplayReply(
        game_id=room.game_id,
        result=room.session.result,
        last_seq=start_seq + len(line) if line else len(log),
        start=mirror.snapshot(at_ms),
        diffs=[],
    ).model_dump(mode="json")
    size = len(codec.encode_data(page)) + PAGE_MARGIN_BYTES
    largest = 0
    diffs: list[dict[str, object]] = []
    changes = _variation(session, line, at_ms, room.game_id) if line else _logged(session, log, start_seq)
    exact = True
    for change in changes:
        diff = mirror.diff(change)
        diff_size = len(codec.encode_data(diff)) + 1
        size += diff_size
        if diffs and size > max_bytes:
            exact = False
            break
        diffs.append(diff)
        largest = max(largest, diff_size)
        if size + 2 * largest > max_bytes:
            break
        await pace.step()
    page["diffs"] = diffs
    return page, exact


def _logged(session: Session, log: Sequence[Action], start_seq: int) -> Iterator[Change]:
    """The logged actions from ``start_seq``, each applied when asked for."""
    for action in log[start_seq:]:
        yield session.apply_committed(action)


def _variation(session: Session, line: list[str], at_ms: int, game_id: str) -> Iterator[Change]:
    """Each move of ``line`` played on ``session`` as if at ``at_ms``."""
    for move in line:
        try:
            logged, _ = session.perform(ActionKind.MOVE, move)
        except EngineError as error:
            raise from_engine(error, game_id) from None
        yield session.commit(Action(ActionKind.MOVE, logged, at_ms))
