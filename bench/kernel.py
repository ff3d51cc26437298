"""The compiled WordLink proof search of this tree against another tree's,
on the same roots and node budgets, in one run: positions per CPU second.

Why this bench: a change to the kernel (``engine/solver/klondike_kernel.py``)
must keep the search move for move (the same ``Solution`` for any root and
budget) and is only worth landing if it expands more positions per CPU
second.  Timings on a shared machine are noisy, so both kernels run in
the same run, interleaved (each round alternates which goes first), and
the bench reports medians over ``--rounds`` rounds and their ratio; it
stops if the two kernels ever answer differently.

Each kernel runs in its own worker process (``--worker``), the tree first
on its module path, warmed up before any timing (a fresh tree compiles
for 10-15 CPU s, then numba's cache serves it), and times each search
with ``time.process_time``.  The baseline tree is an export of the
commit to compare with::

    git archive HEAD engine | tar -x -C /tmp/kernel_base
    python bench/kernel.py --baseline-root /tmp/kernel_base [--rounds 3] [--budget 2000000] [--roots 3:45,1:45]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import IO, Any

if not __package__:
    # Run as a file, Python puts bench/ first on sys.path, where
    # bench/server.py would shadow the server package.
    sys.path.pop(0)

from server.runtime.progress import ProgressLine  # noqa: E402

WORKLOADS = ((3, 17), (3, 19), (3, 45), (1, 45))
"""(draw, deal) roots: draw-3 deals 17 and 19 are lost deals whose proofs
take a few million positions, 45 one of the deals the proof search leaves
undecided within the 10 s a deal is given (``bench/solver.py``), and draw 1 deal 45 the same layout
searched with the other talon rule."""


def worker() -> None:
    """Answers ``draw deal budget`` lines on stdin with one JSON line each:
    the search's result, nodes, moves and CPU seconds."""
    import engine
    from engine.solver.compiled import CompiledSearch
    from engine.solver.klondike import KlondikeDomain

    game = engine.new_game("klondike", 1, draw=3)
    CompiledSearch(KlondikeDomain(game), game.position).run(1)
    print(json.dumps({"engine": os.path.dirname(engine.__file__)}), flush=True)
    for line in sys.stdin:
        draw, deal, budget = (int(word) for word in line.split())
        game = engine.new_game("klondike", deal, draw=draw)
        search = CompiledSearch(KlondikeDomain(game), game.position)
        started = time.process_time()
        found = search.run(budget)
        spent = time.process_time() - started
        answer = {"result": found.result, "nodes": found.nodes, "moves": [str(move) for move in found.moves], "seconds": spent}
        print(json.dumps(answer), flush=True)


def start_worker(root: str) -> subprocess.Popen[str]:
    """This bench's worker on the tree at ``root`` (checked: the editable
    install must not have answered instead), once it is warmed up."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(root)}
    command = [sys.executable, os.path.abspath(__file__), "--worker"]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    loaded = read_answer(process.stdout)["engine"]
    if os.path.dirname(loaded) != os.path.abspath(root):
        raise SystemExit(f"the worker meant for {root} imported the engine at {loaded}")
    return process


def read_answer(stream: IO[str] | None) -> dict[str, Any]:
    line = stream.readline() if stream is not None else ""
    if not line:
        raise SystemExit("a worker ended early (run it alone with --worker to see why)")
    answer: dict[str, Any] = json.loads(line)
    return answer


def ask(process: subprocess.Popen[str], draw: int, deal: int, budget: int) -> dict[str, Any]:
    assert process.stdin is not None
    process.stdin.write(f"{draw} {deal} {budget}\n")
    process.stdin.flush()
    return read_answer(process.stdout)


def parse_roots(text: str) -> tuple[tuple[int, int], ...]:
    """``3:45,1:45`` as ((3, 45), (1, 45)): draw and deal of each root."""
    try:
        roots = tuple((int(draw), int(deal)) for draw, deal in (item.split(":") for item in text.split(",")))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected DRAW:DEAL[,DRAW:DEAL...], e.g. 3:45,1:45") from None
    if any(draw not in (1, 3) or deal < 1 for draw, deal in roots):
        raise argparse.ArgumentTypeError(f"{text!r}: draws are 1 or 3, deals from 1")
    return roots


def compare(baseline_root: str, rounds: int, budget: int, workloads: tuple[tuple[int, int], ...]) -> None:
    """Both kernels on every workload, ``rounds`` times, interleaved; the
    medians of positions per CPU second and their ratio per workload."""
    tree = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    workers = {"baseline": start_worker(baseline_root), "this tree": start_worker(tree)}
    rates: dict[tuple[int, int], dict[str, list[float]]] = {load: {name: [] for name in workers} for load in workloads}
    answers: dict[tuple[int, int], dict[str, Any]] = {}
    progress = ProgressLine(every=5)
    total = rounds * len(workloads)
    for round_index in range(rounds):
        names = list(workers) if round_index % 2 == 0 else list(workers)[::-1]
        for load_index, (draw, deal) in enumerate(workloads):
            for name in names:
                answer = ask(workers[name], draw, deal, budget)
                rates[(draw, deal)][name].append(answer["nodes"] / max(answer["seconds"], 1e-9))
                found = {key: answer[key] for key in ("result", "nodes", "moves")}
                if answers.setdefault((draw, deal), found) != found:
                    raise SystemExit(f"draw {draw} deal {deal}: the kernels answer differently: {answers[(draw, deal)]} / {found}")
            progress(round_index * len(workloads) + load_index + 1, total, "searches of each kernel")
    for process in workers.values():
        assert process.stdin is not None
        process.stdin.close()
        process.wait()
    print(f"compiled proof search, {budget:,} nodes a root, {rounds} rounds: median positions per CPU second")
    print(f"{'root':<18}{'result':>12}{'nodes':>11}{'baseline':>11}{'this tree':>11}{'ratio':>8}{'CPU s':>8}")
    ratios = []
    for (draw, deal), by_name in rates.items():
        base, new = statistics.median(by_name["baseline"]), statistics.median(by_name["this tree"])
        ratios.append(new / base)
        found = answers[(draw, deal)]
        seconds = found["nodes"] / new
        row = f"{f'draw {draw} deal {deal}':<18}{found['result']:>12}{found['nodes']:>11,}{base:>11,.0f}{new:>11,.0f}"
        print(f"{row}{new / base:>7.2f}x{seconds:>8.1f}")
    print(f"same Solution from both kernels on every root and round; median ratio {statistics.median(ratios):.2f}x")
    print("CPU s: this tree's seconds for the root at its median rate")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-root", help="a tree (git archive of a commit's engine/) to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--budget", type=int, default=2_000_000, help="nodes per root")
    parser.add_argument("--roots", type=parse_roots, default=WORKLOADS, help="DRAW:DEAL,... (default 3:17,3:19,3:45,1:45)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker()
    elif args.baseline_root is None:
        parser.error("--baseline-root is needed: the tree to compare with")
    else:
        compare(args.baseline_root, args.rounds, args.budget, args.roots)


if __name__ == "__main__":
    main()
