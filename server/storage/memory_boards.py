"""The memory store's leaderboards: each player's best entry per board.

An entry is ranked by ``board_score`` (time, then moves, then when it was
finished), and a player keeps only their best; ties of score go to the
smaller player id, so the order is total.  The board's lifetime is the
memory store's to keep (``server.storage.memory``).
"""

from __future__ import annotations

from .base import board_score

Entry = tuple[int, int, int, int]
"""(score, time in ms, moves, finished at in ms)."""


class MemoryBoards:
    def __init__(self) -> None:
        self.boards: dict[str, dict[str, Entry]] = {}

    def submit(self, board: str, player_id: str, time_ms: int, moves: int, finished_ms: int) -> None:
        entries = self.boards.setdefault(board, {})
        score = board_score(time_ms, moves, finished_ms)
        current = entries.get(player_id)
        if current is None or score < current[0]:
            entries[player_id] = (score, time_ms, moves, finished_ms)

    def ordered(self, board: str) -> list[tuple[str, Entry]]:
        """(player id, entry) best first."""
        return sorted(self.boards.get(board, {}).items(), key=lambda item: (item[1][0], item[0]))
