"""What the solver-backed assists cost the server: the moves of everybody
else while some players ask for hints, and (``--costs``) the searches
themselves at the server's default budgets.

(a) Contention: an arena server in a child process (the clients in this
    one, loopback only), 200 players each with a WordLink game sending
    "draw" about twice a second (``bench/server.py``'s paced players) and
    timing the reply.  Alternating blocks, so that load from elsewhere on
    the machine falls on both conditions alike: the players alone, then
    the players while 4 more clients ask for Broken Deck hints nonstop
    (Relaxed, casual deals) and play them, a new deal when a game ends.
    The hint rate is lifted so that those 4 keep the search workers busy
    for the whole block: the worst case for the event loop.  With
    ``--planless`` they play deals from whose start a hint's search finds
    no win (found before the server starts), so hints have no plan to go
    on with: each is a search, the first of a game with the game's full
    budget (about 1 CPU s of Broken Deck), the next capped at
    ``hint_planless_nodes``.  Printed:
    round-trip p50 and p99 in each condition, the ratio of the p99s
    (target: at most 1.2) and the hints answered.
    ``--server-root`` runs the server of another checkout (the version
    before a change, say) against the same clients.
(b) Finishing (``--costs``): for each verified Broken Deck deal, the
    certificate is replayed to its first position with every half
    repaired (where the server first searches for an offer), and then to
    every later position where a player could stray from the line (a
    search each).  Printed: the share of positions where a path was
    proven within ``finish_search_nodes`` and the median and
    95th-percentile seconds.
(c) Analysis (``--costs``): WordLink draw 3 deals from the verified pool,
    played by a random player for ``--moves`` moves (a line that usually
    loses the deal); each line is analysed as the server does
    (``analysis_nodes`` per position tried).  Printed: the verdicts (a
    loss "proven" when the position after the losing move was shown
    unwinnable, "unproven" when it was only not won within the budget)
    and the seconds per game.  (b) and (c) run on one core in this
    process, as a worker process does; their figures size the defaults.

    python bench/assists.py [--players 200] [--rate 2] [--hinters 4] [--seconds 24] [--rounds 3] [--planless]
                            [--server-root DIR] [--costs [--deals 100] [--games 30] [--moves 200]]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

if not __package__:
    # Run as a file, Python puts bench/ first on sys.path, where
    # bench/engine.py would shadow the engine package.
    sys.path.pop(0)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from bench.server import (  # noqa: E402
    ARENA_ENVIRONMENT,
    CLIENT_OPTIONS,
    _start,
    known_to,
    close_all,
    new_game,
    open_many,
    paced_round_trips,
    percentile,
    request,
    stop,
)
import engine  # noqa: E402
from engine.solver import analyse, auto_finish  # noqa: E402
from engine.solver.assist import has_plan, hint_for_view  # noqa: E402
from engine.solver.certify import seeded_game  # noqa: E402
from server.deals.pools import load_pool  # noqa: E402
from server.runtime.progress import ProgressLine  # noqa: E402
from server.runtime.settings import Settings  # noqa: E402

P99_RATIO_TARGET = 1.2
BROKEN_DECK_DEALS = 1000
"""Broken Deck's numbered deals run from 1 to this."""
PLANLESS_DEALS_EACH = 2
"""Plan-less deals per hinter, played in turn."""
UNLIMITED_HINTS = {"ARENA_HINT_RATE": "100000", "ARENA_HINT_BURST": "100000"}
"""The hinters ask nonstop: no hint is refused for the rate."""


# ---------------------------------------------------------------- (a)


def start_server(root: Path) -> tuple[subprocess.Popen[str], str]:
    """The arena server of the checkout at ``root`` in a child process, and
    the URL it prints when listening (``root`` first on its path, before
    this checkout's installed packages)."""
    run = "import sys; sys.path.insert(0, sys.argv.pop(1)); from server.cli import main; sys.exit(main())"
    environment = known_to(root, ARENA_ENVIRONMENT)
    # (A baseline checkout from before the server's folders keeps its settings
    # module at the top of the server package.)
    places = (root / "server" / "runtime" / "settings.py", root / "server" / "settings.py")
    settings = next(place for place in places if place.exists()).read_text(encoding="utf-8")
    if "hint_rate" in settings:
        # (A checkout from before the hint rate refuses the variables.)
        environment.update(UNLIMITED_HINTS)
    return _start([sys.executable, "-c", run, str(root), "serve", "--port", "0"], environment)


