"""The terminal client and the example bot, run as real subprocesses
against a real server, the way a person or a script would run them."""

from __future__ import annotations

import asyncio
import re
import sys
from datetime import datetime, timezone

import engine
import pytest
from tests.client.arena_cli import RUN_SECONDS, Running, run
from tests.server.arena_positions import REPAIRS, broken_deck_two_halves_left
from tests.races.arena_races import PROOF_WAIT_SECONDS, pin_daily_deal
from tests.client.arena_restart import REPO_ROOT, RestartableServer
from tests.server.arena_wire import WireClient

from client import ArenaClient
from protocol import to_client as tc
from protocol import to_server as ts
from tests.solver.positions import klondike_hearts_locked
from tests.solver.test_analysis import BLUNDER_LOG

GAME_ID = re.compile(r"\bg_[A-Za-z0-9_-]+")


async def server_snapshot(url: str, game_id: str) -> tc.Snapshot:
    raw = await WireClient.open(url)
    try:
        snapshot = await raw.request(ts.Resync, game_id=game_id)
    finally:
        await raw.close()
    assert isinstance(snapshot, tc.Snapshot)
    return snapshot


def first_pile_move(game: str, deal: int, **options: object) -> str:
    """A legal move between piles at the start of a deal, from the engine."""
    return next(str(move) for move in engine.new_game(game, deal, **options).legal_moves() if move.dst)


@pytest.mark.parametrize("wire", [[], ["--json"]], ids=["msgpack", "json"])
async def test_arena_play_takes_moves_and_commands_on_standard_input(arena: RestartableServer, wire: list[str]) -> None:
    move = first_pile_move("klondike", 5, draw=3)
    script = "\n".join(["help", move, "t1-t1", "hint", "undo", "redo", "auto t9", "quit"]) + "\n"
    code, out, err = await run(
        "-m", "server.cli", "play", "klondike", "--deal", "5", "--draw", "3", "--server", arena.url, *wire, stdin=script
    )
    assert code == 0, err
    game_id = GAME_ID.search(out)
    assert game_id is not None, out
    assert "auto SRC [N]" in out
    assert "error: a card must move to another pile [illegal_move, same_pile]" in out
    assert "error: there is no pile 't9' in WordLink [bad_notation]" in out
    assert re.search(r"^hint: \S+", out, re.MULTILINE)
    assert "foundations  fs" in out and re.search(r"^t7 +\[6\] ", out, re.MULTILINE)
    snapshot = await server_snapshot(arena.url, game_id.group())
    assert snapshot.seq == 4 and snapshot.status == "playing"
    assert snapshot.counters["moves"] == 1 and snapshot.counters["undos"] == 1
    assert snapshot.counters["redos"] == 1 and snapshot.counters["hints"] == 1
    assert snapshot.view.options["draw"] == 3


async def test_arena_play_resumes_a_game_with_the_token_and_shows_refusals(arena: RestartableServer) -> None:
    code, out, err = await run("-m", "server.cli", "play", "chequers", "--server", arena.url, stdin="quit\n")
    assert code == 0, err
    resume = re.search(r"--resume (\S+) --server (\S+) --token=(\S+)", out)
    assert resume is not None, out
    game_id, server, token = resume.groups()
    assert server == arena.url
    code, out, err = await run(
        "-m", "server.cli", "play", "chequers", "--server", arena.url, "--resume", game_id, f"--token={token}",
        stdin="restart\nresign\n",
    )
    assert code == 0, err
    assert "game over: resigned after 0 moves" in out
    assert (await server_snapshot(arena.url, game_id)).status == "resigned"

    code, out, _ = await run("-m", "server.cli", "play", "broken-deck", "--draw", "3", "--server", arena.url)
    assert code == 1 and "error: Broken Deck has no option 'draw'" in out and "[bad_option]" in out


async def test_arena_watch_prints_every_move_until_the_game_ends(arena: RestartableServer) -> None:
    async with ArenaClient(arena.url) as player:
        game = await player.new_game("klondike", deal=6)
        watcher = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server.cli", "watch", game.game_id, "--server", arena.url,
            cwd=REPO_ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        assert watcher.stdout is not None
        first = await asyncio.wait_for(watcher.stdout.readline(), RUN_SECONDS)
        assert game.game_id in first.decode() and "seq 0" in first.decode()
        await player.move(game.game_id, "draw")
        await player.move(game.game_id, "draw")
        await player.resign(game.game_id)
        out, err = await asyncio.wait_for(watcher.communicate(), RUN_SECONDS)
    assert watcher.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    events = [line for line in lines if line.startswith(("seq ", "game over"))]
    assert events == ["seq 1: move draw", "seq 2: move draw", "seq 3: resign", events[-1]]
    assert events[-1].startswith("game over: resigned after 2 moves") and events[-1].endswith("(deal 6)")


