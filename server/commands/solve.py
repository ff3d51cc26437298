"""``arena solve`` and ``arena deals verify``: the solver from the command line.

``arena solve GAME --deal N`` prints the result (won / unwinnable /
unknown), the nodes searched, the time and the winning line in notation.
``arena deals verify GAME`` builds (or extends) a pool of verified deals:
it resumes at the ``next`` deal recorded in the file, shows a progress bar
on standard error, and saves every few deals and when interrupted (Ctrl-C
or ``kill PID``), so a long build can be stopped and started again at will
(run it under ``nice``: it is hours of CPU).
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path
from typing import Any

import engine
from engine.solver import DEFAULT_BUDGET, solve
from engine.solver.certify import BUILD_BUDGET, candidate_seeds, certify
from engine.solver.pools import (
    TARGETS,
    VARIANTS,
    Pool,
    deal_seeds,
    format_pool,
    parse_pool,
    seed_table_module,
    variant_of,
)
from server.cli import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from server.pools import pool_path

SEED_TABLE = Path(engine.__file__).parent / "data" / "broken_deck_seeds.py"
"""The engine's copy of Broken Deck's remapped seeds (it may not read files)."""
SAVE_EVERY = 10
"""Verified deals between two saves of a pool file."""
REMAPPED_VARIANTS = frozenset({"broken-deck"})
"""Pools whose every deal number must be verified (a losing layout is
remapped); saving one to its shipped file rewrites ``SEED_TABLE``."""


def register(subparsers: Any) -> None:
    solve_parser = subparsers.add_parser("solve", help="solve one deal and print the winning line")
    solve_parser.add_argument("game", choices=sorted(engine.GAMES))
    solve_parser.add_argument("--deal", type=int, required=True)
    solve_parser.add_argument("--draw", type=int, choices=(1, 3), help="WordLink: cards per draw")
    solve_parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET, metavar="NODES")
    solve_parser.set_defaults(handler=_solve)

    deals = subparsers.add_parser("deals", help="verified deal pools")
    actions = deals.add_subparsers(dest="deals_command", metavar="ACTION")
    verify = actions.add_parser("verify", help="build or extend a pool of verified deals (resumable)")
    verify.add_argument("game", choices=sorted(engine.GAMES))
    verify.add_argument("--variant", choices=sorted(VARIANTS), help="default: the game's only pool, or klondike-draw1")
    verify.add_argument("--count", type=int, help="verified deals wanted (default: the issue's target)")
    verify.add_argument("--budget", type=int, default=BUILD_BUDGET, metavar="NODES", help="per attempt")
    verify.add_argument("--file", type=Path, help="pool file (default: engine/data/VARIANT.txt)")
    verify.set_defaults(handler=_verify)
    deals.set_defaults(handler=lambda args: _usage(deals))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return EXIT_USAGE


def _solve(args: argparse.Namespace) -> int:
    options = {"draw": args.draw} if args.draw is not None else {}
    try:
        game = engine.new_game(args.game, args.deal, **options)
    except engine.EngineError as error:
        print(f"arena solve: {error}", file=sys.stderr)
        return EXIT_USAGE
    started = time.perf_counter()
    found = solve(game, budget=args.budget)
    elapsed = time.perf_counter() - started
    print(f"{game.title} deal {args.deal} {' '.join(f'{k}={v}' for k, v in game.options.items())}")
    print(f"result: {found.result}")
    print(f"nodes: {found.nodes}  time: {elapsed:.2f} s  moves: {len(found.moves)}")
    if found.moves:
        print(found.notation)
    return EXIT_OK if found.result != "unknown" else EXIT_FAILURE


def _verify(args: argparse.Namespace) -> int:
    variant = args.variant or variant_of(args.game, {})
    game_id, options = VARIANTS[variant]
    if game_id != args.game:
        print(f"arena deals verify: variant {variant} is not a {args.game} pool", file=sys.stderr)
        return EXIT_USAGE
    path = args.file or pool_path(variant)
    pool = parse_pool(path.read_text(encoding="utf-8")) if path.exists() else Pool(game_id, dict(options), 1, {})
    remap = variant in REMAPPED_VARIANTS
    seed_table = remap and path.resolve() == pool_path(variant).resolve()
    target = args.count or TARGETS[variant]
    progress = _Progress(target, len(pool.certificates))
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        deal = _build(pool, pool.next_deal, target, remap, args.budget, path, seed_table, progress)
    finally:
        signal.signal(signal.SIGTERM, previous)
    _save(path, pool, deal, seed_table)
    progress.finish()
    print(f"{variant}: {len(pool.certificates)} verified deals in {path} (next deal {deal})")
    return EXIT_OK if len(pool.certificates) >= target else EXIT_FAILURE


def _build(
    pool: Pool, deal: int, target: int, remap: bool, budget: int, path: Path, seed_table: bool, progress: _Progress
) -> int:
    """Verify deals from ``deal`` on until ``target`` or an interruption;
    returns the next deal to try."""
    game_id, options = pool.game_id, pool.options
    unsaved = 0
    try:
        while _wanted(pool, deal, target, remap):
            for seed in candidate_seeds(deal, remap):
                progress.show(deal, seed)
                certificate = certify(game_id, options, deal, seed, budget)
                if certificate is not None:
                    pool.certificates[deal] = certificate
                    progress.verified += 1
                    unsaved += 1
                    break
            deal += 1
            if unsaved >= SAVE_EVERY:
                _save(path, pool, deal, seed_table)
                unsaved = 0
    except KeyboardInterrupt:
        print(file=sys.stderr)
    return deal


def _stop(signum: int, frame: object) -> None:
    """SIGTERM stops a build like Ctrl-C: save, then exit (a build started in
    the background from a script ignores SIGINT, so ``kill PID`` is the way)."""
    raise KeyboardInterrupt


def _wanted(pool: Pool, deal: int, target: int, remap: bool) -> bool:
    if remap:
        return deal <= target
    return len(pool.certificates) < target


def _save(path: Path, pool: Pool, next_deal: int, seed_table: bool) -> None:
    """Write the pool atomically (a temporary file renamed over the old one),
    so an interrupted save never leaves half a file; with ``seed_table``
    (a remapped variant saved to its shipped file, however ``--file`` spelt
    that path) the engine's table of remapped seeds is rewritten with it."""
    saved = pool._replace(next_deal=next_deal)
    comment = (
        f"Verified {engine.GAMES[pool.game_id].title} deals: DEAL<TAB>SEED<TAB>winning moves (m*N = m repeated N times).\n"
        "Built by `arena deals verify` (format: engine/solver/pools.py); every line replays to a win\n"
        "through the checked engine (tests/solver/test_certificates.py)."
    )
    _write(path, format_pool(saved, comment))
    if seed_table:
        _write(SEED_TABLE, seed_table_module(deal_seeds(saved)))


def _write(path: Path, text: str) -> None:
    temporary = path.with_suffix(".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


class _Progress:
    """One line on standard error, rewritten in place: a bar, counts, rate."""

    def __init__(self, target: int, verified: int) -> None:
        self.target = target
        self.verified = verified
        self.tried = 0
        self.started = time.perf_counter()

    def show(self, deal: int, seed: int) -> None:
        self.tried += 1
        done = min(self.verified / self.target, 1.0) if self.target else 1.0
        bar = "#" * int(done * 30)
        rate = self.tried / max(time.perf_counter() - self.started, 1e-9)
        seed_text = f" seed {seed}" if seed != deal else ""
        line = f"\r[{bar:<30}] {self.verified}/{self.target} verified  deal {deal}{seed_text}  {rate:.2f} tries/s"
        print(line, end="", file=sys.stderr, flush=True)

    def finish(self) -> None:
        print(file=sys.stderr)
