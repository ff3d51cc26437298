"""The garbage collector set for a long-running server (``arena serve``).

A full collection walks every object the collector tracks, so its pause
grows with the heap.  Two things keep it short here:

- Start-up (some hundred thousand objects: modules, functions, classes,
  the validation models, the deal pools) lives as long as the process
  and holds no garbage, so once the server listens it is collected once
  and frozen (``gc.freeze``): no later collection walks it again.  Each
  worker process is spawned with a fresh interpreter and is not concerned.
- What the server keeps per game is kept as untracked data (the memory
  store's logs and headers, ``server.storage.memory_sessions``), so the
  heap a full collection walks grows with connections and open rooms,
  not with the games and log entries held.

``SERVER_THRESHOLDS`` makes the young collections rarer than the
interpreter's 700 allocations: one action allocates a few hundred
tracked objects (a decoded message, its model, the diff, the frames),
nearly all gone by the time the action ends, so a young collection every
action or two would mostly find them still in flight and promote them.
It also makes the middle collections rarer than the interpreter's every
10 young ones.  With many players, what a player's last move left alive
until the next (the pending read, the view and legal moves kept for the
next diff) is alive at any moment: each middle collection walks it and
promotes it to the old generation, where it soon dies, freed by its
reference count.

Full collections walk every connection's long-lived objects (about 150
a connection: 150 ms at a thousand connections, 600 ms at five
thousand), and the interpreter starts one after every 10 middle ones
once a quarter of the old generation is new, which those promotions
always make true.  Yet they find nothing: the server's work makes no
garbage in reference cycles (the benches count what each collection
found: none at five thousand players), and a closed connection and its
ended games are freed by their reference counts (tests hold it).  So a
full collection comes after 1,000 middle ones: about an hour at five
thousand moves a second, several at a thousand, and what a rare cycle
(an error's traceback) holds waits that long to be freed.

docs/architecture.md, "Garbage collection", has the figures.
"""

from __future__ import annotations

import gc
import logging

from server.runtime.settings import Settings

log = logging.getLogger("arena.collector")

SERVER_THRESHOLDS = (2_000, 50, 1_000)
"""``gc.set_threshold``: young collections after 2,000 net allocations of
tracked objects (the interpreter's 700 came to one or two actions; 5,000
made young pauses of up to 6 ms on a loaded machine), middle ones after 50
young ones (at a thousand players making a move a second, one every few
seconds instead of every second), full ones after 1,000 middle ones
instead of 10 (see the module docstring)."""


def tune_collector(settings: Settings) -> None:
    """Freeze what start-up made and set ``SERVER_THRESHOLDS``, unless the
    settings ask for the interpreter's defaults (``gc_tuning`` off)."""
    if not settings.gc_tuning:
        return
    gc.collect()
    gc.freeze()
    gc.set_threshold(*SERVER_THRESHOLDS)
    log.debug("garbage collector: %d start-up objects frozen, thresholds %s", gc.get_freeze_count(), SERVER_THRESHOLDS)
