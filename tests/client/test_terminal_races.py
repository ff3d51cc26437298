"""``arena race``, ``arena leaderboard`` and ``arena daily`` run as real
subprocesses against a real server with a short countdown, fed line by
line the way a person types while the race goes on."""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict
from datetime import date, datetime, timedelta, timezone
from typing import AsyncIterator, Awaitable, Callable

import pytest

from tests.races.arena_races import DEAL_1_DRAW_1_WIN, KLONDIKE_DRAW_1, pin_daily_deal
from tests.client.arena_restart import REPO_ROOT, RestartableServer, ServerFactory
from tests.client.arena_cli import WAIT_SECONDS, Running, run
from tests.server.arena_servers import aged_token

from client import ArenaClient, RaceMirror
from client.board import counted
from client.commitments import Commitments
from client.reveal import UNCONFIRMED
from protocol import to_client as tc
from server.deals.daily import RECORD_KIND, DailyRecord

Start = Callable[..., Awaitable[Running]]


@pytest.fixture
async def arena_cli() -> AsyncIterator[Start]:
    """Start ``arena`` commands (``arena_cli("race", "join", ...)``); any
    still running when the test ends, passed or failed, is killed."""
    started: list[Running] = []

    async def start(*arguments: str) -> Running:
        program = await Running.start("-m", "server.cli", *arguments)
        started.append(program)
        return program

    yield start
    for program in started:
        if program.process.returncode is None:
            program.process.kill()
            await program.process.wait()


async def test_a_race_from_the_terminal_with_a_host_a_friend_and_a_spectator(
    arena_factory: ServerFactory, arena_cli: Start
) -> None:
    arena = await arena_factory(race_countdown_seconds=1.0)
    host = await arena_cli(
        "race", "create", "klondike", "--deal", "1", "--draw", "1", "--name", "ann", "--server", arena.url
    )
    race_id = (await host.expect(r"^race (r_\S+): WordLink, a numbered deal, unranked, hosted by ann, lobby$")).group(1)
    await host.expect(r"^  draw=1 scoring=standard auto_collect=off .*$")
    code = (await host.expect(r"^invite code (\w{4}-\w{4}) \(until .* UTC\)$")).group(1)
    await host.expect(rf"^  join with: arena race join {code} --server {re.escape(arena.url)}$")
    assert all(len(line) <= 80 for line in host.lines), host.lines
    await host.expect(r"^  ann +waiting +0 moves +0 on foundations  0:00$")
    await host.expect("^type start when everyone is in$")

    friend = await arena_cli("race", "join", code.lower(), "--name", "bob", "--server", arena.url, "--json")
    await friend.expect("^waiting for ann to start$")
    await host.expect(r"^bob joined \(2/8\)$")
    spectator = await arena_cli("race", "watch", race_id, "--server", arena.url)
    await spectator.expect(r"^racers \(2/8\):$")

    await friend.send("draw", "start")
    await friend.expect(r"^no board yet: it comes when the race starts \(lobby\); type help$")
    await friend.expect(r"^error: only the race's host can start it \[forbidden\]$")
    await host.send("start")
    for racer in (host, friend):
        await racer.expect(r"^the race starts in (0\.\d|1\.0) s$")
        await racer.expect("^go!$")
        await racer.expect(r"^t7 +\[6\] TH$")

    await friend.send(*DEAL_1_DRAW_1_WIN[:2])
    await host.expect(r"^» bob +playing +2 moves +1 on foundations  \d:\d\d$")
    await spectator.expect(r"^» bob +playing +2 moves")
    await friend.send("resign")
    await friend.expect(r"^game over: resigned after 2 moves in \d:\d\d, score \d+ \(the deal is told when the race ends\)$")
    await friend.expect("^waiting for the others to finish")
    await host.expect(r"^» bob +resigned +2 moves")
    await host.send("racers")
    await host.expect(r"^  bob +resigned +2 moves")
    await host.send("resign")

    for watcher in (host, friend, spectator):
        await watcher.expect(r"^the race is over \(deal 1, unranked\)$")
        code_, lines = await watcher.finish()
        assert code_ == 0, lines
        table = [row for row in lines[lines.index("results:") + 1 :] if row.startswith(" ")]
        assert [re.split(r" +", row.strip())[:3] for row in table] == [["-", "bob", "resigned"], ["-", "ann", "resigned"]]
        rematch = [line for line in lines if line.startswith("race them again")]
        assert len(rematch) == (0 if watcher is spectator else 1), lines

    async with ArenaClient(arena.url, identify=False) as client:
        race = await client.watch_race(race_id)
        assert race.finished and [r.name for r in race.racers] == ["ann", "bob"]


