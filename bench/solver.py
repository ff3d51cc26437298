"""The solver on deals 1..N as players get them: how many it wins, proves
lost or leaves undecided, and how long a deal takes.

For each benched variant, deals 1 to ``--deals`` (``Game(deal)``, so
Broken Deck's deal table applies; ``--raw`` deals shuffle seeds 1..N
instead, which for Broken Deck are the layouts before the table replaced
the ones its solver could not win) are solved, proof included
(``solve(prove=True)``), each until it is decided or has spent
``--seconds`` of CPU time: the target is a verdict within 10 s
per deal, so a node budget (``--budget``) would only stop a search that
still had time, on a fast machine or a quiet one.  Printed per variant:
the share won / proved unwinnable / unknown, the share decided within
``--seconds`` seconds, the median and 95th-percentile seconds per deal
and nodes per second, then the same figures of the earlier, weaker solver
(``BASELINE``, measured on the same deals) and the ratios.

``--baseline-root DIR`` also runs another version of the solver on the
same deals in the same run, at the same time (a second process, so both
share the machine's load), e.g. the last commit's, exported with
``git archive HEAD engine server | tar -x -C DIR``, with
``--baseline-budget`` nodes per deal (default: the 300,000 it shipped
with), on the first ``--baseline-deals`` deals (default all: a pure-Python
baseline spends the full 10 s on each deal it leaves undecided), and
prints its figures and the ratios beside this one's on those deals.

``--sound-rate`` measures the proof search alone instead: WordLink's
sound domain searched from deals 1..``--deals`` (draw 1 and 3) on
``--budget`` nodes (default 20,000), pure Python and compiled on the same
deals, positions per CPU second of each and their ratio; and the
compilation's cost, the first search of a process whose numba cache
directory is empty, then of one whose cache is filled.

Seconds are the CPU time of each process (``time.process_time``): the
machine is shared, and wall-clock time would measure the neighbours.

    python bench/solver.py [--deals 1000] [--seconds 10] [--budget NODES] [--games klondike-draw3 ...] [--raw]
    python bench/solver.py --games klondike-draw3 --deals 200 --baseline-root /tmp/base
    python bench/solver.py --calibrate     # nodes a 200 ms hint may search
    python bench/solver.py --sound-rate --deals 30   # compiled vs pure-Python proof search
    python bench/solver.py --oracle fc-solve --seeds 1001-2000   # Broken Deck beside fc-solve (bench/fc_oracle.py)

Checks printed with the table:
- WordLink draw 3 (unlimited passes, foundation cards may come back): the
  published winnable share is 81.9-82.0 % (Blake & Gent); the won share
  must not exceed it by more than chance allows and won + unknown must
  reach it, or the rules or the solver are wrong.
- Targets: WordLink draw 3 decided on 95 % of deals within
  10 s each with a median under 50 ms, draw 1 on 90 %; Broken Deck on
  99 %, normal and practice layouts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from typing import Any, NamedTuple

if not __package__:
    # Run as a file, Python puts bench/ first on sys.path, where this very
    # file would shadow the package it measures.
    sys.path.pop(0)

from engine.games import GAMES  # noqa: E402
from engine.rng import SplitMix64  # noqa: E402
from engine.solver import UNKNOWN, UNWINNABLE, WON, hint, solve  # noqa: E402
from engine.solver.certify import seeded_game  # noqa: E402
from engine.solver.domains import domain_class  # noqa: E402
from engine.solver.klondike import KlondikeDomain  # noqa: E402
from engine.solver.pools import VARIANTS  # noqa: E402
from engine.solver.search import depth_first  # noqa: E402
from bench.fc_oracle import FC_SOLVE, oracle, seed_range, timed_solve, warm_up_freecell  # noqa: E402
from server.runtime.progress import ProgressLine  # noqa: E402

BENCHES: dict[str, tuple[str, dict[str, Any]]] = {
    **VARIANTS,
    "broken-deck-practice": ("broken-deck", {"practice": True}),
}
"""The variants benched: the certified-pool ones and Broken Deck's practice layout."""
UNLIMITED = 1 << 62
"""The node budget when ``--budget`` is not given: the CPU-time cap decides."""
SHIPPED_BUDGET = 300_000
"""The node budget each deal had in this bench before the CPU-time cap
alone decided (``--baseline-budget``'s default)."""
PUBLISHED_DRAW3 = (0.819, 0.820)
HINT_SECONDS = 0.2


