"""The solver's assists as the server offers them: hints, safe automatic
finishing and post-game analysis.

Every search runs in a worker process (``server.runtime.workers``), given data
(the header and log, an immutable position, the line played), never the
live game: the event loop every connection shares never searches, not
even by sharing its interpreter lock with a thread that does.  Finishing
and analysis search with perfect information, and neither ever shows
more than the player may know: an offer tells only how many moves the
proven path has, and a game is analysed only once it is over and its
deal is no longer secret.

Decisions made here, and why:
- Finishing is offered by a ``finish_offer`` message to every watcher at
  the ``seq`` where it holds.  After each committed action the server
  searches again (``finish_search_nodes``), except when the action was
  the next move of the standing offer's path: then the rest of that path
  is the new offer, with no search.  A ``finish`` sent before the offer
  came waits for that search (starting it, in a process that had not yet
  looked at the position) instead of starting another.  Hints and these
  searches share ``search_workers`` processes, a game always the same one.
- A player may ask for ``hint_burst`` hints at once and ``hint_rate`` a
  second after that; beyond, a hint is refused (``unavailable``, reason
  ``hint_rate``) and nothing happens.  Per player, not per game or
  connection, so that neither many games nor many tabs fill the workers;
  a person reading each hint before the next never meets the limit.
- A hint whose search found no win leaves the game's next hints at
  ``hint_planless_nodes`` until one finds a win (``hint_job``): a full
  search a move away just failed, and another would most likely fail
  too, at a second of a worker's core each.
- The finishing moves are ordinary logged moves, one ``diff`` each, so
  watchers see them played and replays need no solver; they count as
  moves, as they would if the player had made them.
- Analysis follows the line finally played: undone moves are left out
  and a restart begins the line again.  Its result is kept with the game
  while this process holds it, and watchers asking while it runs share
  that one search, so asking again costs nothing.  ``analysis_slots``
  processes search at once and ``analysis_queue`` more may wait their turn;
  beyond that a request is refused (``analysis_busy``) rather than queued
  for ever, so a burst of requests can neither take every core nor pile
  up work nobody will wait for.
"""

from __future__ import annotations

import asyncio
import logging
import math
from typing import Any, Callable, Sequence

from engine import EngineError
from engine.game import Position
from engine.solver import Analysis
from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts
from server.games.facts import GameFacts, RaceFactsOf
from server.games.replay_budget import ReplayBudget
from server.games.tables import GameRooms
from server.runtime.metrics import Metrics
from server.net.outbox import Outbox
from server.net.peer import Peer
from server.net.ratelimit import BucketTable
from server.model.refusal import Refusal, from_engine
from server.games.room import FinishPath, Room
from server.runtime.searches import HintFound, HintSearches, analysis_job, finish_job
from server.runtime.workers import Priority, WorkerPool
from server.model.session import ActionKind
from server.runtime.settings import Settings
from server.model.records import Action
from server.model.visibility import Assist, Facts, assist_refusal, check_assist

log = logging.getLogger("arena.assists")


def played_line(log: Sequence[Action]) -> list[str]:
    """The moves of the line as finally played: what a replay of ``log``
    from the first position would need without undo, redo or restart."""
    line: list[str] = []
    undone: list[str] = []
    for action in log:
        if action.kind == ActionKind.MOVE:
            line.append(action.text)
            undone.clear()
        elif action.kind == ActionKind.UNDO and line:
            undone.append(line.pop())
        elif action.kind == ActionKind.REDO and undone:
            line.append(undone.pop())
        elif action.kind == ActionKind.RESTART:
            line.clear()
            undone.clear()
    return line


