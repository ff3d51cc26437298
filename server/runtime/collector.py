"""The garbage collector set for a long-running server (``arena serve``).

A collection walks every object the collector tracks in the generations
it collects, so its pause grows with what they hold.  Three things keep
the pauses short here:

- Start-up (some hundred thousand objects: modules, functions, classes,
  the validation models, the deal pools) lives as long as the process
  and holds no garbage, so once the server listens it is collected once
  and frozen (``gc.freeze``): no later collection walks it again.  Each
  worker process is spawned with a fresh interpreter and is not concerned.
- What the server keeps per game is kept as untracked data (the memory
  store's logs and headers, ``server.storage.memory_sessions``), so what
  a collection walks grows with connections and open rooms, not with the
  games and log entries held.
- Only young collections run on their own (``SERVER_THRESHOLDS``), and a
  full one only once the heap has doubled since the last (``HeapWatch``).

Young collections come on the interpreter's own count, 700.  That count
is objects made minus objects freed, of any generation: with many
players, each action frees what the player's previous action left alive
(by then older) and makes its replacement, so the count climbs slowly
while the young generation fills with every player's newest objects,
each made tens of milliseconds before the collection that walks it and
no longer in the processor's caches.  At five thousand players a young
collection met about five times its count.  Its pause grows with the
threshold, but the work over a second does not (every object that
outlives its action is walked once, by whichever collection meets it):
at 2,000, young pauses at five thousand players were 6 to 8 ms of CPU,
at 700 about 2 ms, for the same CPU per action.

The older generations are another matter.  With many players, what each
player's last move left alive until the next (the pending read, the view
and legal moves kept for the next diff: about 21 objects a player) is
alive at any moment, so every middle collection walked it, all of it:
90 to 110 ms at five thousand players, 26 to 41 ms at a thousand.  And
every connection's long-lived objects (about 150 a connection) reach the
old generation, which a full collection walks whole: 600 ms at five
thousand connections.  Yet neither ever finds anything: the server's
work makes no garbage in reference cycles (the benches count what each
collection found: none, in any generation, at five thousand players),
and a closed connection and its ended games are freed by their reference
counts (tests hold it).  So the middle and full collections never start
on their own.  What the young collections miss (a cycle still reachable
when one ran, or an unforeseen one: an error's traceback, a connection
on asyncio's own loop, whose transport holds itself in a cycle) waits
for a full collection, which ``HeapWatch`` starts when the heap has
doubled since the last, as Go's collector does by default, but measured
per connection and open room: garbage that reference counting cannot
free costs at most as much memory again as the server holds for what it
serves, and a heap that grows because players arrive, which a full
collection would walk whole (600 ms at five thousand players) to find
nothing, starts none.

docs/architecture.md, "Garbage collection", has the figures.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
from collections.abc import Callable

from server.runtime.settings import Settings

log = logging.getLogger("arena.collector")

NEVER = 1 << 30
"""A threshold no count reaches: about a billion young collections."""

SERVER_THRESHOLDS = (700, NEVER, NEVER)
"""``gc.set_threshold``: young collections on the interpreter's count
(a higher one lengthens each pause and saves no work), and no middle or
full collection on the interpreter's counts (see the module docstring)."""

HEAP_GROWTH = 2.0
"""A full collection when the heap per unit of load reaches this many
times its size after the last one (or its smallest since, if it shrank)."""

LEAST_LOAD = 100
"""The load a smaller one counts as: below it the heap is mostly what
start-up made, its size per connection would swing with each one that
comes or goes, and a full collection is short anyway."""

HEAP_CHECK_SECONDS = 2.0
"""How often ``watch_heap`` reads the heap's size: the read counts the
interpreter's memory pools, about 1 ms at 600 MB."""


class HeapWatch:
    """Decides when a full collection is due, from the interpreter's count
    of allocated memory blocks: a read that costs no walk of the objects,
    and counts untracked data too, so what reference counting frees lowers
    it and garbage that only a collection frees does not.  The count is
    divided by the server's highest load since the last full collection
    (its connections and open rooms, at least ``LEAST_LOAD``): players
    arriving grow the heap and the load together, garbage grows the heap
    alone.  And players leaving lower the load at once, while what their
    games left in the store stays: divided by the load of the moment, the
    heap of a server that half its players had just left looked doubled,
    and a full collection walked the other half's connections to find
    nothing.  Divided by the peak, the heap they leave is the new floor,
    and garbage that doubles it starts one."""

    def __init__(
        self,
        growth: float = HEAP_GROWTH,
        blocks: Callable[[], int] = sys.getallocatedblocks,
        collect: Callable[[], int] = gc.collect,
        load: Callable[[], int] = lambda: 0,
    ) -> None:
        self._growth = growth
        self._blocks = blocks
        self._collect = collect
        self._load = load
        self._peak = 0
        """The highest load since the last full collection."""
        self.floor = self._size()
        """Blocks per unit of the peak load after the last full collection, or the fewest since."""

    def _size(self) -> float:
        self._peak = max(self._peak, self._load())
        return self._blocks() / max(self._peak, LEAST_LOAD)

    def check(self) -> bool:
        """Collect everything if the heap per unit of load has grown by
        ``growth`` over ``floor``; whether it did."""
        now = self._size()
        if now < self.floor * self._growth:
            self.floor = min(self.floor, now)
            return False
        found = self._collect()
        self._peak = 0
        self.floor = self._size()
        log.debug(
            "garbage collector: the heap grew from %.0f to %.0f blocks per unit of load; a full collection found %d",
            now, self.floor, found,
        )
        return True


async def watch_heap(watch: HeapWatch, interval: float = HEAP_CHECK_SECONDS) -> None:
    """Check ``watch`` every ``interval`` seconds, until cancelled."""
    while True:
        await asyncio.sleep(interval)
        watch.check()


def tune_collector(settings: Settings, load: Callable[[], int] = lambda: 0) -> asyncio.Task[None] | None:
    """Freeze what start-up made, set ``SERVER_THRESHOLDS`` and start the
    heap's watch over ``load`` (the server's connections and open rooms;
    the task the caller cancels when the server stops), unless the
    settings ask for the interpreter's defaults (``gc_tuning`` off)."""
    if not settings.gc_tuning:
        return None
    gc.collect()
    gc.freeze()
    gc.set_threshold(*SERVER_THRESHOLDS)
    log.debug("garbage collector: %d start-up objects frozen, thresholds %s", gc.get_freeze_count(), SERVER_THRESHOLDS)
    return asyncio.get_running_loop().create_task(watch_heap(HeapWatch(load=load)), name="heap watch")
