"""``bench/figures.py`` turns a bench's paired rounds into the figures it
prints and keeps in ``bench/perf_history.md``; ``bench/scale.py`` judges
each level of players by them.

A verdict there is what a reviewer reads first, so the arithmetic behind
it (ratios of paired rounds, their median, the direction of a bound) and
the history's shape are checked here on hand-made rounds.  Nothing here
times anything.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.figures import (
    COLUMNS,
    HISTORY_HEADER,
    Context,
    Figure,
    Target,
    append_history,
    busy_share,
    machine_ticks,
    markdown_table,
    number,
    spread,
    text_table,
)
from bench.gc_pauses import Pauses
from bench.loop_lag import LoopLag
from bench.scale import COLUMNS as SCALE_COLUMNS
from bench.scale import GRACE, Level, pin
from bench.server import draws_forever


def test_the_ratio_is_the_median_of_paired_rounds_not_a_ratio_of_medians() -> None:
    # The machine is busy in the second round: both sides slow down, and
    # the pairs keep the ratio where a ratio of medians would not.
    figure = Figure("p50", "ms", arena=[1.0, 3.0, 1.2], baseline=[0.5, 3.0, 0.6], target=Target(1.3))
    assert figure.ratios() == [2.0, 1.0, 2.0]
    assert figure.verdict() == "FAIL"
    name, arena, baseline, ratio, target, verdict = figure.cells()
    assert (arena, baseline, ratio) == ("1.2 ms (1–3)", "0.6 ms (0.5–3)", "2× (1–2)")
    assert (target, verdict) == ("≤ 1.3×", "FAIL")


def test_a_lower_bound_passes_above_it_and_fails_below() -> None:
    capacity = Target(0.5, at_most=False)
    assert Figure("rate", "/s", [600.0], [1000.0], capacity).verdict() == "pass"
    assert Figure("rate", "/s", [400.0], [1000.0], capacity).verdict() == "FAIL"


def test_a_bound_on_the_figure_itself_ignores_the_baseline() -> None:
    cpu = Target(80.0, on_ratio=False)
    figure = Figure("CPU per action", "µs", arena=[70.0, 90.0, 75.0], baseline=[10.0, 10.0, 10.0], target=cpu)
    assert figure.verdict() == "pass"
    assert figure.cells()[4] == "≤ 80 µs"
    assert Figure("CPU per action", "µs", arena=[85.0], target=cpu).verdict() == "FAIL"


def test_a_figure_without_a_target_or_baseline_has_empty_cells() -> None:
    assert Figure("client CPU", "µs", [5.0]).cells() == ("client CPU", "5 µs", "", "", "", "")
    assert Figure("ratio only", "ms", [1.0], [0.0], Target(1.0)).verdict() == "n/a"


def test_numbers_keep_three_digits_and_group_thousands() -> None:
    assert [number(value) for value in (0.35212, 12.54, 99.96, 4210.4, 61234.0)] == ["0.352", "12.5", "100", "4,210", "61,234"]
    assert spread([], "ms") == "-"
    assert spread([1.5], "%") == "1.5%"


def test_the_busy_share_leaves_out_idle_and_io_wait() -> None:
    before = machine_ticks("cpu  100 0 100 700 100 0 0 0 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n")
    after = machine_ticks("cpu  250 0 150 800 200 0 0 0 0 0\n")
    assert before == (200, 1000)
    assert busy_share(before, after) == 200 / 400


def test_tables_line_up_and_the_history_gets_its_header_once(tmp_path: Path) -> None:
    rows = [Figure("move round trip p50", "ms", [1.0, 1.1], [1.0, 1.0], Target(1.3)).cells()]
    lines = text_table(COLUMNS, rows).splitlines()
    assert lines[1].index("1.05 ms") == lines[0].index("arena median")
    history = tmp_path / "perf_history.md"
    for commit in ("abc1234", "def5678+"):
        context = Context("python bench/server.py", 1_764_000_000.0, commit, 3.3, 4.0)
        append_history(history, context, "two rounds", [markdown_table(COLUMNS, rows)])
    text = history.read_text()
    assert text.startswith(HISTORY_HEADER) and text.count(HISTORY_HEADER) == 1
    sections = text.split("\n## ")[1:]
    assert [section.split(",")[1] for section in sections] == [" commit abc1234", " commit def5678+"]
    assert "load average 3.3 at the start, 4.0 at the end" in sections[0]
    assert "| move round trip p50 | 1.05 ms (1–1.1) | 1 ms | 1.05× (1–1.1) | ≤ 1.3× | pass |" in sections[1]


def test_a_level_of_the_scale_bench_fails_only_when_the_cpu_had_room() -> None:
    def level(p99_ms: float, server_share: float, machine_busy: float) -> Level:
        collections = {"counts": {"0": 115, "1": 3}, "longest_cpu_ms": {"0": 6.43, "1": 13.8}, "found": {"0": 1200, "1": 0}}
        collections["loop_lag"] = {"probes": 2000, "p99_ms": 3.21, "max_ms": 12.5}
        arriving = {"counts": {"0": 40, "2": 2}, "longest_cpu_ms": {"0": 3.1, "2": 176.4}, "found": {}}
        generators = [{"probes": 1990, "p99_ms": 1.2, "max_ms": 40.0}, {"probes": 1995, "p99_ms": 2.5, "max_ms": 9.0}]
        return Level(
            1000, 1000.0, 990.0, 2.0, p99_ms, 0, server_share, 0.1, 250.0, 0.2, machine_busy, collections, arriving, generators
        )

    assert level(19.0, 0.99, 1.0).verdict() == "pass"
    assert level(25.0, 0.5, 0.6).verdict() == "FAIL"
    assert level(25.0, 0.95, 0.6).verdict() == "saturated"
    assert level(25.0, 0.3, 0.95).verdict() == "saturated"
    cells = dict(zip(SCALE_COLUMNS, level(math.inf, 0.3, 0.95).cells()))
    assert (cells["p99"], cells["CPU per action"], cells["capacity per core"]) == (f"> {GRACE:g} s", "250 µs", "4,000/s")
    assert cells["collections young/middle/full"] == "115/3/0"
    assert cells["longest young/middle/full (CPU)"] == "6.4/13.8/0.0 ms"
    assert cells["garbage found young/middle/full"] == "1,200/0/0"
    assert cells["full while arriving (longest CPU)"] == "2 (176.4 ms)"
    assert cells["server loop lag p99/max"] == "3.2/12.5 ms"
    assert cells["generators' loop lag p99/max"] == "2.5/40.0 ms", "the worst generator's of each"


async def test_a_loop_that_runs_a_long_callback_lags_by_at_least_its_length() -> None:
    lag = LoopLag()
    lag.attach(asyncio.get_running_loop())
    await asyncio.sleep(0.05)
    calm = lag.report()
    asyncio.get_running_loop().call_soon(time.sleep, 0.03)
    await asyncio.sleep(0.05)
    stalled = lag.report()
    lag.stop()
    assert calm["probes"] >= 1 and stalled["probes"] >= 1
    assert stalled["max_ms"] >= 25.0, f"a 30 ms callback, the probe due at most 5 ms after it began: {stalled}"
    assert lag.report()["probes"] == 0, "a report starts again"


def test_the_benches_players_draw_on_deals_that_drawing_alone_never_ends() -> None:
    """Deal 113's stock shows no useful move, so the game is lost after its
    first pass and the server refuses every later draw: a player on it sent
    moves the scale bench counted as never answered, about ten a second at
    5,000 players."""
    assert not draws_forever(113)
    assert draws_forever(112) and draws_forever(114)


def test_a_report_asked_for_during_a_collection_waits_for_its_end_and_is_not_timed_as_part_of_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A signal's handler may run inside the collector's own callback: the
    report (counting the tracked objects walks them all) then counted as
    that collection's pause, a young collection of 116 ms at five thousand
    players."""
    pauses = Pauses()
    stop = {"generation": 0, "collected": 3, "uncollectable": 0}
    pauses("start", {"generation": 0})
    pauses.asked(count_objects=True)
    assert capsys.readouterr().out == "", "no report in the middle of a collection"
    pauses("stop", stop)
    report = json.loads(capsys.readouterr().out)
    assert report["counts"] == {"0": 1} and report["found"] == {"0": 3} and report["tracked"] > 0
    pauses.asked(count_objects=False)
    assert json.loads(capsys.readouterr().out)["counts"] == {}, "answered at once outside a collection, counted afresh"
    pauses("start", {"generation": 0})
    pauses("stop", stop)
    assert capsys.readouterr().out == "", "a collection alone reports nothing"


def test_pinning_a_process_keeps_every_thread_it_already_has_on_the_cores_given() -> None:
    """The scale bench pins the server after it started its threads: the
    affinity of a process is each thread's own."""
    child = subprocess.Popen(
        [sys.executable, "-c", "import threading, time\n"
         "for _ in range(2): threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
         "print('ready', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        core = max(os.sched_getaffinity(0))
        pin(child.pid, {core})
        threads = [int(task.name) for task in Path(f"/proc/{child.pid}/task").iterdir()]
        assert len(threads) == 3 and all(os.sched_getaffinity(thread) == {core} for thread in threads)
    finally:
        child.kill()
        child.communicate()
