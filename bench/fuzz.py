"""Fuzzed frames against a real server, counted by reply and close code.

The fuzzer of ``tests/server/arena_fuzz.py`` (the suite's fuzz test sends
20,000 frames; this sends 200,000 by default), against a server in this
process with the in-memory store, so every traceback the server logs is
counted too.  Target: 0 ``internal_error``, 0 tracebacks,
only documented close codes, the victim game unchanged.

    python bench/fuzz.py [--frames 200000] [--seed 13]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if not __package__:
    # Run as a file, Python puts bench/ first on sys.path, where a bench
    # module would shadow the ``server`` package.
    sys.path.pop(0)
    sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "server")]

from arena_fuzz import DOCUMENTED_CLOSE_CODES, Known, fuzz  # noqa: E402
from arena_servers import make_settings  # noqa: E402
from arena_wire import WireClient  # noqa: E402

from protocol import to_server as ts  # noqa: E402
from server.transport.app import ArenaServer  # noqa: E402
from server.storage.memory import MemoryStore  # noqa: E402


class Tracebacks(logging.Handler):
    """Counts records at ERROR or with a traceback."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or record.exc_info:
            self.count += 1


async def bench(frames: int, seed: int) -> bool:
    tracebacks = Tracebacks()
    logging.getLogger().addHandler(tracebacks)
    settings = make_settings(connections_per_address=10_000, abuse_cooldown_seconds=0, finish_search_nodes=200, analysis_nodes=200)
    async with ArenaServer(settings, store=MemoryStore()) as server:
        victim = await WireClient.open(server.url)
        await victim.hello()
        started, snapshot = await victim.new_game(deal=3)
        await victim.request(ts.Move, game_id=started.game_id, move=snapshot.legal[0])
        before = await victim.request(ts.Resync, game_id=started.game_id)
        begun = time.perf_counter()
        tally = await fuzz(server.url, frames, seed, Known(started.game_id, victim.player_id or ""))
        seconds = time.perf_counter() - begun
        after = await victim.request(ts.Resync, game_id=started.game_id)
        await victim.close()
    unchanged = (after.seq, after.view, after.counters) == (before.seq, before.view, before.counters)
    print(f"{tally.frames} frames in {seconds:.1f} s ({tally.frames / seconds:.0f}/s), seed {seed}")
    print("replies by type and error code:")
    for kind, count in tally.replies.most_common():
        print(f"  {kind:32} {count:8}")
    print("closes by code:", ", ".join(f"{code}: {count}" for code, count in sorted(tally.closes.items())) or "none")
    print(f"internal_error: {tally.internal_errors}, tracebacks logged: {tracebacks.count}, "
          f"undocumented closes: {tally.undocumented_closes or 'none'} (documented: {sorted(DOCUMENTED_CLOSE_CODES)}), "
          f"victim game unchanged: {unchanged}")
    return tally.internal_errors == 0 and tracebacks.count == 0 and not tally.undocumented_closes and unchanged


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    return 0 if asyncio.run(bench(args.frames, args.seed)) else 1


if __name__ == "__main__":
    sys.exit(main())