class Target(NamedTuple):
    decided: float
    median: float | None


TARGETS = {
    "klondike-draw3": Target(0.95, 0.05),
    "klondike-draw1": Target(0.90, None),
    "broken-deck": Target(0.99, None),
    "broken-deck-practice": Target(0.99, None),
}
"""The targets: the share decided within ``--seconds``, the median seconds."""


BASELINE_DEALS = 100
BASELINE_RUN = "the earlier, weaker solver (commit f79a138) at its default 100,000 nodes"


def _measured(won: int, unwinnable: int, unknown: int, decided: float, median: float, p95: float) -> dict[str, Any]:
    counts = Counter({WON: won, UNWINNABLE: unwinnable, UNKNOWN: unknown})
    return {"counts": counts, "decided": decided, "median": median, "p95": p95}


BASELINE: dict[str, dict[str, Any]] = {
    "klondike-draw3": _measured(77, 4, 19, 0.81, 0.022, 6.38),
    "klondike-draw1": _measured(83, 1, 16, 0.84, 0.007, 7.93),
    "broken-deck": _measured(100, 0, 0, 1.0, 0.097, 0.86),
    "broken-deck-practice": _measured(99, 0, 1, 0.99, 0.023, 1.77),
}
"""That solver's ``figures`` on deals 1-``BASELINE_DEALS`` as dealt, with
``--seconds 10``, measured with this bench on this machine at the same
time as the figures in docs/solver.md (a run of it on 1,000 deals would
have taken hours of the shared machine's CPU)."""


def sample_seeds(count: int) -> list[int]:
    """Deal seeds from a fixed generator: the same layouts on every run
    (``--calibrate``'s sample, as before)."""
    rng = SplitMix64(20_190_101)
    return [1 + rng.below(1 << 31) for _ in range(count)]


def deal_game(name: str, deal: int, raw: bool) -> Any:
    game_id, options = BENCHES[name]
    return seeded_game(game_id, deal, deal, options) if raw else GAMES[game_id](deal, **options)


def run(name: str, deals: int, budget: int, seconds: float, raw: bool, per_deal: bool = False) -> dict[str, Any]:
    """Solve deals 1..``deals`` of ``name``; with ``per_deal``, print one
    ``NAME DEAL RESULT SECONDS`` line per deal on standard output and
    nothing else there (what ``--baseline-root`` reads from its process)."""
    results: list[tuple[str, float]] = []
    nodes = 0
    if BENCHES[name][0] == "klondike":
        warm_up_kernel()
    elif name == "broken-deck-practice":
        warm_up_freecell()
    progress = ProgressLine(every=30.0, eta_label="done in about")
    for deal in range(1, deals + 1):
        # An undecided deal's nodes count towards nodes/s as its seconds do.
        result, spent, searched = timed_solve(deal_game(name, deal, raw), budget, seconds)
        nodes += searched
        results.append((result, spent))
        if per_deal:
            print(name, deal, result, results[-1][1], flush=True)
        elif deal % 100 == 0 or deal == deals:
            print(f"{name} deals 1-{deal}: {summary(results, seconds)}", flush=True)
        counts = Counter(result for result, _ in results)
        progress(deal, deals, f"{name} deals, {counts[WON]} won {counts[UNWINNABLE]} unwinnable {counts[UNKNOWN]} unknown")
    progress.finish()
    return {"name": name, "results": results, "rate": nodes / max(sum(spent for _, spent in results), 1e-9)}


def warm_up_kernel() -> None:
    """The compiled proof search compiled or loaded from numba's cache
    before any deal's clock starts: a fresh tree compiles for 10-15 CPU s,
    which would leave its first deal undecided and say nothing of the
    solver (``--sound-rate`` measures that cost on its own)."""
    from engine.solver.compiled import CompiledSearch, compiled_available

    if compiled_available():
        game = GAMES["klondike"](1, draw=3)
        CompiledSearch(KlondikeDomain(game), game.position).run(1)