def planless_deals(count: int) -> list[int]:
    """The first ``count`` Broken Deck deals (Relaxed) from whose first
    position a hint's full search finds no win: every hint there is a
    search without a plan to follow, the costliest kind.  Searched here,
    before the server starts, as a worker would."""
    found: list[int] = []
    progress = ProgressLine(every=5.0)
    for deal in range(1, BROKEN_DECK_DEALS + 1):
        game = engine.new_game("broken-deck", deal, difficulty="relaxed")
        hint_for_view(game)
        if not has_plan(game):
            found.append(deal)
            progress(len(found), count, "plan-less deals found")
            if len(found) == count:
                break
    return found


class Hinter:
    """One client asking for Broken Deck hints nonstop and playing each,
    on ``deals`` in turn (by default every 250th deal from its own)."""

    def __init__(self, connection: ClientConnection, number: int, deals: list[int] | None = None) -> None:
        self.connection = connection
        self.number = number
        self.deals = deals or [(number * 250 + step) % BROKEN_DECK_DEALS + 1 for step in range(BROKEN_DECK_DEALS)]
        self.played = 0
        self.game_id = ""
        self.ids = 10
        self.seconds: list[float] = []
        """The round trip of each hint answered."""

    async def _request(self, message: dict[str, object]) -> dict[str, object]:
        self.ids += 1
        return await request(self.connection, {**message, "id": self.ids})

    async def start(self) -> None:
        await self._request({"type": "hello", "name": f"hinter-{self.number}"})
        await self.new_game()

    async def new_game(self) -> None:
        deal = self.deals[self.played % len(self.deals)]
        self.played += 1
        options = {"difficulty": "relaxed"}
        started = await self._request({"type": "new_game", "game": "broken-deck", "deal": deal, "options": options})
        assert started["type"] == "game_started", started
        self.game_id = str(started["game_id"])

    async def run(self, until: float) -> None:
        """Hint, play the hint, again, until ``until``; a new deal when a
        game ends or no hint is left."""
        while time.perf_counter() < until:
            sent = time.perf_counter()
            hint = await self._request({"type": "hint", "game_id": self.game_id})
            if hint["type"] == "hint":
                self.seconds.append(time.perf_counter() - sent)
            if hint["type"] != "hint" or not hint.get("move"):
                await self.new_game()
                continue
            played = await self._request({"type": "move", "game_id": self.game_id, "move": hint["move"]})
            if played["type"] != "diff" or played.get("status") != "playing":
                await self.new_game()


async def contention(args: argparse.Namespace, deals: list[int]) -> tuple[list[float], list[float], list[float]]:
    """Round trips alone and with the hinters (on ``deals`` if any), and the hints' round trips."""
    server, url = start_server(args.server_root)
    try:
        players = await open_many(url, args.players, "players")
        games = [await new_game(connection, number) for number, connection in enumerate(players)]
        game_of = dict(zip(map(id, players), games))

        async def move(connection: ClientConnection, sequence: int) -> None:
            message = {"type": "move", "id": sequence, "game_id": game_of[id(connection)], "move": "draw"}
            reply = await request(connection, message)
            assert reply["type"] == "diff", reply

        hinters = [
            Hinter(await connect(url, **CLIENT_OPTIONS), number, deals[number::args.hinters] if deals else None)
            for number in range(args.hinters)
        ]
        for hinter in hinters:
            await hinter.start()
        alone: list[float] = []
        loaded: list[float] = []
        block = args.seconds / args.rounds
        for number in range(args.rounds):
            round_label = f"round {number + 1}/{args.rounds}"
            alone += await paced_round_trips(players, move, block, args.rate, f"{round_label} alone")
            until = time.perf_counter() + block + 1.0
            asking = [asyncio.create_task(hinter.run(until)) for hinter in hinters]
            loaded += await paced_round_trips(players, move, block, args.rate, f"{round_label} with {args.hinters} hinters")
            await asyncio.gather(*asking)
        await close_all(players + [hinter.connection for hinter in hinters])
    finally:
        stop(server)
    return alone, loaded, [seconds for hinter in hinters for seconds in hinter.seconds]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.2f} ms"


def report_contention(args: argparse.Namespace, alone: list[float], loaded: list[float], hints: list[float]) -> None:
    a50, a99 = percentile(alone, 0.5), percentile(alone, 0.99)
    l50, l99 = percentile(loaded, 0.5), percentile(loaded, 0.99)
    print(f"round trip   alone              p50 {ms(a50)}  p99 {ms(a99)}   ({len(alone)} moves)")
    print(f"             with {args.hinters} hinters     p50 {ms(l50)}  p99 {ms(l99)}   ({len(loaded)} moves)")
    print(f"             ratio              p50 {l50 / a50:5.2f}x     p99 {l99 / a99:5.2f}x     target p99 <= {P99_RATIO_TARGET}x")
    block = args.seconds
    print(f"hints        {len(hints)} answered in {block:g} s ({len(hints) / block:.1f}/s), "
          f"round trip p50 {ms(statistics.median(hints))}" if hints else "hints        none answered")


