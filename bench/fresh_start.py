"""How soon a freshly started server answers the dailies, in one run
beside a baseline checkout's server (``--baseline-root``, say the
version before a change), started alternately so that load from
elsewhere falls on both alike.

Each start is ``arena serve`` in a child process on its own memory store
and its own new data directory (so its own secret, and nothing proven
yet).  The moment it is launched,
the clock starts; as soon as it listens, at once and all concurrently:

- a lobby connection sends ``daily``, ``leaderboard``, ``list_games`` and
  ``catalogue`` in one go, as the browser's lobby does: printed are the
  seconds to the ``daily`` answer and to the last of the four (a
  connection's frames are answered in order, so a slow ``daily`` holds
  up the rest);
- one connection per daily variant says ``hello`` and starts that
  variant's daily game: the seconds to its ``game_started``;
- a watcher asks ``daily`` again whenever it lists a deal as pending (at
  the ``ready_in_ms`` the server gave; every 0.2 s from a server that
  gives none) until none is: the seconds until every deal of today is
  fixed.

Printed: the median and the worst of ``--starts`` fresh starts per figure,
per server.

    python bench/fresh_start.py [--starts 5] [--baseline-root DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

if not __package__:
    # Run as a file, Python puts bench/ first on sys.path, where
    # bench/engine.py would shadow the engine package.
    sys.path.pop(0)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import msgpack  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from bench.server import ARENA_ENVIRONMENT, CLIENT_OPTIONS, known_to, request, stop  # noqa: E402
from server.deals.daily import daily_variants  # noqa: E402

HERE = Path(__file__).resolve().parent.parent
WAIT_SECONDS = 300.0
"""Bounds a hang of one start; a figure past it is printed as failed."""


def launch(root: Path, data: Path) -> tuple[subprocess.Popen[str], float]:
    """``arena serve`` of the checkout at ``root`` and when it was launched,
    with ``data`` as its ``XDG_DATA_HOME``: a server that keeps its secret
    and its published dailies in a data directory starts fresh only with
    a new one."""
    run = "import sys; sys.path.insert(0, sys.argv.pop(1)); from server.cli import main; sys.exit(main())"
    launched = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-c", run, str(root), "serve", "--port", "0"], stdout=subprocess.PIPE, text=True,
        env={**os.environ, **known_to(root, ARENA_ENVIRONMENT), "PYTHONPATH": str(root), "XDG_DATA_HOME": str(data)},
    )
    return process, launched


async def lobby(url: str, launched: float) -> dict[str, float]:
    """The browser lobby's four requests in one go: seconds to each answer."""
    async with connect(url, **CLIENT_OPTIONS) as connection:
        asked = {
            1: {"type": "daily"},
            2: {"type": "leaderboard", "game": "klondike", "options": {"draw": 1}},
            3: {"type": "list_games"},
            4: {"type": "catalogue"},
        }
        for number, message in asked.items():
            await connection.send(msgpack.packb({**message, "id": number}))
        answered: dict[str, float] = {}
        while len(answered) < len(asked):
            reply = msgpack.unpackb(await connection.recv())
            if reply.get("id") in asked:
                answered[str(asked[reply["id"]]["type"])] = time.perf_counter() - launched
        return {"first daily answer": answered["daily"], "lobby's 4 answers": max(answered.values())}


async def daily_game(url: str, launched: float, game: str, options: dict[str, Any]) -> float:
    async with connect(url, **CLIENT_OPTIONS) as connection:
        await request(connection, {"type": "hello", "id": 1, "name": f"first-{game}"})
        started = await request(connection, {"type": "new_game", "id": 2, "game": game, "deal": "daily", "options": options})
        assert started["type"] == "game_started", started
        return time.perf_counter() - launched


async def all_ready(url: str, launched: float) -> float:
    async with connect(url, **CLIENT_OPTIONS) as connection:
        number = 0
        while True:
            number += 1
            info = await request(connection, {"type": "daily", "id": number})
            pending = info.get("pending") or []
            if not pending and len(info["deals"]) == len(daily_variants()):
                return time.perf_counter() - launched
            waits = [item["ready_in_ms"] / 1000 for item in pending]
            await asyncio.sleep(min(waits) if waits else 0.2)


def variant_name(game: str, options: dict[str, Any]) -> str:
    return f"first daily game {game} {','.join(f'{k}={v}' for k, v in options.items())}".rstrip()


async def one_start(root: Path) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="fresh-start-") as data:
        return await _measured(root, Path(data))


async def _measured(root: Path, data: Path) -> dict[str, float]:
    process, launched = launch(root, data)
    try:
        assert process.stdout is not None
        line = await asyncio.to_thread(process.stdout.readline)
        if "ws://" not in line:
            raise RuntimeError(f"server did not start: {line!r}")
        url = line.split()[-1]
        figures = {"listening": time.perf_counter() - launched}
        variants = daily_variants()
        async with asyncio.timeout(WAIT_SECONDS):
            found = await asyncio.gather(
                lobby(url, launched), all_ready(url, launched),
                *(daily_game(url, launched, game, options) for game, options in variants),
            )
        figures.update(found[0])
        figures["every daily of today fixed"] = found[1]
        for (game, options), seconds in zip(variants, found[2:]):
            figures[variant_name(game, options)] = seconds
        return figures
    finally:
        stop(process)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=5, help="fresh starts per server")
    parser.add_argument("--baseline-root", type=Path, help="another checkout whose server to measure alike")
    args = parser.parse_args()
    roots = {"this": HERE}
    if args.baseline_root is not None:
        roots["baseline"] = args.baseline_root.resolve()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start")
    figures: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in roots}
    for start in range(args.starts):
        for name, root in roots.items():
            found = asyncio.run(one_start(root))
            for what, seconds in found.items():
                figures[name][what].append(seconds)
            print(f"start {start + 1}/{args.starts} {name}: every daily fixed after {found['every daily of today fixed']:.1f} s",
                  file=sys.stderr, flush=True)
    names = list(roots)
    print(f"seconds from launching `arena serve`, median (worst) of {args.starts} fresh starts")
    print(f"{'':50}" + "".join(f"{name + ' (' + str(roots[name].name) + ')':>20}" for name in names))
    for what in figures[names[0]]:
        cells = "".join(
            f"{statistics.median(figures[name][what]):>11.2f} ({max(figures[name][what]):5.2f})" for name in names
        )
        print(f"{what:50}{cells}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