async def test_arena_watch_without_a_game_lists_the_live_games(arena: RestartableServer) -> None:
    async with ArenaClient(arena.url, name="lister") as player:
        game = await player.new_game("laras-game", deal=2)
        code, out, err = await run("-m", "server.cli", "watch", "--server", arena.url, "--json")
    assert code == 0, err
    assert re.search(rf"^{game.game_id} +Lara's Game +lister +playing$", out, re.MULTILINE)


async def test_arena_watch_of_someone_elses_secret_daily_attempt_prints_its_progress(arena: RestartableServer) -> None:
    await pin_daily_deal(arena.store, datetime.now(timezone.utc).date())
    async with ArenaClient(arena.url, name="ann") as player:
        game = await player.new_game("klondike", deal="daily", options={"draw": 1})
        code, out, err = await run("-m", "server.cli", "watch", game.game_id, "--server", arena.url)
    assert code == 0, err
    assert f"{game.game_id} is played on a deal that is secret until its reveal: playing, 0 cards home" in out, out


@pytest.mark.parametrize("game", ["klondike", "laras-game"])
async def test_the_example_bot_plays_the_daily_deal_to_a_result(arena: RestartableServer, game: str) -> None:
    """Waited for while its game's log grows (``Running.finish``): a whole
    game of hints searched in the bot's own process takes as long as the
    machine makes it.  So does the proof of the day's deal, which the bot's
    ``new_game`` waits for: the test waits for it first, as a client does
    with ``daily(ready=True)``, so that the bot's first line comes at once."""
    async with asyncio.timeout(PROOF_WAIT_SECONDS), ArenaClient(arena.url, name="early") as early:
        await early.daily(game=game, ready=True)
    bot = await Running.start("examples/bot.py", arena.url, game)
    game_id = (await bot.expect(rf"({GAME_ID.pattern}), the daily deal$")).group(1)

    async def moves() -> object:
        loaded = await arena.store.load_session(game_id)
        return None if loaded is None else len(loaded[1])

    try:
        code, lines = await bot.finish(moves)
    finally:
        if bot.process.returncode is None:
            bot.process.kill()
    assert code == 0, lines
    result = lines[-1].split(":")[0]
    assert result in ("won", "lost", "resigned")
    loaded = await arena.store.load_session(game_id)
    assert loaded is not None
    header, log = loaded
    assert header.ranked and header.bot, "the bot's first daily game is its ranked attempt, declared a bot's"
    assert header.status == result and len(log) >= 1
    assert not [action for action in log if action.kind == "hint"], "the bot hints itself from the view, the server gives none"
    assert (REPO_ROOT / "examples" / "bot.py").read_text().count("\n") < 80


async def test_arena_play_offers_finishing_and_arena_analyse_explains_a_loss(arena: RestartableServer) -> None:
    async with ArenaClient(arena.url, name="fin") as player:
        game = await player.new_game("broken-deck", position=broken_deck_two_halves_left())
        token = player.token
    terminal = await Running.start(
        "-m", "server.cli", "play", "broken-deck", "--server", arena.url, "--resume", game.game_id, f"--token={token}"
    )
    await terminal.send(*REPAIRS)
    announced = await terminal.expect("the server can finish")
    assert announced.string.strip() == "the server can finish this game (8 moves): type finish"
    await terminal.send("finish")
    code, lines = await terminal.finish()
    out = "\n".join(lines)
    assert code == 0, out
    assert re.search(r"^finished with 8 moves: r-fs ", out, re.MULTILINE), out
    assert "game over: won after 10 moves" in out

    async with ArenaClient(arena.url, name="blunder") as player:
        lost = await player.new_game("klondike", position=klondike_hearts_locked(empty_seventh=True).to_text())
        for move in BLUNDER_LOG:
            await player.move(lost.game_id, move)
        await player.resign(lost.game_id)
    code, out, err = await run("-m", "server.cli", "analyse", lost.game_id, "--server", arena.url)
    assert code == 0, err
    assert out.startswith("lost by move 5, w-t7; before it the deal could still be won: "), out
