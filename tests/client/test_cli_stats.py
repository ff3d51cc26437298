"""``arena stats`` as a real subprocess against a real server: the text
charts of a player who played today's ranked daily and resigned it, the
share text with the daily's absolute link, and the refusal without a
token; and the charts themselves drawn from a reply of known shape."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from tests.client.arena_cli import run
from tests.client.arena_restart import RestartableServer
from tests.races.arena_races import KLONDIKE_DRAW_1, pin_daily_deal

from client import ArenaClient
from client.stats_text import calendar_lines, histogram_lines, share_lines
from protocol import to_client as tc
from server.games.streaks import HISTOGRAM_EDGES_MS


async def cli(config_home: Path, *arguments: str) -> tuple[int, str]:
    """The exit code and standard output, with standard error after them
    (where a refusal's sentence goes) for the assertions' messages."""
    code, out, err = await run("-m", "server.cli", *arguments, config_home=config_home)
    assert "Traceback" not in err, err
    return code, out if not err else f"{out}\n[standard error]\n{err}"


async def test_arena_stats_draws_the_charts_and_prints_the_share_text(arena: RestartableServer, tmp_path: Path) -> None:
    today = datetime.now(timezone.utc).date()
    await pin_daily_deal(arena.store, today)
    async with ArenaClient(arena.url, name="ann") as ann:
        token = ann.token
        assert token is not None
        game = await ann.new_game("klondike", "daily", {"draw": 1})
        await ann.resign(game.game_id)
    flags = (f"--token={token}", "--server", arena.url)  # a token may begin with "-", which argparse would read as a flag
    status, out = await cli(tmp_path, "stats", "--game", "klondike", "--variant", KLONDIKE_DRAW_1, *flags)
    assert status == 0, out
    assert f"WordLink {KLONDIKE_DRAW_1}: played 1, won 0, streak 0 (longest 0)" in out, out
    assert "  Mon  " in out and "# won" in out and "nobody has finished yet" in out, out
    status, out = await cli(tmp_path, "stats", "--share", *flags)
    port_link = f"http://{arena.url.split('//')[1].split('/')[0]}/#daily=klondike/{KLONDIKE_DRAW_1}/{today}"
    assert status == 0 and out.splitlines()[-1] == port_link and "Not won (" in out, out
    status, out = await cli(tmp_path / "nobody", "stats", "--server", arena.url)
    assert status == 2 and "needs --token" in out, out


def _stats(calendar: list[str]) -> tc.VariantStats:
    histogram = tc.Histogram(
        date="2026-12-01", edges_ms=list(HISTOGRAM_EDGES_MS), counts=[0, 2, 4, 0, 0, 0, 0, 0, 1], finishers=7, place=3,
        top_percent=43, time_ms=150_000,
    )
    return tc.VariantStats(
        game="klondike", title="WordLink", variant=KLONDIKE_DRAW_1, played=2, won=1, current_streak=1, longest_streak=1,
        best_time_ms=150_000, median_time_ms=150_000, calendar_start="2026-09-10", calendar=calendar,
        history=[], histogram=histogram,
    )


def test_the_calendar_is_a_row_per_weekday_and_the_histogram_marks_your_bucket() -> None:
    calendar = ["missed"] * 81 + ["played", "won", "open"]
    stats = _stats(calendar)
    lines = calendar_lines(stats)
    rows = {line.split()[0]: line for line in lines[1:8]}
    assert list(rows) == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    assert rows["Mon"].rstrip().endswith("x") and rows["Tue"].rstrip().endswith("#"), "2026-11-30 and 12-01"
    assert rows["Wed"].startswith("  Wed     .") and lines[0].strip().startswith("Sep 07"), "2026-09-10 is a Thursday"
    bars = histogram_lines(stats.histogram)
    assert bars[0] == "2026-12-01: 7 finishers, you #3 (top 43%)"
    assert bars[3].endswith("4 <- you") and bars[3].count("#") == 40 and bars[2].count("#") == 20
    share = tc.ShareText(
        game="klondike", variant=KLONDIKE_DRAW_1, date="2026-12-01", won=True, time_ms=1, actions=1, streak=1, place=1,
        top_percent=1, link="/#daily=klondike/x/2026-12-01", text="a\n/#daily=klondike/x/2026-12-01",
    )
    assert share_lines(share, "wss://arena.example/ws") == ["a", "https://arena.example/#daily=klondike/x/2026-12-01"]
