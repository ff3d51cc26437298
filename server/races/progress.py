"""What everyone may know of a racer's game while a race runs: counts,
never cards.  Published by the process where the racer acted, relayed to
every process that follows the race, and frozen into the results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from server.model.fair_play import shown_counters
from server.model.session import Session


@dataclass
class Progress:
    """What everyone may know of a racer's game: counts, never cards.
    ``counters`` are the ones its game's descriptor declares
    (``GameDescriptor.counters``: Broken Deck's repairs, Chequers' reserve
    …), so the race code names none of them."""

    seq: int = 0
    result: str | None = None
    moves: int = 0
    foundation: int = 0
    counters: dict[str, int] = field(default_factory=dict)
    finished_ms: int | None = None

    @classmethod
    def of(cls, session: Session) -> Progress:
        return cls(
            seq=session.seq,
            result=session.result,
            moves=session.moves,
            foundation=session.counters.get("foundation", 0),
            counters=shown_counters(session),
            finished_ms=session.finished_ms,
        )

    def to_list(self) -> list[Any]:
        return [self.seq, self.result, self.moves, self.foundation, self.counters, self.finished_ms]

    @classmethod
    def from_list(cls, data: list[Any]) -> Progress:
        seq, result, moves, foundation, counters, finished_ms = data
        return cls(
            int(seq), result, int(moves), int(foundation), {str(k): int(v) for k, v in counters.items()}, finished_ms
        )
