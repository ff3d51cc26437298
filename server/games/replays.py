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
- Pages, not one frame: a page stops before its encoding would exceed
  ``max_frame_bytes``, the largest frame the server accepts (what a
  careful client sizes its own receive limit by); every page holds at
  least one action, so paging always ends.  A ``from_seq`` past the end
  gives the final position and no diffs.
- A ``line`` (a variation, e.g. the analysis's winning line) is played
  from ``from_seq`` on a copy, at that position's time, and never stored:
  once the game is over and its deal public, what any line would show is
  no secret.
- Nothing is cached: a replay costs one pass of the engine over the log,
  as loading the game does, and asking for a page is rate limited like
  any request.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

from engine import EngineError

from protocol import to_client as tc
from protocol import to_server as ts
from protocol.codec import Codec
from server.games.assists import AssistDesk
from server.games.tables import GameRooms
from server.net.outbox import Outbox
from server.net.peer import Peer
from server.model.refusal import from_engine
from server.games.room import Room
from server.model.session import ActionKind, Change, Session, build_game
from server.runtime.settings import Settings
from server.model.records import Action

PAGE_MARGIN_BYTES = 64
"""Room left under ``max_frame_bytes`` for the separators the estimate
of a page's size does not count."""


class Replays:
    """Answers ``replay``; see the module docstring."""

    def __init__(self, settings: Settings, rooms: GameRooms, assists: AssistDesk, outbox: Outbox) -> None:
        self._settings = settings
        self._rooms = rooms
        self._assists = assists
        self._outbox = outbox

    async def replay(self, peer: Peer, message: ts.Replay) -> None:
        room = await self._rooms.room(message.game_id)
        try:
            await self._assists.check_over_and_public(room)
            reply = replay_page(room, message.from_seq, message.line, peer.codec, self._settings.max_frame_bytes)
            self._outbox.send(peer, reply.model_copy(update={"id": message.id}))
        finally:
            self._rooms.release(room)


def replay_page(room: Room, from_seq: int, line: list[str], codec: Codec, max_bytes: int) -> tc.ReplayReply:
    """The page of ``room``'s finished game from ``from_seq``, as large as
    fits in ``max_bytes`` once encoded with ``codec``; with ``line``, those
    moves from there instead of the game's own (``Refusal`` if one is not
    legal where it is played)."""
    finished = room.session
    log = finished.log
    start_seq = min(from_seq, len(log))
    header = replace(finished.header, status="playing")
    session = Session(header, build_game(header))
    mirror = Room(session, room.owner)
    for action in log[:start_seq]:
        session.apply_committed(action)
    at_ms = log[start_seq - 1].at_ms if start_seq else header.created_ms
    page = tc.ReplayReply(
        game_id=room.game_id,
        result=finished.result,
        last_seq=start_seq + len(line) if line else len(log),
        start=mirror.snapshot(at_ms),
        diffs=[],
    )
    size = len(codec.encode(page)) + PAGE_MARGIN_BYTES
    diffs: list[dict[str, object]] = []
    changes = _variation(session, line, at_ms, room.game_id) if line else map(session.apply_committed, log[start_seq:])
    for change in changes:
        diff = mirror.diff(change)
        size += len(codec.encode_data(diff)) + 1
        if diffs and size > max_bytes:
            break
        diffs.append(diff)
    return tc.ReplayReply.model_validate({**page.model_dump(), "diffs": diffs})


def _variation(session: Session, line: list[str], at_ms: int, game_id: str) -> Iterator[Change]:
    """Each move of ``line`` played on ``session`` as if at ``at_ms``."""
    for move in line:
        try:
            logged, _ = session.perform(ActionKind.MOVE, move)
        except EngineError as error:
            raise from_engine(error, game_id) from None
        yield session.commit(Action(ActionKind.MOVE, logged, at_ms))