class AssistDesk:
    """Hints, finishing offers and analyses for the games this process holds.

    It reads the rooms (``rooms``), sends through ``outbox`` and asks the
    race ledgers one question (``race_facts``); whether an assist may be
    given is ``server.model.visibility.assist_refusal``'s; the moves of a finish are
    played by whoever asked for them (``finish_path``), so the assists
    never perform an action themselves."""

    def __init__(
        self,
        settings: Settings,
        clock: Callable[[], int],
        monotonic: Callable[[], float],
        metrics: Metrics,
        outbox: Outbox,
        rooms: GameRooms,
        race_facts: RaceFactsOf,
        workers: WorkerPool,
        budget: ReplayBudget,
    ) -> None:
        self._settings = settings
        self._clock = clock
        self._monotonic = monotonic
        self._metrics = metrics
        self._outbox = outbox
        self._rooms = rooms
        self._facts = GameFacts(settings, clock, race_facts)
        self._searches: set[asyncio.Task[None]] = set()
        self._workers = workers
        self._budget = budget
        self._hints = HintSearches(workers)
        self._analyses: set[asyncio.Task[Analysis]] = set()
        self._hint_buckets = BucketTable(settings.hint_burst, settings.hint_rate, monotonic())

    # ------------------------------------------------------------ hints

    async def hint(self, room: Room, address: str) -> HintFound:
        """The hint (its move "" for none), searched in a worker
        process from the header and log (the caller holds ``room.lock``
        and has checked that a hint may be given; the worker sees the game
        as it is now), taking turns with other client addresses' hints.
        Refused past the owner's hint rate."""
        self._check_hint_rate(room)
        session = room.session
        return await self._hints.hint(session.header, session.log, self._settings.hint_planless_nodes, asker=address)

    def _check_hint_rate(self, room: Room) -> None:
        settings = self._settings
        wait = self._hint_buckets.take(room.session.header.owner, self._monotonic())
        if wait is None:
            return
        raise Refusal(
            ErrorCode.UNAVAILABLE,
            f"hints come at most {settings.hint_rate:g} a second per player ({settings.hint_burst} at once); "
            f"ask again in {math.ceil(wait)} s",
            reason="hint_rate",
            game_id=room.game_id,
        )

    # ------------------------------------------------------------ finishing

    def standing_offer(self, room: Room) -> tc.FinishOffer | None:
        """The offer that holds now, to send after a snapshot."""
        offer = room.finish_offer
        if offer is None or offer.seq != room.session.seq or room.session.result is not None:
            return None
        return offer.message(room.game_id)

    def refresh_offer(self, room: Room) -> None:
        """Make sure the current position has been looked at once: carry
        the offer along its path, or search for a new one in a worker
        process (given the position, which never changes).  A
        refused request changes nothing, so it searches nothing."""
        session = room.session
        if room.finish_checked == session.seq:
            return
        room.finish_checked = session.seq
        previous, room.finish_offer, room.finish_search = room.finish_offer, None, None
        if not session.game.finish_offered():
            return
        if assist_refusal(session.header, Assist.FINISH, Facts(self._clock(), session.result)) is not None:
            return
        last = session.log[-1] if session.log else None
        if (
            previous is not None
            and previous.seq == session.seq - 1
            and last is not None
            and last.kind == ActionKind.MOVE
            and previous.moves[0] == last.text
            and len(previous.moves) > 1
        ):
            self._offer(room, FinishPath(session.seq, previous.moves[1:]))
            return
        task = asyncio.create_task(self._search_offer(room, session.seq, session.game.position))
        room.finish_search = task
        self._searches.add(task)
        task.add_done_callback(self._searches.discard)

    async def _search_offer(self, room: Room, seq: int, position: Position) -> None:
        """Search ``position``, read when the action was committed: by the
        time this task runs, a later action may be half performed."""
        budget = self._settings.finish_search_nodes
        try:
            answer = await self._workers.run(Priority.SEARCH, room.game_id, finish_job, room.session.header, position, budget)
        except Exception:
            log.exception("finishing search failed in %s", room.game_id)
            return
        self._metrics.finish_searches.observe(answer.seconds)
        found = answer.value
        if found is None or room.session.seq != seq or room.session.result is not None:
            return
        self._offer(room, FinishPath(seq, found))

    def _offer(self, room: Room, path: FinishPath) -> None:
        room.finish_offer = path
        self._outbox.send_each(room.watchers, path.message(room.game_id))

    async def finish_path(self, room: Room) -> tuple[str, ...]:
        """The proven path to play (the caller holds ``room.lock``, so the
        game cannot move meanwhile, and has checked that its player owns
        the game and that it is live); ``Refusal`` when there is none.
        Waits for the current position's search rather than starting
        another: sending ``finish`` again and again costs one search, not
        one each."""
        session = room.session
        try:
            session.game.check_finish()
        except EngineError as error:
            raise from_engine(error, room.game_id) from None
        self.refresh_offer(room)
        if room.finish_search is not None:
            await asyncio.shield(room.finish_search)
        offer = room.finish_offer
        if offer is None or offer.seq != session.seq:
            raise Refusal(
                ErrorCode.UNAVAILABLE,
                "no complete path to the foundations was found from here; keep playing",
                reason="no_finish_path",
                game_id=room.game_id,
            )
        return offer.moves

    # ------------------------------------------------------------ analysis

    async def analyse(self, peer: Peer, message: ts.Analyse) -> None:
        """Reply with where the game stopped being winnable (any watcher may
        ask).  A game this process does not hold is loaded, which the asking
        address pays for from its ``ReplayBudget``."""
        self._budget.check(peer.address, message.game_id)
        room = await self._budget.load(peer.address, message.game_id, self._rooms.rooms, self._rooms.room)
        try:
            await self.check_over_and_public(room)
            line = played_line(room.session.log)
            analysis = room.analysis
            if analysis is None:
                analysis = room.analysis = await asyncio.shield(self._analysis_of(room, line))
            reply = tc.AnalysisReply.model_validate(
                {"id": message.id, "game_id": room.game_id, "line": line, **analysis.to_dict()}
            )
            self._outbox.send(peer, reply)
        finally:
            self._rooms.release(room)

    async def check_over_and_public(self, room: Room) -> None:
        """Refuse a game still being played or whose deal is still secret:
        what an analysis or a replay would show rivals (``server.games.replays``)."""
        session = room.session
        check_assist(session.header, Assist.ANALYSIS, await self._facts.of(session.header, session.result))

    def _analysis_of(self, room: Room, line: list[str]) -> asyncio.Task[Analysis]:
        """The analysis of ``room`` under way, or a new one if there is room
        in the queue (else ``Refusal``, reason ``analysis_busy``)."""
        running = room.analysis_task
        if running is not None:
            return running
        settings = self._settings
        if len(self._analyses) >= settings.analysis_slots + settings.analysis_queue:
            raise Refusal(
                ErrorCode.UNAVAILABLE,
                f"the server is analysing {len(self._analyses)} other games; ask again in a minute",
                reason="analysis_busy",
                game_id=room.game_id,
            )
        task = room.analysis_task = asyncio.create_task(self._analyse(room, line))
        self._analyses.add(task)

        def finished(done: asyncio.Task[Analysis]) -> None:
            self._analyses.discard(done)
            if done.cancelled() or done.exception() is not None:
                room.analysis_task = None

        task.add_done_callback(finished)
        return task

    async def _analyse(self, room: Room, line: list[str]) -> Analysis:
        header = room.session.header
        answer = await self._workers.run(Priority.ANALYSIS, None, analysis_job, header, line, self._settings.analysis_nodes)
        self._metrics.analyses.observe(answer.seconds)
        analysis: Analysis = answer.value
        return analysis

    async def close(self) -> None:
        """Stop waiting for the searches still running (at shutdown; nobody
        waits for those answers any more); whoever built the worker pool
        closes it."""
        tasks: list[asyncio.Task[Any]] = [*self._searches, *self._analyses]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
