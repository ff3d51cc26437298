"""Watchers on another process after ``kill -9``: how long until they
reach the stored log, and how many never do, beside a baseline checkout.

Each trial (``tests/integration/convergence_trials.py``): ``--games``
players on process A, a spectator of each game on process B, ``--in-flight``
moves sent on every game without waiting, A killed once the last game has
ten acknowledged; then, per game, the time from the kill to B's spectator
reaching the stored log (waited for up to ``--wait`` seconds: longer
counts as behind), whether the player's ``hello`` on B gets the stored
state, and whether its next move is accepted.  A is started again for
the next trial; B and Redis (no persistence) stay.

With ``--baseline-root`` the same trials run first against the server of
another checkout (``/work/main`` before the change: entries published
after the reply, no audit), in the same run, on the same machine.

    python bench/convergence.py [--trials 20] [--games 4] [--wait 3] [--baseline-root /work/main]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from tests.integration import arena_processes  # noqa: E402
from tests.integration.convergence_trials import MANY_CLIENTS, Convergence, kill_trial  # noqa: E402
from tests.redis_server import RedisServer  # noqa: E402
from tests.server.arena_wire import WireClient  # noqa: E402

IN_FLIGHT = 200


async def measure(root: Path, trials: int, games: int, in_flight: int, wait: float) -> Convergence:
    """The trials against the server of checkout ``root``."""
    arena_processes.ROOT = root
    seen = Convergence()
    opened: list[WireClient] = []

    async def open_client(url: str) -> WireClient:
        client = await WireClient.open(url)
        opened.append(client)
        return client

    with RedisServer() as redis, tempfile.TemporaryDirectory() as directory:
        b = arena_processes.ServerProcess(redis.url, Path(directory), "b", MANY_CLIENTS)
        a = arena_processes.ServerProcess(redis.url, Path(directory), "a", MANY_CLIENTS)
        await b.start()
        try:
            for _ in range(trials):
                await a.start()
                await kill_trial(a, b, redis.url, open_client, games, in_flight, wait, seen)
                for client in opened:
                    await client.close()
                opened.clear()
        finally:
            a.kill()
            b.kill()
    return seen


def row(name: str, seen: Convergence) -> str:
    waited = sorted(seen.waited)
    median = f"{statistics.median(waited):.3f}" if waited else "-"
    worst = f"{waited[-1]:.3f}" if waited else "-"
    return (
        f"| {name} | {seen.games} | {len(seen.behind)} | {median} | {worst} | {seen.stale_hellos} | "
        f"{seen.refused_moves} |"
    )


async def main(options: argparse.Namespace) -> None:
    rows = []
    if options.baseline_root is not None:
        baseline = await measure(options.baseline_root, options.trials, options.games, options.in_flight, options.wait)
        rows.append(row(f"baseline ({options.baseline_root})", baseline))
    current = await measure(ROOT, options.trials, options.games, options.in_flight, options.wait)
    rows.append(row(f"this checkout ({ROOT})", current))
    print(f"{options.trials} kill -9 trials, {options.games} games each, behind = not at the stored log "
          f"{options.wait} s after the kill")
    print("| server | games | behind | median s to converge | worst s | stale hello | move refused |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--in-flight", type=int, default=IN_FLIGHT)
    parser.add_argument("--wait", type=float, default=3.0)
    parser.add_argument("--baseline-root", type=Path)
    asyncio.run(main(parser.parse_args()))
