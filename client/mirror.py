"""A client's copy of one watched game, kept from ``snapshot`` + ``diff``s.

The server sends a snapshot (the whole view at ``seq``), then one diff per
action numbered ``seq + 1``, ``seq + 2`` …  The mirror applies each diff
with ``engine.apply_diff``, the same function the server's diffs are
tested against, so the mirror's ``view`` equals the server's view after
every action.  A diff that does not follow on (a gap) or does not fit
the view makes the mirror *stale*: it ignores diffs until a fresh
snapshot arrives, and tells its client, which asks the server for one
(``resync``).  Snapshots are always authoritative: they replace
everything, whatever their ``seq``.

Decisions where the protocol is silent:
- A diff whose ``seq`` is not above the mirror's is ignored, not a gap:
  it describes a change the last snapshot already contains (the server
  sends a snapshot and may have queued diffs before it).
- ``finish_offer`` is the last ``finish_offer`` received; it holds only
  while its ``seq`` is the mirror's (``can_finish``): the next diff
  withdraws it unless a new offer follows.
- ``finished`` is true after ``game_over`` or a snapshot whose status is
  won, resigned or abandoned.  A snapshot saying ``lost`` is not enough:
  the server also reports ``lost`` while an undo could still rescue the
  game, and only ``game_over`` tells the two apart.

Example::

    game = await client.watch(game_id)
    print(game.seq, game.status, game.counters)
    async for update in game.updates():
        print(update.type, game.seq, game.view["piles"]["t1"])
"""

from __future__ import annotations

import enum
from typing import Any

import engine
from protocol import to_client as tc

from .feed import Feed

Update = tc.Snapshot | tc.Diff | tc.GameOver | tc.FinishOffer
FINAL_STATUSES = frozenset({"won", "resigned", "abandoned"})


class DiffOutcome(enum.Enum):
    """What ``GameMirror.apply_diff`` did with a diff."""

    APPLIED = "applied"
    IGNORED = "ignored"
    GAP = "gap"


class GameMirror(Feed[Update]):
    """One game as the server last described it.  The client library
    creates mirrors and feeds them; read their attributes, iterate their
    ``updates()`` or ``wait_until`` a condition.

    Before the first snapshot (``ready`` false) only ``game_id`` and
    ``started`` are set.
    """

    def __init__(self, game_id: str, started: tc.GameStarted | None = None) -> None:
        super().__init__()
        self.game_id = game_id
        self.started = started
        self.ready = False
        self.seq = -1
        self.game = started.game if started else ""
        self.title = started.title if started else ""
        self.practice = started.practice if started else False
        self.owner: tc.Owner | None = None
        self.view: dict[str, Any] = {}
        self.status: tc.Status = "playing"
        self.counters: dict[str, int] = {}
        self.score: int | None = None
        self.legal: list[str] | None = None
        self.clock: tc.Clock | None = None
        self.last_action: tc.ActionDone | None = None
        self.result: tc.GameOver | None = None
        self.finish_offer: tc.FinishOffer | None = None
        self.stale = False
        self.snapshots = 0
        self.gaps = 0

    def __repr__(self) -> str:
        return f"<GameMirror {self.game_id} {self.game} seq={self.seq} {self.status}>"

    # ------------------------------------------------------------ reading

    @property
    def finished(self) -> bool:
        """True once the game can take no more actions (see the module docstring)."""
        return self.result is not None or self.status in FINAL_STATUSES

    @property
    def can_finish(self) -> bool:
        """True while the server offers safe automatic finishing here."""
        offer = self.finish_offer
        return offer is not None and offer.seq == self.seq and not self.finished and not self.stale

    @property
    def ended(self) -> bool:
        """No more updates: ``game_over`` came or the client stopped following."""
        return self.closed or self.result is not None

    def pile(self, name: str) -> tc.PileView:
        """One pile of the view (raises ``KeyError`` for an unknown name)."""
        return tc.PileView.model_validate(self.view["piles"][name])

    # ------------------------------------------------------------ feeding

    def apply_snapshot(self, snapshot: tc.Snapshot) -> None:
        """Replace everything by ``snapshot``."""
        self.ready = True
        self.stale = False
        self.snapshots += 1
        self.seq = snapshot.seq
        self.game, self.title, self.practice = snapshot.game, snapshot.title, snapshot.practice
        self.owner = snapshot.owner
        self.view = snapshot.view.model_dump()
        self._take_state(snapshot)
        self._publish(snapshot)

    def apply_diff(self, diff: tc.Diff) -> DiffOutcome:
        """Apply ``diff`` if it follows on; on a gap the mirror turns stale
        and the caller must ask for a fresh snapshot (``resync``)."""
        if self.stale or not self.ready or diff.seq <= self.seq:
            return DiffOutcome.IGNORED
        if diff.seq != self.seq + 1:
            return self._gap()
        try:
            self.view = engine.apply_diff(self.view, [op.model_dump() for op in diff.ops])
        except (KeyError, ValueError, TypeError):
            return self._gap()
        self.seq = diff.seq
        self.last_action = diff.action
        self._take_state(diff)
        self._publish(diff)
        return DiffOutcome.APPLIED

    def apply_finish_offer(self, offer: tc.FinishOffer) -> None:
        """Keep an offer of automatic finishing (see ``can_finish``)."""
        self.finish_offer = offer
        self._publish(offer)

    def apply_game_over(self, game_over: tc.GameOver) -> None:
        self.result = game_over
        self.status = game_over.result
        self._publish(game_over)
        self._end_streams()

    def _gap(self) -> DiffOutcome:
        self.stale = True
        self.gaps += 1
        return DiffOutcome.GAP

    def _take_state(self, message: tc.Snapshot | tc.Diff) -> None:
        self.status = message.status
        self.counters = dict(message.counters)
        self.score = message.score
        self.legal = list(message.legal) if message.legal is not None else None
        self.clock = message.clock
