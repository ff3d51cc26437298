"""A game as this process serves it: the session, its watchers, and the
messages that describe it.

Every watcher of a game sees the same view, so a message about the game
goes to all of ``watchers`` through the outbox's one fan-out
(``Outbox.send_each``); the player who acted gets one more encoding, with
its request id, instead of the shared one.

``lock`` serializes everything that reads or changes the session across
an ``await`` (an action waiting for the store, a snapshot, a relayed
entry), so nobody sees an action that the store has not yet accepted.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import engine
from protocol import to_client as tc
from protocol.to_server import RequestId
from engine.solver import Analysis
from server.net.peer import Peer
from server.model.fair_play import counted_actions, shown_counters
from server.model.session import Change, Session
from server.model.records import SessionHeader


@dataclass(frozen=True)
class FinishPath:
    """A proven path to the foundations from the position after entry
    ``seq`` (found by ``server.games.assists``, kept with the room it holds for)."""

    seq: int
    moves: tuple[str, ...]

    def message(self, game_id: str) -> tc.FinishOffer:
        return tc.FinishOffer(game_id=game_id, seq=self.seq, moves=len(self.moves))


def summarize(header: SessionHeader, owner: tc.Owner) -> tc.GameSummary:
    """A game's line in ``welcome`` and ``games``, from its header alone."""
    return tc.GameSummary(
        game_id=header.game_id,
        game=header.game,
        title=engine.game_class(header.game).title,
        owner=owner,
        options=header.options,
        practice=header.practice,
        status=header.status,
        created_ms=header.created_ms,
    )


class Room:
    def __init__(self, session: Session, owner: tc.Owner) -> None:
        self.session = session
        self.owner = owner
        self.title = engine.game_class(session.header.game).title
        self.watchers: set[Peer] = set()
        self.followers: set[Peer] = set()
        """Viewers of a secret deal: they get ``progress``, never the board."""
        self.lock = asyncio.Lock()
        self.finish_offer: FinishPath | None = None
        self.finish_checked = -1
        self.finish_search: asyncio.Task[None] | None = None
        self.analysis: Analysis | None = None
        self.analysis_task: asyncio.Task[Analysis] | None = None

    @property
    def game_id(self) -> str:
        return self.session.game_id

    @property
    def key(self) -> str:
        """The game's id, as the table of held games keys it (``server.games.held``)."""
        return self.session.game_id

    @property
    def seq(self) -> int:
        return self.session.seq

    def is_owner(self, peer: Peer) -> bool:
        return peer.player is not None and peer.player.player_id == self.owner.player_id

    # ----------------------------------------------------------- messages

    def _state(self, at_ms: int) -> dict[str, Any]:
        """The fields a snapshot and a diff share, as of ``at_ms``, as plain
        data (a snapshot's model validates them; a diff is sent as is)."""
        session = self.session
        started, finished, elapsed, score = session.standing(at_ms)
        return {
            "game_id": self.game_id,
            "status": session.status,
            "counters": session.counters,
            "score": score,
            "legal": session.legal,
            "clock": {"started_ms": started, "finished_ms": finished, "elapsed_ms": elapsed},
        }

    def snapshot(self, now_ms: int, request_id: RequestId | None = None) -> tc.Snapshot:
        session = self.session
        return tc.Snapshot(
            id=request_id,
            seq=session.seq,
            game=session.header.game,
            title=self.title,
            owner=self.owner,
            practice=session.header.practice,
            view=session.view,
            ranked_daily=session.header.daily if session.header.ranked else None,
            **self._state(now_ms),
        )

    def progress(self, now_ms: int, request_id: RequestId | None = None) -> tc.GameProgress:
        """The game as a viewer of its secret deal may know it
        (``Visibility.PROGRESS_ONLY``): counts only."""
        session = self.session
        return tc.GameProgress(
            id=request_id,
            game_id=self.game_id,
            game=session.header.game,
            title=self.title,
            owner=self.owner,
            seq=session.seq,
            status=session.status,
            cards_home=session.counters.get("foundation", 0),
            counters=shown_counters(session),
            actions=counted_actions(session),
            started_ms=session.started_ms,
            time_ms=session.elapsed_ms(now_ms),
            server_time=now_ms,
        )

    def diff(self, change: Change) -> dict[str, Any]:
        """The ``diff`` message (``protocol.to_client.Diff``) as plain data,
        ready to encode.  A diff goes to every watcher after every action,
        so it skips building a validated model (the one hot path where that
        shows); its fields come from the engine's view diff and the session
        (``_state``, shared with the snapshot), in the model's order, and
        the tests check it byte for byte against the model."""
        return {
            "type": "diff",
            "game_id": self.game_id,
            "seq": change.seq,
            "action": {"kind": change.action.kind, "text": change.action.text},
            "ops": change.ops,
            **self._state(change.action.at_ms),
        }

    def game_over(self, deal: int | None = None) -> tc.GameOver:
        """The game's ``game_over``, naming ``deal`` only when its caller
        passes it: whether it may is ``visibility.deal_named``'s decision
        (``Watching.game_over``), never the room's, so a deal the caller
        did not clear stays unnamed."""
        session = self.session
        finished = session.finished_ms or 0
        return tc.GameOver(
            game_id=self.game_id,
            result=session.result,
            deal=deal,
            time_ms=session.elapsed_ms(finished),
            moves=session.moves,
            score=session.score(finished),
            counters=session.counters,
        )