def figures(results: list[tuple[str, float]], seconds: float) -> dict[str, Any]:
    """Shares and times of a run's first deals: the counts per result, the
    share decided within ``seconds``, the median and p95 seconds."""
    times = sorted(spent for _, spent in results)
    return {
        "counts": Counter(result for result, _ in results),
        "decided": sum(result != UNKNOWN and spent <= seconds for result, spent in results) / len(results),
        "median": statistics.median(times),
        "p95": times[min(len(times) - 1, int(0.95 * len(times)))],
    }


def summary(results: list[tuple[str, float]], seconds: float) -> str:
    found = figures(results, seconds)
    counts, total = found["counts"], len(results)
    return (
        f"won {share(counts[WON], total)}, unwinnable {share(counts[UNWINNABLE], total)}, unknown {share(counts[UNKNOWN], total)},"
        f" decided within {seconds:g} s {100 * found['decided']:.1f}%, median {found['median']:.3f} s, p95 {found['p95']:.2f} s"
    )


def calibrate(deals: int) -> None:
    """Nodes per second of a hint-sized search from the first positions of
    ``deals`` deals, and the budget that makes a hint take about 200 ms."""
    print(f"{'game':<15}{'nodes/s':>10}{'200 ms budget':>15}{'HINT_BUDGET':>13}{'hint ms (median)':>18}")
    for name, (game_id, options) in VARIANTS.items():
        nodes, seconds, hint_times = 0, 0.0, []
        for seed in sample_seeds(deals):
            game = seeded_game(game_id, 1, seed, options)
            started = time.perf_counter()
            found = solve(game, budget=5_000, prove=False)
            seconds += time.perf_counter() - started
            nodes += found.nodes
            started = time.perf_counter()
            hint(game)
            hint_times.append(time.perf_counter() - started)
        rate = nodes / seconds
        current = domain_class(seeded_game(game_id, 1, 1, options)).HINT_BUDGET
        median_ms = 1000 * statistics.median(hint_times)
        print(f"{name:<15}{rate:>10,.0f}{rate * HINT_SECONDS:>15,.0f}{current:>13,}{median_ms:>18.0f}")


def share(count: int, total: int) -> str:
    return f"{100 * count / total:.1f}%"


def report(rows: list[dict[str, Any]], args: argparse.Namespace) -> None:
    total = args.deals
    layouts = "shuffle seeds" if args.raw else "deals"
    nodes = "no node limit" if args.budget == UNLIMITED else f"{args.budget:,} nodes"
    print(f"{layouts} 1-{total} per variant, {nodes} and {args.seconds:g} CPU s at most per deal (proof included)")
    print(
        f"{'variant':<22}{'won':>8}{'unwinn.':>9}{'unknown':>9}{f'<= {args.seconds:g} s':>10}"
        f"{'median s':>10}{'p95 s':>8}{'nodes/s':>10}"
    )
    for row in rows:
        print(f"{row['name']:<22}{columns(figures(row['results'], args.seconds), total)}{row['rate']:>10,.0f}")
    comparable = [row for row in rows if row["name"] in BASELINE and total >= BASELINE_DEALS and not args.raw]
    if comparable:
        print(f"baseline, deals 1-{BASELINE_DEALS}: {BASELINE_RUN}; then this run on the same deals")
        for row in comparable:
            before = BASELINE[row["name"]]
            now = figures(row["results"][:BASELINE_DEALS], args.seconds)
            undecided = (1 - now["decided"]) / max(1 - before["decided"], 1e-9)
            print(f"{row['name'] + ' before':<22}{columns(before, BASELINE_DEALS)}")
            print(
                f"{row['name'] + ' now':<22}{columns(now, BASELINE_DEALS)}"
                f"   undecided x{undecided:.2f}, median x{now['median'] / before['median']:.2f}"
            )
    for row in rows:
        found = figures(row["results"], args.seconds)
        if row["name"] == "klondike-draw3":
            won = found["counts"][WON] / total
            unknown = found["counts"][UNKNOWN] / total
            low, high = PUBLISHED_DRAW3
            slack = 3 * (high * (1 - high) / total) ** 0.5
            consistent = won <= high + slack and won + unknown >= low - slack
            verdict = "consistent" if consistent else "INCONSISTENT: a rules or solver bug"
            print(f"WordLink draw 3: won {won:.1%} <= 82.0% <= won + unknown {won + unknown:.1%} (± {slack:.1%})? {verdict}")
        target = TARGETS.get(row["name"])
        if target is not None:
            met = found["decided"] >= target.decided and (target.median is None or found["median"] < target.median)
            wanted = f"decided >= {target.decided:.0%} within {args.seconds:g} s"
            if target.median is not None:
                wanted += f", median < {1000 * target.median:.0f} ms"
            print(f"{row['name']}: {wanted}: {'met' if met else 'NOT met'}")


