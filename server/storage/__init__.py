"""Storage back ends behind one interface (``base.Store``)."""

from .base import (
    Action,
    GameResult,
    LeaderEntry,
    LogConflict,
    PlayerRecord,
    Record,
    SessionHeader,
    StorageError,
    StorageUnavailable,
    Store,
    Subscription,
    board_score,
)
from .memory import MemoryStore

__all__ = [
    "Action",
    "GameResult",
    "LeaderEntry",
    "LogConflict",
    "MemoryStore",
    "PlayerRecord",
    "Record",
    "SessionHeader",
    "StorageError",
    "StorageUnavailable",
    "Store",
    "Subscription",
    "board_score",
]
