"""One server process per SQLite database.

The SQLite store's pub/sub reaches only its own process, and its writes
are ordered by its one writer thread, so a second process on the same
file would serve games the first never hears of.  A second process is
therefore refused at open, with the holder's pid and host.

The lock is ``flock`` on a file beside the database (``NAME.lock``),
rather than SQLite's ``locking_mode=EXCLUSIVE``: the kernel drops it when
its process dies, even by ``kill -9``, so a crash never leaves a stale
lock; it can say who holds it (the file holds the holder's pid, host and
start), where SQLite would only answer "database is locked"; and it leaves
the database itself open to readers of other processes (a backup, the
``sqlite3`` shell).  Like SQLite's WAL mode it needs a local file system:
``flock`` over NFS does not lock across hosts.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from pathlib import Path

from .errors import StorageUnavailable


class StoreLocked(StorageUnavailable):
    """Another live process holds the database."""


class DatabaseLock:
    """The lock of the database at ``path``, held from construction until
    ``release``; ``StoreLocked`` when another process holds it."""

    def __init__(self, path: Path) -> None:
        self.path = path.with_name(path.name + ".lock")
        self._fd: int | None = None
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as error:
            raise StorageUnavailable(f"cannot create the lock file {self.path}: {error}") from error
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise StoreLocked(
                f"the database {path} is in use by another arena process ({holder}); one SQLite database "
                "serves one process: to run several processes, share a Redis (--store redis://HOST:PORT/0)"
            ) from None
        holder_text = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "since": int(time.time())})
        os.ftruncate(fd, 0)
        os.pwrite(fd, holder_text.encode(), 0)
        self._fd = fd

    def release(self) -> None:
        """Give the database up (closing the file drops the lock)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _holder(fd: int) -> str:
    """Who holds the lock, as the lock file says."""
    try:
        holder = json.loads(os.pread(fd, 4096, 0) or b"{}")
        since = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(holder["since"]))
        return f"pid {holder['pid']} on host {holder['host']}, since {since}"
    except (OSError, ValueError, KeyError, TypeError):
        return "a process that has not written its pid yet"