def columns(found: dict[str, Any], total: int) -> str:
    counts = found["counts"]
    return (
        f"{share(counts[WON], total):>8}{share(counts[UNWINNABLE], total):>9}{share(counts[UNKNOWN], total):>9}"
        f"{100 * found['decided']:>9.1f}%{found['median']:>10.3f}{found['p95']:>8.2f}"
    )


SOUND_RATE_BUDGET = 20_000
FIRST_SEARCH = (
    "import time; started = time.process_time(); import engine;"
    " from engine.solver.compiled import CompiledSearch; from engine.solver.klondike import KlondikeDomain;"
    " game = engine.new_game('klondike', 1, draw=3); CompiledSearch(KlondikeDomain(game), game.position).run(1);"
    " print(time.process_time() - started)"
)
"""A process's first compiled search (numba imported, the kernel compiled or loaded), in CPU seconds."""


def sound_rate(deals: int, budget: int) -> None:
    """Positions per CPU second of the sound WordLink search, pure Python
    beside compiled on the same deals and budget, and the compilation's cost."""
    from engine.solver.compiled import CompiledSearch, compiled_available

    if not compiled_available():
        raise SystemExit("numba does not import here (or ARENA_SOLVER_PURE=1): nothing compiled to measure")
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        command = [sys.executable, "-c", FIRST_SEARCH]
        cold, warm = (float(subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout) for _ in "12")
    print(f"first compiled search of a process: {cold:.1f} CPU s with an empty numba cache, {warm:.1f} s with it filled")
    warm_up_kernel()
    print(f"sound search, deals 1-{deals}, {budget:,} nodes each: positions per CPU second")
    print(f"{'variant':<18}{'pure Python':>13}{'compiled':>12}{'ratio':>8}{'median ratio':>14}{'same answers':>14}")
    for draw in (1, 3):
        totals = {"python": [0, 0.0], "compiled": [0, 0.0]}
        ratios, same = [], 0
        for deal in range(1, deals + 1):
            game = GAMES["klondike"](deal, draw=draw)
            started = time.process_time()
            python = depth_first(KlondikeDomain(game), game.position).run(budget)
            between = time.process_time()
            compiled = CompiledSearch(KlondikeDomain(game), game.position).run(budget)
            ended = time.process_time()
            same += python == compiled
            for name, found, spent in (("python", python, between - started), ("compiled", compiled, ended - between)):
                totals[name][0] += found.nodes
                totals[name][1] += spent
            ratios.append(((python.nodes / max(between - started, 1e-9)), compiled.nodes / max(ended - between, 1e-9)))
        rate = {name: nodes / max(seconds, 1e-9) for name, (nodes, seconds) in totals.items()}
        median = statistics.median(fast / slow for slow, fast in ratios)
        print(
            f"{f'klondike-draw{draw}':<18}{rate['python']:>13,.0f}{rate['compiled']:>12,.0f}"
            f"{rate['compiled'] / rate['python']:>7.1f}x{median:>13.1f}x{f'{same}/{deals}':>14}"
        )


