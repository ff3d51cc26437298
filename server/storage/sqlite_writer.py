"""The SQLite store's one thread: every call runs there, off the event loop,
in a transaction, with group commit.

``sqlite3`` blocks, and a commit waits for the disk (``synchronous=FULL``:
an fsync of the write-ahead log), so no call may run on the event loop.
One thread owns the connection; each call is a job queued to it with the
store's clock read when it was made.  The thread takes every job waiting
(up to ``BATCH_LIMIT``), runs each under a savepoint of one transaction,
commits once, and only then answers them: so a hundred players' actions
cost one fsync, and no caller hears of a write before it is on disk (an
acknowledged action survives ``kill -9`` and a power cut).  A job that
raises has its savepoint rolled back and gets its own exception; the
others keep their writes.  The transaction is a deferred ``BEGIN``: no
other process writes the file (``sqlite_lock``), and reads still run on a
file that takes no writes.

SQLite's refusals (a read-only file, a full disk, an I/O error) become
``StorageRefused``, with SQLite's code as the reason (``READONLY``,
``FULL``, ``IOERR`` ...).  Some of them roll the whole transaction back by
themselves: then every job of the batch that had succeeded is refused too,
since its write is gone.  Nothing is ever half-written: a job's writes
commit together or not at all.
"""

from __future__ import annotations

import asyncio
import queue
import sqlite3
import threading
from dataclasses import dataclass
from typing import Any, Callable

from .errors import StorageRefused, StorageUnavailable

BATCH_LIMIT = 256
"""Jobs committed together at most."""

Job = Callable[[sqlite3.Connection, float], Any]
"""What runs on the thread: given the connection and the store's clock
at the call, its result is the caller's answer."""
Then = Callable[[Any], None]


@dataclass
class _Call:
    job: Job
    now: float
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]
    then: Then | None
    outcome: Any = None
    failed: bool = False


def refusal(error: sqlite3.Error) -> StorageRefused:
    """SQLite's error as ``StorageRefused``, its primary code the reason."""
    name = getattr(error, "sqlite_errorname", "SQLITE_ERROR")
    reason = name.removeprefix("SQLITE_").split("_")[0]
    return StorageRefused(reason, f"SQLite refused ({reason}): {error}")


class Writer:
    """The thread running every job on ``db``, started at once."""

    def __init__(self, db: sqlite3.Connection, clock: Callable[[], float], name: str) -> None:
        self._db = db
        self._clock = clock
        self._queue: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._closed = False
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    async def run(self, job: Job, then: Then | None = None) -> Any:
        """``job``'s result once its transaction is committed; ``then`` is
        called with it on the event loop first, even if the caller was
        cancelled in the meantime (what an append must publish)."""
        if self._closed:
            raise StorageUnavailable("the SQLite store is closed")
        loop = asyncio.get_running_loop()
        call = _Call(job, self._clock(), loop, loop.create_future(), then)
        self._queue.put(call)
        return await call.future

    async def close(self) -> None:
        """Run the jobs already queued, then close the connection."""
        if self._closed:
            return
        self._closed = True
        self._queue.put(None)
        await asyncio.to_thread(self._thread.join)

    # ------------------------------------------------------------ the thread

    def _serve(self) -> None:
        try:
            stopping = False
            while not stopping:
                first = self._queue.get()
                if first is None:
                    break
                batch = [first]
                while len(batch) < BATCH_LIMIT:
                    try:
                        call = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if call is None:
                        stopping = True
                        break
                    batch.append(call)
                try:
                    self._commit(batch)
                except Exception as error:  # the thread must outlive it, or every later call would wait for ever
                    self._rollback()
                    lost = refusal(error) if isinstance(error, sqlite3.Error) else StorageUnavailable(repr(error))
                    for call in batch:
                        _fail(call, lost)
                _answer(batch)
        finally:
            self._db.close()

    def _commit(self, batch: list[_Call]) -> None:
        db = self._db
        if not self._begin(batch):
            return
        done: list[_Call] = []
        for position, call in enumerate(batch):
            db.execute("SAVEPOINT job")
            try:
                call.outcome = call.job(db, call.now)
            except Exception as error:
                problem = refusal(error) if isinstance(error, sqlite3.Error) else error
                _fail(call, problem)
                if self._undo_job():
                    continue
                lost = problem if isinstance(error, sqlite3.Error) else StorageUnavailable(
                    f"SQLite lost the transaction after {error!r}"
                )
                _fail_all(done, lost)
                done = []
                if not self._begin(batch[position + 1 :]):
                    return
            else:
                db.execute("RELEASE job")
                done.append(call)
        try:
            db.execute("COMMIT")
        except sqlite3.Error as error:
            self._rollback()
            _fail_all(done, refusal(error))

    def _begin(self, calls: list[_Call]) -> bool:
        """Open the batch's transaction; False, with ``calls`` refused, if SQLite will not."""
        try:
            self._db.execute("BEGIN")
            return True
        except sqlite3.Error as error:
            _fail_all(calls, refusal(error))
            return False

    def _undo_job(self) -> bool:
        """Roll the failed job back to its savepoint; False when the whole
        transaction is gone (SQLite rolled it back, or cannot undo)."""
        if not self._db.in_transaction:
            return False
        try:
            self._db.execute("ROLLBACK TO job")
            self._db.execute("RELEASE job")
            return True
        except sqlite3.Error:
            self._rollback()
            return False

    def _rollback(self) -> None:
        if self._db.in_transaction:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error:
                pass


def _fail(call: _Call, error: BaseException) -> None:
    call.outcome, call.failed = error, True


def _fail_all(calls: list[_Call], error: BaseException) -> None:
    for call in calls:
        if not call.failed:
            _fail(call, error)


def _answer(batch: list[_Call]) -> None:
    """Hand each outcome to its event loop, in the batch's order."""
    loops: dict[asyncio.AbstractEventLoop, list[_Call]] = {}
    for call in batch:
        loops.setdefault(call.loop, []).append(call)
    for loop, calls in loops.items():
        try:
            loop.call_soon_threadsafe(_resolve, calls)
        except RuntimeError:
            pass  # the loop closed: nobody is waiting any more


def _resolve(calls: list[_Call]) -> None:
    for call in calls:
        if not call.failed and call.then is not None:
            call.then(call.outcome)
        if call.future.done():
            continue
        if call.failed:
            call.future.set_exception(call.outcome)
        else:
            call.future.set_result(call.outcome)
