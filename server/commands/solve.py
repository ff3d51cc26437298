"""``arena solve`` and ``arena deals verify``: the solver from the command line.

``arena solve GAME --deal N`` prints the result (won / unwinnable /
unknown), the nodes searched, the time and the winning line in notation;
a search can take many seconds, so it shows its nodes and an upper bound
of the time left on standard error meanwhile (``server.runtime.progress``).  It
exits with 0 for an answer (won or unwinnable) and 1 for ``unknown``, the
budget spent without one.
``arena deals verify GAME`` builds (or extends) a pool of verified deals:
it resumes at the ``next`` deal recorded in the file, shows progress with
an ETA on standard error, and saves every few deals and when interrupted
(Ctrl-C or ``kill PID``), so a long build can be stopped and started again
at will (run it under ``nice``: it is hours of CPU).  It writes the
shipped pool (and Broken Deck's seed table) only in a source checkout
whose ``engine/data`` is writable; an installed package is never
rewritten, and the pool goes to ``--file`` or the current directory.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import engine
from engine.options import option_text
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
from server.runtime.exits import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from server.deals.pools import pool_path
from server.runtime.progress import ProgressLine

PACKAGE_ROOT = Path(engine.__file__).resolve().parent.parent
"""The directory holding ``engine/``: a source checkout, or site-packages."""
SEED_TABLE = Path(engine.__file__).parent / "data" / "broken_deck_seeds.py"
"""The engine's copy of Broken Deck's remapped seeds (it may not read files)."""
SAVE_EVERY = 10
"""Verified deals between two saves of a pool file."""
REMAPPED_VARIANTS = frozenset({"broken-deck"})
"""Pools whose every deal number must be verified (a losing layout is
remapped); saving one to its shipped file rewrites ``SEED_TABLE``."""
SOLVE_LINES_EVERY = 2.0
"""Seconds between two progress lines of ``arena solve`` when standard error is not a terminal."""
VERIFY_LINES_EVERY = 10.0
"""The same for ``arena deals verify``, whose runs last hours."""


def register(subparsers: Any) -> None:
    solve_parser = subparsers.add_parser(
        "solve",
        help="solve one deal and print the winning line",
        description="Search one deal for a win with the solver the server proves deals with, and print its result, "
        "the nodes searched and the winning line in the game's notation. Ends with the search, whatever it found, "
        "within --budget nodes.",
    )
    solve_parser.add_argument("game", choices=sorted(engine.GAMES))
    solve_parser.add_argument("--deal", type=int, required=True, help="the deal number, as new_game takes it")
    solve_parser.add_argument("--draw", type=int, choices=(1, 3), help="WordLink: cards per draw")
    solve_parser.add_argument(
        "--budget", type=int, default=DEFAULT_BUDGET, metavar="NODES", help=f"nodes to search at most (default {DEFAULT_BUDGET})"
    )
    solve_parser.set_defaults(handler=_solve)

    deals = subparsers.add_parser(
        "deals",
        help="verified deal pools",
        description="The pools of deals proven winnable that 'winnable' games and races draw from: each deal with "
        "its certificate (a winning line checked by replaying it).",
    )
    actions = deals.add_subparsers(dest="deals_command", metavar="ACTION")
    verify = actions.add_parser(
        "verify",
        help="build or extend a pool of verified deals (resumable)",
        description="Solve deals one after another from the pool's next deal and keep each one proven winnable, "
        "until the pool holds --count deals. Stopped and started again, it goes on where it stopped.",
    )
    verify.add_argument("game", choices=sorted(engine.GAMES))
    verify.add_argument("--variant", choices=sorted(VARIANTS), help="default: the game's only pool, or klondike-draw1")
    verify.add_argument("--count", type=int, help="verified deals wanted (default: the pool's target size)")
    verify.add_argument("--budget", type=int, default=BUILD_BUDGET, metavar="NODES", help="per attempt")
    verify.add_argument(
        "--file",
        type=Path,
        help="pool file (default: engine/data/VARIANT.txt in a source checkout, else VARIANT.txt in the current directory)",
    )
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
    progress = ProgressLine(every=SOLVE_LINES_EVERY, eta_label="done in at most")
    started = time.perf_counter()
    try:
        found = solve(game, budget=args.budget, progress=lambda nodes: progress(nodes, args.budget, "nodes"))
    finally:
        progress.finish()
    elapsed = time.perf_counter() - started
    print(f"{game.title} deal {args.deal} {' '.join(f'{k}={option_text(v)}' for k, v in game.options.items())}")
    print(f"result: {found.result}")
    print(f"nodes: {found.nodes}  time: {elapsed:.2f} s  moves: {len(found.moves)}")
    if found.moves:
        print(found.notation)
    if found.result == "unknown":
        print(
            f"arena solve: {args.budget} nodes found neither a win nor a proof that there is none "
            "(a bigger --budget may; exit code 1)",
            file=sys.stderr,
        )
        return EXIT_FAILURE
    return EXIT_OK


def default_pool_file(variant: str, package_root: Path = PACKAGE_ROOT) -> Path:
    """Where ``deals verify`` writes without ``--file``: the shipped pool in
    a source checkout (``package_root`` holds ``pyproject.toml``; a
    developer extends the pool and commits it) whose data directory is
    writable, else the current directory, so an installed package is never
    modified."""
    shipped = pool_path(variant)
    if (package_root / "pyproject.toml").is_file() and os.access(shipped.parent, os.W_OK):
        return shipped
    return Path.cwd() / shipped.name


def _verify(args: argparse.Namespace) -> int:
    variant = args.variant or variant_of(args.game, {})
    game_id, options = VARIANTS[variant]
    if game_id != args.game:
        print(f"arena deals verify: variant {variant} is not a {args.game} pool", file=sys.stderr)
        return EXIT_USAGE
    path = args.file or default_pool_file(variant)
    pool = parse_pool(path.read_text(encoding="utf-8")) if path.exists() else Pool(game_id, dict(options), 1, {})
    remap = variant in REMAPPED_VARIANTS
    seed_table = remap and path.resolve() == pool_path(variant).resolve()
    target = args.count or TARGETS[variant]
    print(f"arena deals verify: {variant} into {path}, from deal {pool.next_deal}", file=sys.stderr)
    progress = _Progress(target, pool, remap)
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
                    unsaved += 1
                    break
            deal += 1
            if unsaved >= SAVE_EVERY:
                _save(path, pool, deal, seed_table)
                unsaved = 0
    except KeyboardInterrupt:
        progress.finish()
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
    """The build's progress: verified deals (deal numbers passed, for a
    remapped pool, whose every number counts) against the target, the
    deal being tried and the tries per second."""

    def __init__(self, target: int, pool: Pool, remap: bool) -> None:
        self.target = target
        self.pool = pool
        self.remap = remap
        self.tried = 0
        self.started = time.perf_counter()
        self.line = ProgressLine(every=VERIFY_LINES_EVERY, start=self._done(pool.next_deal))

    def _done(self, deal: int) -> int:
        return deal - 1 if self.remap else len(self.pool.certificates)

    def show(self, deal: int, seed: int) -> None:
        self.tried += 1
        seed_text = f" seed {seed}" if seed != deal else ""
        elapsed = time.perf_counter() - self.started
        rate = f"  {(self.tried - 1) / elapsed:.2f} tries/s" if self.tried > 1 else ""
        done = min(self._done(deal), self.target)
        self.line(done, self.target, f"verified  deal {deal}{seed_text}{rate}")

    def finish(self) -> None:
        self.line.finish()