def start_baseline(args: argparse.Namespace) -> subprocess.Popen[str]:
    """This bench in ``--per-deal`` mode on the solver at ``--baseline-root``
    (first on its module path), running while this process measures."""
    deals = args.baseline_deals or args.deals
    command = [sys.executable, os.path.abspath(__file__), "--per-deal", "--deals", str(deals)]
    command += ["--budget", str(args.baseline_budget), "--seconds", str(args.seconds), "--games", *args.games]
    if args.raw:
        command.append("--raw")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # after DIR, for bench.fc_oracle
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.abspath(args.baseline_root), here])}
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)


def baseline_rows(process: subprocess.Popen[str], games: list[str]) -> list[dict[str, Any]]:
    """The baseline process's results, per variant in ``games``' order."""
    output, _ = process.communicate()
    if process.returncode:
        raise SystemExit(f"the baseline run failed (exit {process.returncode}); run it alone with --per-deal to see why")
    results: dict[str, list[tuple[str, float]]] = {name: [] for name in games}
    for line in output.splitlines():
        name, _, result, seconds = line.split()
        results[name].append((result, float(seconds)))
    return [{"name": name, "results": found} for name, found in results.items()]


def compare(rows: list[dict[str, Any]], baselines: list[dict[str, Any]], args: argparse.Namespace) -> None:
    """The baseline run's figures beside this run's on the deals it ran, and the ratios."""
    print(f"baseline measured in this run: the solver at {args.baseline_root}, {args.baseline_budget:,} nodes per deal")
    for row, before in zip(rows, baselines):
        deals = len(before["results"])
        found, old = figures(row["results"][:deals], args.seconds), figures(before["results"], args.seconds)
        undecided = (1 - found["decided"]) / max(1 - old["decided"], 1e-9)
        print(f"{row['name'] + f' baseline 1-{deals}':<30}{columns(old, deals)}")
        print(
            f"{row['name'] + f' now 1-{deals}':<30}{columns(found, deals)}"
            f"   undecided x{undecided:.2f}, median x{found['median'] / max(old['median'], 1e-9):.2f},"
            f" p95 x{found['p95'] / max(old['p95'], 1e-9):.2f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000, help="deals 1..N per variant (default 1000)")
    parser.add_argument(
        "--budget", type=int, default=UNLIMITED, help="nodes per deal (default: no limit, --seconds stops a deal)"
    )
    parser.add_argument("--seconds", type=float, default=10.0, help="CPU seconds a deal may take to count as decided (default 10)")
    parser.add_argument("--games", nargs="+", choices=sorted(BENCHES), default=list(TARGETS))
    parser.add_argument("--raw", action="store_true", help="shuffle seeds 1..N, without Broken Deck's deal table")
    parser.add_argument("--baseline-root", help="a source tree (engine/, server/) whose solver to run beside this one")
    parser.add_argument("--baseline-budget", type=int, default=SHIPPED_BUDGET, help="its nodes per deal (default 300,000)")
    parser.add_argument("--baseline-deals", type=int, help="deals 1..N for the baseline (default: --deals)")
    parser.add_argument("--sound-rate", action="store_true", help="compiled vs pure-Python proof search speed instead")
    parser.add_argument("--oracle", choices=[FC_SOLVE], help="Broken Deck practice layouts beside fc-solve (bench/fc_oracle.py)")
    parser.add_argument("--seeds", type=seed_range, default=seed_range("1001-2000"), help="--oracle's practice seeds, FIRST-LAST")
    parser.add_argument("--per-deal", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--calibrate", action="store_true", help="measure the hint budget instead")
    args = parser.parse_args()
    if args.calibrate:
        calibrate(min(args.deals, 20))
        return 0
    if args.sound_rate:
        sound_rate(args.deals, SOUND_RATE_BUDGET if args.budget == UNLIMITED else args.budget)
        return 0
    if args.oracle:
        return oracle(args, args.budget)
    baseline = start_baseline(args) if args.baseline_root else None
    rows = [run(name, args.deals, args.budget, args.seconds, args.raw, args.per_deal) for name in args.games]
    if args.per_deal:
        return 0
    report(rows, args)
    if baseline is not None:
        compare(rows, baseline_rows(baseline, args.games), args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
