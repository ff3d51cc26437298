"""The solver searches the assists run in the worker pool
(``server.runtime.workers``): hints, finishing and analyses.

A worker is given data, never the live ``Game`` (which the room goes on
changing, and which cannot cross a process boundary anyway):

- a hint (``hint_job``): the session header and its log.  A hint depends
  on more than the board (the boards already seen, which it never
  returns to; the previous move; the plan the last hint came from, which
  ``engine.solver.assist`` keeps with the game object), and replaying the
  log rebuilds exactly the game the room holds, so the hint is the one
  that game would give.  A game's hints always go to the same worker
  (its game id is the job's key), which keeps the games it rebuilt
  (``GAMES_KEPT``): ``HintSearches`` sends only the entries logged since
  the game's last hint (logs only grow), so a hint costs the event loop
  the same early in a game as after a thousand moves, and a trail of
  hints goes on with its plan as it did in one process.  A worker that
  no longer holds the game (restarted, or it forgot it) says so, and the
  whole log follows.
- a finishing search (``finish_job``): the header (for the rules and the
  difficulty) and the immutable ``Position`` to search.
- an analysis (``analysis_job``): the header and the line played.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import NamedTuple, Sequence

from engine.game import Position
from engine.solver import Analysis, analyse, auto_finish
from engine.solver.assist import has_plan, hint_with_confidence
from server.model.session import Session, build_game
from server.model.records import Action, SessionHeader
from server.runtime.workers import Priority, WorkerPool

GAMES_KEPT = 256
"""Rebuilt games a worker keeps for the next hint of the same game."""


class HintFound(NamedTuple):
    """A hint as the worker found it: the move as notation ("" for none)
    and how sure it is (``engine.solver.assist.Hint``; None with no move)."""

    move: str
    confidence: float | None


class _Kept(NamedTuple):
    length: int
    last: Action | None
    session: Session
    planless: bool = False
    """Its last hint found no winning line to go on with (``has_plan``)."""


_KEPT: OrderedDict[str, _Kept] = OrderedDict()
"""This worker's rebuilt games by game id, least recently hinted first."""


def _replayed(header: SessionHeader, known: int, entries: tuple[Action, ...], last: Action | None) -> _Kept | None:
    """The session after the first ``known`` entries of its log (sent
    before; the last of them ``last``) and then ``entries``: from the kept
    session, or replayed when ``known`` is 0.  None when this worker does
    not hold the game as it was after ``known`` entries."""
    kept = _KEPT.pop(header.game_id, None)
    if known == 0:
        # The game replayed from the start goes on from the one kept (its
        # hint found no win, say) when the kept log begins the new one.
        planless = (
            kept is not None and kept.planless and kept.length <= len(entries)
            and (kept.length == 0 or entries[kept.length - 1] == kept.last)
        )
        kept = _Kept(len(entries), entries[-1] if entries else None, Session.replay(header, list(entries)), planless)
    elif kept is not None and kept.length == known and kept.last == last:
        for action in entries:
            kept.session.apply_committed(action)
        kept = kept._replace(length=known + len(entries), last=entries[-1] if entries else last)
    else:
        return None
    _KEPT[header.game_id] = kept
    while len(_KEPT) > GAMES_KEPT:
        _KEPT.popitem(last=False)
    return kept


def hint_job(
    header: SessionHeader, known: int, entries: tuple[Action, ...], last: Action | None, planless_nodes: int | None = None
) -> HintFound | None:
    """The hint in the game of ``header`` after its log's first ``known``
    entries and ``entries`` (``_replayed``): ``hint_with_confidence``,
    the player's view only.  None when this worker does not hold those
    first entries.

    A game whose last hint found no winning line searches at most
    ``planless_nodes`` (``hint_planless_nodes``): its full budget was just
    spent from a position a move or so away without a win, so the next
    full search most likely fails the same way, and a player asking
    again and again would hold a worker's core for a second a hint
    (Broken Deck).  A capped search that finds a win lifts the cap."""
    kept = _replayed(header, known, entries, last)
    if kept is None:
        return None
    found = hint_with_confidence(kept.session.game, planless_nodes if kept.planless else None)
    _KEPT[header.game_id] = kept._replace(planless=not has_plan(kept.session.game))
    return HintFound("", None) if found is None else HintFound(str(found.move), found.confidence)


def finish_job(header: SessionHeader, position: Position, budget: int) -> tuple[str, ...] | None:
    """A proven path to the foundations from ``position`` as notation, or
    None (``engine.solver.auto_finish`` within ``budget`` nodes)."""
    found = auto_finish(build_game(header), budget, position)
    return None if found is None else tuple(str(move) for move in found)


def analysis_job(header: SessionHeader, line: list[str], budget: int) -> Analysis:
    """Where the game of ``header`` played along ``line`` stopped being
    winnable (``engine.solver.analyse``, ``budget`` nodes per position)."""
    dealt = build_game(header)
    start = dealt.position if header.position is not None or header.seed is not None else None
    return analyse(header.game, dealt.deal, header.options, line, budget, start)


class HintSearches:
    """Hints in the pool's search lane, each game's on the same worker."""

    def __init__(self, workers: WorkerPool) -> None:
        self._workers = workers
        self._sent: OrderedDict[str, int] = OrderedDict()
        """Per game, how many log entries its worker was last sent."""

    async def hint(
        self, header: SessionHeader, log: Sequence[Action], planless_nodes: int | None = None, asker: str | None = None
    ) -> HintFound:
        """The hint for the game of
        ``header`` after ``log`` (``hint_job``, searching at most
        ``planless_nodes`` after a hint that found no win), sending its
        worker only the entries logged since the last hint, or the whole
        log when the worker no longer holds the rest; ``asker`` takes turns
        with other askers in the queue (``WorkerPool``)."""
        game_id = header.game_id
        known = self._sent.pop(game_id, 0)
        if known > len(log):
            known = 0
        entries = tuple(log[known:])
        run = self._workers.run
        last = log[known - 1] if known else None
        answer = await run(Priority.SEARCH, game_id, hint_job, header, known, entries, last, planless_nodes, asker=asker)
        if answer.value is None:
            answer = await run(Priority.SEARCH, game_id, hint_job, header, 0, tuple(log), None, planless_nodes, asker=asker)
        self._sent[game_id] = len(log)
        while len(self._sent) > GAMES_KEPT * self._workers.size(Priority.SEARCH.lane):
            self._sent.popitem(last=False)
        found: HintFound = answer.value
        return found
