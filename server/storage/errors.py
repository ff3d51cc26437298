"""What a store raises: the failures every back end shares, so the server
answers them the same whatever the back end (``Store`` in ``base``)."""

from __future__ import annotations


class StorageError(Exception):
    """Base of storage failures."""


class StorageUnavailable(StorageError):
    """The back end cannot be reached; nothing was written."""


class StorageRefused(StorageUnavailable):
    """The back end answered with an error instead of doing it (Redis out
    of memory, a read-only replica, a failing disk ...): nothing was
    written.  ``reason`` is the error's first word (``OOM``, ``READONLY``,
    ``MISCONF`` ...)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class AppendRefused(StorageUnavailable):
    """Redis ran the append only after its deadline and refused it: the
    action is not in the log, and never will be (see ``Store.append``)."""


class LogConflict(StorageError):
    """Another writer appended first; reload the log and retry or refuse.

    ``actual_length`` is the log's length in the store.
    """

    def __init__(self, game_id: str, expected: int, actual: int) -> None:
        super().__init__(f"log of {game_id} has {actual} entries, writer expected {expected}")
        self.game_id = game_id
        self.expected = expected
        self.actual_length = actual
