"""What a race's followers are shown of it: the ``race`` message's race,
a racer's row, and the progress a finished race's results froze.

Apart from the ledger's rules (``server.races.state``) because these are
the views of a state, not its checks.  Which of the invite code, the deal
and a winnable deal's proof a ``race`` message names is
``server.model.visibility.race_names``'s decision, beside every other
rule of who sees which deal.
"""

from __future__ import annotations

from typing import Any

import engine
from protocol import to_client as tc
from server.deals.proofs import seed_text
from server.model.visibility import RaceFacts, RaceNames, race_names
from server.races.progress import Progress
from server.races.state import RANKED_FIRST, RaceState, Racer


def racer_view(state: RaceState, racer: Racer, progress: Progress | None, now_ms: int) -> tc.Racer:
    progress = progress or Progress()
    if racer.apart == RANKED_FIRST:
        shown = "sitting_out"
    elif state.starts_at is None or now_ms < state.starts_at:
        shown = "waiting" if racer.connected else "disconnected"
    elif progress.result is not None:
        shown = progress.result
    else:
        shown = "playing" if racer.connected else "disconnected"
    end = progress.finished_ms if progress.finished_ms is not None else min(now_ms, state.ends_at or now_ms)
    return tc.Racer(
        player_id=racer.player_id,
        name=racer.name,
        game_id=racer.game_id,
        state=shown,
        ranked=racer.ranked,
        apart=racer.apart,
        moves=progress.moves,
        foundation=progress.foundation,
        counters=progress.counters,
        elapsed_ms=max(0, end - state.starts_at) if state.starts_at is not None else 0,
    )


def final_progress(state: RaceState) -> dict[str, Progress]:
    """Progress as the results table froze it (for finished races; a table
    stored before rows kept their ``counters`` shows none)."""
    return {
        row["player_id"]: Progress(
            result=row["result"],
            moves=row["moves"],
            foundation=row["foundation"],
            counters=row.get("counters", {}),
            finished_ms=row["finished_ms"],
        )
        for row in state.results or []
    }


def _proof(state: RaceState, names: RaceNames) -> dict[str, Any]:
    if not names.proof or state.seed is None:
        return {}
    return {"seed": seed_text(state.seed), "nonce": state.nonce, "line": state.line}


def race_info(state: RaceState, progress: dict[str, Progress], now_ms: int, member: bool) -> tc.RaceInfo:
    """The race as a racer (``member``) or anyone else sees it."""
    host = state.racers.get(state.host)
    phase = state.phase(now_ms)
    names = race_names(RaceFacts(phase), member, state.seed is not None, state.daily is not None)
    return tc.RaceInfo(
        race_id=state.race_id,
        code=state.code if names.code else None,
        host=tc.Owner(player_id=state.host, name=host.name if host else state.host),
        game=state.game,
        title=engine.game_class(state.game).title,
        options=state.options,
        deal_kind=state.deal_kind,
        daily=state.daily,
        verified=state.verified,
        deal=state.deal if names.deal else None,
        ranked=state.deal_kind != "number",
        commitment=state.commitment,
        **_proof(state, names),
        phase=phase,
        limit=state.limit,
        created_ms=state.created_ms,
        invite_expires_ms=state.invite_expires_ms,
        starts_at=state.starts_at,
        ends_at=state.ends_at,
        finished_ms=state.finished_ms,
        racers=[racer_view(state, racer, progress.get(pid), now_ms) for pid, racer in state.racers.items()],
        results=[
            tc.RaceResult(**{key: row[key] for key in tc.RaceResult.model_fields if key in row})
            for row in state.results
        ] if state.results is not None else None,
        rematch=state.rematch,
    )