# ---------------------------------------------------------------- (b) and (c)


def finishing(deals: int, budget: int) -> tuple[int, int, list[float]]:
    """Positions searched, paths proven, seconds per search."""
    pool = load_pool("broken-deck")
    searched = proven = 0
    seconds: list[float] = []
    progress = ProgressLine(every=5.0)
    for number, deal in enumerate(pool.deals()[:deals], start=1):
        certificate = pool.certificates[deal]
        game = seeded_game("broken-deck", deal, certificate.seed, {})
        for move in certificate.moves:
            if game.all_repaired() and game.status == "playing":
                started = time.perf_counter()
                found = auto_finish(game, budget)
                seconds.append(time.perf_counter() - started)
                searched += 1
                proven += found is not None
            game.play(move)
        progress(number, deals, f"deals replayed, {searched} positions searched")
    return searched, proven, seconds


def analyses(games: int, moves: int, budget: int) -> tuple[Counter[str], list[float]]:
    """Verdicts and seconds per analysed game."""
    pool = load_pool("klondike-draw3")
    chooser = random.Random(7)
    verdicts: Counter[str] = Counter()
    seconds: list[float] = []
    progress = ProgressLine(every=5.0)
    for number, deal in enumerate(pool.deals()[:games], start=1):
        game = seeded_game("klondike", deal, pool.certificates[deal].seed, {"draw": 3})
        start = game.position
        line: list[str] = []
        while len(line) < moves and (legal := game.legal_moves()):
            line.append(str(game.play(chooser.choice(legal))))
        started = time.perf_counter()
        analysis = analyse("klondike", deal, {"draw": 3}, line, budget, start=start)
        proof = "" if analysis.verdict in ("won", "still_winnable") else " (proven)" if analysis.certain else " (unproven)"
        verdicts[analysis.verdict + proof] += 1
        seconds.append(time.perf_counter() - started)
        progress(number, games, "games analysed")
    return verdicts, seconds


def main() -> int:
    defaults = Settings()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--rate", type=float, default=2.0, help="moves per second per player")
    parser.add_argument("--hinters", type=int, default=4, help="clients asking for hints nonstop")
    parser.add_argument("--seconds", type=float, default=24.0, help="measured seconds per condition")
    parser.add_argument("--rounds", type=int, default=3, help="blocks per condition, alternating")
    parser.add_argument("--server-root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="checkout whose server to measure (default: this one)")
    parser.add_argument("--costs", action="store_true", help="also (b) and (c), the searches' own costs")
    parser.add_argument("--planless", action="store_true",
                        help="hinters play deals whose hint searches find no win (every hint a full search)")
    parser.add_argument("--deals", type=int, default=100, help="Broken Deck deals for (b)")
    parser.add_argument("--games", type=int, default=30, help="WordLink games for (c)")
    parser.add_argument("--moves", type=int, default=200, help="random moves per analysed game")
    args = parser.parse_args()

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start; server from {args.server_root}")
    print(f"(a) contention: {args.players} players at ~{args.rate:g} moves/s, {args.rounds} rounds of"
          f" {args.seconds / args.rounds:.1f} s per condition (each after 1 s warm-up)")
    deals = planless_deals(args.hinters * PLANLESS_DEALS_EACH) if args.planless else []
    if args.planless:
        print(f"plan-less mode: the hinters play Broken Deck deals {', '.join(map(str, deals))} (no win found from the deal)")
    alone, loaded, hints = asyncio.run(contention(args, deals))
    if args.costs:
        print(f"(b) finishing, {defaults.finish_search_nodes:,} nodes per search")
        searched, proven, times = finishing(args.deals, defaults.finish_search_nodes)
        print(f"(c) analysis, {defaults.analysis_nodes:,} nodes per position tried")
        verdicts, analysis_times = analyses(args.games, args.moves, defaults.analysis_nodes)

    print()
    report_contention(args, alone, loaded, hints)
    if args.costs:
        print(f"finishing    {searched} positions: path proven at {proven / searched:.1%}; "
              f"median {statistics.median(times) * 1000:.1f} ms, p95 {percentile(times, 0.95) * 1000:.1f} ms, "
              f"max {max(times) * 1000:.1f} ms")
        shares = ", ".join(f"{verdict} {count}" for verdict, count in verdicts.most_common())
        print(f"analysis     {args.games} games of {args.moves} random moves: {shares}; "
              f"median {statistics.median(analysis_times):.2f} s, p95 {percentile(analysis_times, 0.95):.2f} s, "
              f"max {max(analysis_times):.2f} s")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
