"""What a finished game leaves behind, its final header and the owner's
record, and how records are read back (``records``).

Practice games record nothing.  WordLink's Vegas earnings accumulate
across games (its seed: "accumulated as total earnings"), so a Vegas
game's final score is added to the owner's total.
"""

from __future__ import annotations

import engine
from protocol import to_client as tc
from protocol.to_server import RequestId
from server.session import Session
from server.storage.base import GameResult, Store
from server.variants import record_key


async def record_finish(store: Store, session: Session, keep_seconds: int) -> None:
    """Store the final header, then fold the result into the owner's record."""
    header = session.header
    header.status = session.status
    header.started_ms = session.started_ms
    header.finished_ms = session.finished_ms
    await store.finish_session(header, keep_seconds)
    if header.practice:
        return
    finished = session.finished_ms or 0
    counters = session.counters
    score = session.score(finished)
    result = GameResult(
        won=session.result == engine.WON,
        moves=session.moves,
        time_ms=session.elapsed_ms(finished),
        hints=counters.get("hints", 0),
        undos=counters.get("undos", 0),
        repairs=counters.get("repairs", 0),
        score=score,
    )
    await store.add_result(header.owner, record_key(engine.game_class(header.game), header.options), result)
    if header.options.get("scoring") == "vegas" and score is not None:
        await store.add_vegas(header.owner, score)


async def records_reply(store: Store, player_id: str, name: str, request_id: RequestId | None) -> tc.RecordsReply:
    """Every record of a player, by game then variant (the store keys them
    ``game/variant``), with the Vegas earnings."""
    stored = await store.records(player_id)
    entries = []
    for key in sorted(stored):
        game, _, variant = key.partition("/")
        record = stored[key]
        entries.append(
            tc.RecordEntry(
                game=game,
                title=engine.game_class(game).title,
                variant=variant,
                games=record.games,
                wins=record.wins,
                moves=record.moves,
                time_ms=record.time_ms,
                hints=record.hints,
                undos=record.undos,
                repairs=record.repairs,
                best_moves=record.best_moves,
                best_time_ms=record.best_time_ms,
                best_score=record.extra.get("best_score"),
            )
        )
    return tc.RecordsReply(
        id=request_id, player_id=player_id, name=name, records=entries, vegas_earnings=await store.vegas(player_id)
    )
