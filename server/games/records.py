"""What a finished game leaves behind, its final header, the owner's
record and Vegas earnings and a ranked win's leaderboard entry, and how
records are read back (``records``).

A game's end is one step in the store: the append of its last action
opens the game's outbox (``Store.append(ends=True)``), and ``settle``
applies the rest (``Store.settle_finish``), each write guarded so that
settling twice counts once.  Whoever finds an outbox open settles it from
the log: the appending process right away, ``settle_pending`` at every
start, and any process that loads a finished game whose header still says
``playing``.  So a crash, or a Redis outage, between the two steps delays
a record but never loses it.

A game's own sums (``GameDescriptor.recorded``: Broken Deck's repairs)
are named by its descriptor: they go to the store as ``GameResult.counters``
and come back as ``Record.counters``, and the store sums any names it is
given, so a game that records a counter of its own changes nothing in
``server/``.  Only the names the game records now are read back.

Practice games record nothing.  WordLink's Vegas earnings accumulate
across games (its seed: "accumulated as total earnings"), so a Vegas
game's final score is added to the owner's total.
"""

from __future__ import annotations

import logging

import engine
from engine import EngineError
from engine.games import descriptor_of
from protocol import to_client as tc
from protocol.to_server import RequestId
from server.deals.daily import day_result, leaderboard_entry
from server.games.pacing import Pacing
from server.model.session import Session
from server.runtime.settings import Settings
from server.model.records import Finish, GameResult, ResultEntry
from server.storage.base import StorageError, Store
from server.deals.variants import record_key

log = logging.getLogger("arena.records")

SWEEP_LIMIT = 10_000
"""Open outboxes one sweep settles at most (more wait for the next sweep)."""


def kept_seconds(settings: Settings, session: Session) -> int:
    """How long a finished game stays for replays.  A game whose one
    action is its end (abandoned for the next, resigned at once) shows
    nothing worth replaying, and starting games costs nothing but the
    starts budget, so those go sooner; a race's games and ranked daily
    attempts stay as long as any, since their races and claims name them."""
    header = session.header
    keep = settings.finished_retention_seconds
    if len(session.log) == 1 and header.race_id is None and not header.ranked:
        return min(keep, settings.unplayed_retention_seconds)
    return keep


def finish_of(settings: Settings, session: Session) -> Finish:
    """Everything the end of ``session`` (finished, committed) leaves behind."""
    header = session.header
    header.status = session.status
    header.started_ms = session.started_ms
    header.finished_ms = session.finished_ms
    keep = kept_seconds(settings, session)
    if header.practice:
        return Finish(header, keep)
    finished = session.finished_ms or 0
    counters = session.counters
    score = session.score(finished)
    result = GameResult(
        won=session.result == engine.WON,
        moves=session.moves,
        time_ms=session.elapsed_ms(finished),
        hints=counters.get("hints", 0),
        undos=counters.get("undos", 0),
        score=score,
        counters={name: counters.get(name, 0) for name in descriptor_of(header.game).recorded},
    )
    vegas = score if header.options.get("scoring") == "vegas" else None
    entry = ResultEntry(
        header.owner, record_key(engine.game_class(header.game), header.options), result, vegas,
        day_result(settings, session),
    )
    return Finish(header, keep, entry, leaderboard_entry(settings, session))


async def settle(store: Store, settings: Settings, session: Session) -> None:
    """Apply the end of a finished game and close its outbox."""
    await store.settle_finish(finish_of(settings, session))


async def settle_pending(store: Store, settings: Settings, pacing: Pacing | None = None) -> int:
    """Settle every open outbox (a process that appended a game's end may
    have died before settling it); the number settled.  A game that fails
    to settle is logged and left open for the next sweep.  Each game is
    replayed on one ``pacing`` (``server.games.pacing``): the sweep runs on
    a serving process, and a game has no length limit."""
    pacing = pacing or Pacing()
    pace = pacing.pace()
    try:
        open_ones = await store.open_finishes(limit=SWEEP_LIMIT)
    except StorageError as error:
        log.warning("could not look for unsettled game ends: %s", error)
        return 0
    settled = 0
    for game_id in open_ones:
        try:
            loaded = await store.load_session(game_id)
            if loaded is None:
                continue
            session = await pacing.replay(*loaded, pace)
            if session.result is None:
                log.warning("the outbox of %s is open but its log does not end the game", game_id)
                continue
            await settle(store, settings, session)
            settled += 1
        except (StorageError, EngineError) as error:
            log.warning("could not settle the end of %s: %s", game_id, error)
    if settled:
        log.info("settled the ends of %d games left open (a process stopped before settling them)", settled)
    return settled


async def records_reply(store: Store, player_id: str, name: str, request_id: RequestId | None) -> tc.RecordsReply:
    """Every record of a player, by game then variant (the store keys them
    ``game/variant``), with the Vegas earnings."""
    stored = await store.records(player_id)
    entries = []
    for key in sorted(stored):
        game, _, variant = key.partition("/")
        record = stored[key]
        descriptor = descriptor_of(game)
        entries.append(
            tc.RecordEntry(
                game=game,
                title=descriptor.title,
                variant=variant,
                games=record.games,
                wins=record.wins,
                moves=record.moves,
                time_ms=record.time_ms,
                hints=record.hints,
                undos=record.undos,
                counters={name: record.counters.get(name, 0) for name in descriptor.recorded},
                best_moves=record.best_moves,
                best_time_ms=record.best_time_ms,
                best_score=record.extra.get("best_score"),
            )
        )
    return tc.RecordsReply(
        id=request_id, player_id=player_id, name=name, records=entries, vegas_earnings=await store.vegas(player_id)
    )