async def _racing_bob(ann: ArenaClient, arena_cli: Start, url: str) -> tuple[RaceMirror, Running]:
    """A Chequers race hosted by ``ann`` (the library) that bob joined from
    the terminal, started, bob's board shown."""
    race = await ann.create_race("chequers", deal=3)
    friend = await arena_cli("race", "join", race.code or "", "--name", "bob", "--server", url)
    await race.wait_until(lambda r: len(r.racers) == 2)
    await ann.start_race(race.race_id)
    await friend.expect("^go!$")
    return race, friend


async def test_leaving_a_race_tells_how_to_come_back_and_coming_back_gives_the_board(
    arena_factory: ServerFactory, arena_cli: Start
) -> None:
    arena = await arena_factory(race_countdown_seconds=0.3)
    async with ArenaClient(arena.url, name="ann") as ann:
        race, friend = await _racing_bob(ann, arena_cli, arena.url)
        await friend.send("quit")
        found = await friend.expect(
            r"^left race r_\S+ \(your clock runs on\); to come back: arena race join (\S+) --server (\S+) --token=(\S+)$"
        )
        assert (await friend.finish())[0] == 0 and found.group(2) == arena.url
        again = await arena_cli("race", "join", found.group(1), f"--token={found.group(3)}", "--server", arena.url)
        await again.expect(r"^race r_\S+: Chequers, .*, running$")
        await again.expect("^your board, as you left it:$")
        await again.send("resign")
        await again.expect("^game over: resigned after 0 moves")
        await ann.resign((await ann.race_board(race.race_id, WAIT_SECONDS)).game_id)
        await again.expect(r"^the race is over \(deal 3, unranked\)$")
        assert (await again.finish())[0] == 0

    after = ("race", "join", found.group(1), f"--token={found.group(3)}", "--server", arena.url)
    for arguments in (after, ("race", "watch", race.race_id, "--server", arena.url)):
        code, out, err = await run("-m", "server.cli", *arguments)
        assert code == 0, err
        lines = out.splitlines()
        over = lines.index("the race is over (deal 3, unranked)")
        assert lines[over + 1] == "results:"
        assert re.search(r"^ +- bob +resigned +0 moves", out, re.MULTILINE)


async def test_the_results_tell_each_racer_how_to_ask_for_a_rematch(
    arena_factory: ServerFactory, arena_cli: Start
) -> None:
    arena = await arena_factory(race_countdown_seconds=0.3)
    async with ArenaClient(arena.url, name="ann") as ann:
        race, friend = await _racing_bob(ann, arena_cli, arena.url)
        await friend.send("resign")
        await ann.resign((await ann.race_board(race.race_id, WAIT_SECONDS)).game_id)
        asked = await friend.expect(r"^race them again \(a new deal, whoever asks first hosts\): (arena race rematch .*)$")
        assert (await friend.finish())[0] == 0

        command = asked.group(1).split()[1:]
        assert command[:3] == ["race", "rematch", race.race_id]
        rematch = await arena_cli(*command, "--server", arena.url)
        found = await rematch.expect(r"^race (r_\S+): Chequers, a secret winnable deal, hosted by bob, lobby$")
        await rematch.expect("^type start when everyone is in$")
        joined = await ann.rematch(race.race_id)
        assert joined.race_id == found.group(1) and sorted(r.name for r in joined.racers) == ["ann", "bob"]
        await rematch.send("quit")
        assert (await rematch.finish())[0] == 0


async def test_race_commands_print_refusals_with_their_codes(arena: RestartableServer) -> None:
    code, out, _ = await run("-m", "server.cli", "race", "join", "ZZZZ-ZZZZ", "--server", arena.url)
    assert code == 1 and "[race_not_found]" in out and "no race has the invite code" in out
    code, out, _ = await run("-m", "server.cli", "race", "join", "Z" * 30, "--server", arena.url)
    assert code == 2 and out.startswith("error: code: String should have at most 20 characters")
    code, out, _ = await run("-m", "server.cli", "race", "create", "klondike", "--draw", "1", "--option", "scoring=vegas", "--server", arena.url)
    assert code == 1 and "[bad_option]" in out
    code, out, _ = await run("-m", "server.cli", "race", "watch", "r_nothing", "--server", arena.url)
    assert code == 1 and "[race_not_found]" in out
    code, _, err = await run("-m", "server.cli", "race", "create", "klondike", "--deal", "random", "--server", arena.url)
    assert code == 2 and "is not a race deal" in err


async def test_the_leaderboard_and_the_daily_deals_in_the_terminal(arena_factory: ServerFactory) -> None:
    """Ann and then Bob, players since before the day, win the daily from
    one address (loopback): Ann ranks, Bob is shown apart as the same
    network.  They play their lines at once, so the cadence rule is off on
    this server (its own tests are tests/server/test_fair_rank.py)."""
    arena = await arena_factory(cadence_median_ms=0, cadence_pause_ms=0)
    today = datetime.now(timezone.utc).date()
    await pin_daily_deal(arena.store, today)
    tokens = []
    for name in ("ann", "bob"):
        async with ArenaClient(arena.url, token=await aged_token(arena.store, name)) as client:
            game = await client.new_game("klondike", deal="daily", options={"draw": 1})
            for move in DEAL_1_DRAW_1_WIN:
                await client.move(game.game_id, move)
            assert game.status == "won"
            tokens.append(client.token or "")
    token = tokens[0]

    code, out, err = await run("-m", "server.cli", "leaderboard", "klondike", "--draw", "1", "--server", arena.url)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == f"WordLink draw=1,scoring=standard, {today.isoformat()}"
    assert re.fullmatch(rf" +#1  ann +\d+:\d\d  +{len(DEAL_1_DRAW_1_WIN)} actions", lines[1]) and len(lines) == 3
    assert re.fullmatch(rf" +-  bob +\d+:\d\d  +{len(DEAL_1_DRAW_1_WIN)} actions  \(same network, unranked\)", lines[2])
    code, out, _ = await run(
        "-m", "server.cli", "leaderboard", "klondike", "--draw", "1", f"--token={tokens[1]}", "--server", arena.url,
    )
    assert code == 0 and re.match(r" +you -  bob .*\(same network, unranked\)$", out.splitlines()[-1]), out

    code, out, _ = await run(
        "-m", "server.cli", "leaderboard", "klondike", "--draw", "1", "--around-me", f"--token={token}",
        "--date", today.isoformat(), "--server", arena.url, "--json",
    )
    assert code == 0 and re.search(r"^ +you #1  ann ", out, re.MULTILINE)
    yesterday = (today - timedelta(days=1)).isoformat()
    code, out, _ = await run("-m", "server.cli", "leaderboard", "klondike", "--date", yesterday, "--server", arena.url)
    assert code == 0 and out.splitlines()[1:] == ["  no entries"]
    code, out, _ = await run("-m", "server.cli", "leaderboard", "klondike", "--around-me", "--server", arena.url)
    assert code == 2 and "--around-me needs --token" in out
    code, out, _ = await run("-m", "server.cli", "leaderboard", "klondike", "--option", "draw=2", "--server", arena.url)
    assert code == 1 and "[bad_option]" in out

    code, out, err = await run("-m", "server.cli", "daily", "--game", "klondike", "--server", arena.url)
    assert code == 0, err
    assert out.splitlines()[0] == f"daily deals of {today.isoformat()} (today is {today.isoformat()})"
    assert len(re.findall(r"^  commitment [0-9a-f]{64} \(since ", out, re.MULTILINE)) == 2
    assert len(re.findall(r"^  revealed at \d{4}-\d\d-\d\d \d\d:\d\d UTC$", out, re.MULTILINE)) == 2
    code, out, _ = await run("-m", "server.cli", "daily", "--date", (today + timedelta(days=3)).isoformat(), "--server", arena.url)
    assert code == 1 and "[forbidden]" in out

    code, out, err = await run("-m", "server.cli", "records", f"--token={token}", "--server", arena.url)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("records of ann (p_")
    assert re.fullmatch(
        rf"  WordLink draw=1,scoring=standard: 1/1 won, {len(DEAL_1_DRAW_1_WIN)} moves, \d+:\d\d played, 0 hints, "
        rf"0 undos, best \d+:\d\d and {len(DEAL_1_DRAW_1_WIN)} moves, best score \d+",
        lines[1],
    ), lines
    player_id = lines[0].split("(")[1].rstrip(")")
    code, again, _ = await run("-m", "server.cli", "records", "--player", player_id, "--server", arena.url, "--json")
    assert code == 0 and again == out
    code, out, _ = await run("-m", "server.cli", "records", "--server", arena.url)
    assert code == 2 and "needs --token" in out
    code, out, _ = await run("-m", "server.cli", "records", "--player", "p_nobody", "--server", arena.url)
    assert code == 1 and "[player_not_found]" in out


async def test_the_example_race_bot_joins_plays_by_hints_and_prints_the_results(arena_factory: ServerFactory) -> None:
    arena = await arena_factory(race_countdown_seconds=0.3)
    async with ArenaClient(arena.url, name="ann") as ann:
        race = await ann.create_race("klondike", {"draw": 1}, deal=1)
        bot = await Running.start("examples/race_bot.py", race.code or "", arena.url)
        await race.wait_until(lambda r: len(r.racers) == 2, timeout=WAIT_SECONDS)
        await ann.start_race(race.race_id)
        board = await ann.race_board(race.race_id, WAIT_SECONDS)
        await ann.move(board.game_id, DEAL_1_DRAW_1_WIN[0])
        await ann.resign(board.game_id)
        async def bots_moves() -> object:
            return [racer.moves for racer in race.racers if racer.name == "race-bot"]

        try:
            code, lines = await bot.finish(bots_moves)
        finally:
            if bot.process.returncode is None:
                bot.process.kill()
        await race.wait_until(lambda r: r.finished)
    assert code == 0, lines
    assert lines[0] == f"joined race {race.race_id} hosted by ann; waiting for the start"
    assert "ann: resigned, 1 move, 0 on foundations" in lines
    results = {row.name: row for row in race.results or []}
    bots = results["race-bot"]
    assert f"{bots.result}: {counted(bots.moves, 'move')}" in "\n".join(lines)
    assert lines[-2:] == [
        f"{row.place or '-'} {row.name} {row.result} {counted(row.moves, 'move')} {row.time_ms / 1000:.1f} s"
        for row in race.results or []
    ]
    assert (REPO_ROOT / "examples" / "race_bot.py").read_text().count("\n") < 80


async def test_arena_daily_prints_a_revealed_deal_with_the_command_that_checks_it(arena: RestartableServer) -> None:
    """The printed check (``printf … | sha256sum``) must reproduce the
    commitment printed above it, as docs/client.md promises; ``--verify``
    also deals the layout from the seed and replays the winning line, and
    fails on a reveal that does not hold."""
    day = datetime.now(timezone.utc).date() - timedelta(days=3)
    record = DailyRecord("klondike", KLONDIKE_DRAW_1, day.isoformat(), 1, 0, DEAL_1_DRAW_1_WIN, "b" * 32, 0)
    await arena.store.put_document(RECORD_KIND, record.key, asdict(record))
    code, out, err = await run("-m", "server.cli", "daily", "--date", day.isoformat(), "--server", arena.url)
    assert code == 0, err
    commitment = re.search(r"^  commitment ([0-9a-f]{64}) ", out, re.MULTILINE)
    check = re.search(r"^  seed 0{15}1, nonce b{32}: check with  printf '([^']+)' \| sha256sum$", out, re.MULTILINE)
    assert commitment is not None and check is not None, out
    assert hashlib.sha256(check.group(1).encode()).hexdigest() == commitment.group(1) == record.commitment
    verify = ("-m", "server.cli", "daily", "--verify", "--date", day.isoformat(), "--server", arena.url)
    code, out, err = await run(*verify)
    assert code == 1 and f"WordLink draw=1,scoring=standard: {UNCONFIRMED}" in out, "first seen by the run above"

    kept = Commitments.of_server(arena.url)
    kept.kept.clear()
    kept.see([deal for deal in (await _daily(arena, day)).deals], record.committed_ms)
    kept.save()
    code, out, err = await run(*verify)
    assert code == 0 and "WordLink draw=1,scoring=standard: verified: variant and options" in out, (out, err)

    wrong_line = DailyRecord("klondike", KLONDIKE_DRAW_1, day.isoformat(), 2, 0, DEAL_1_DRAW_1_WIN, "b" * 32, 0)
    await arena.store.put_document(RECORD_KIND, wrong_line.key, asdict(wrong_line))
    code, out, _ = await run(*verify)
    assert code == 1 and "of the winning line is illegal" in out, out


async def _daily(arena: RestartableServer, day: date) -> tc.DailyInfo:
    async with ArenaClient(arena.url, identify=False) as client:
        return await client.daily(day, "klondike")


async def test_arena_daily_verify_fails_on_a_day_with_nothing_to_check(arena: RestartableServer) -> None:
    day = datetime.now(timezone.utc).date() - timedelta(days=5)
    code, out, _ = await run("-m", "server.cli", "daily", "--verify", "--date", day.isoformat(), "--server", arena.url)
    assert code == 1 and "nobody played that day" in out, out
