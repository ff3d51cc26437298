"""The JavaScript SDK (client/web/js/sdk.js) in Node against a real
server: the example bot plays a numbered deal to a result, a player and a
watcher come back from a server restart with fresh snapshots, and the
bot of docs/sdk.md runs as written."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from tests.client.arena_cli import RUN_SECONDS, WAIT_SECONDS
from tests.client.arena_restart import REPO_ROOT, RestartableServer
from tests.client.node_sdk import start_node

GAME_ID = re.compile(r"\bg_[A-Za-z0-9_-]+")


async def test_the_node_example_bot_plays_a_numbered_deal_to_a_result(arena: RestartableServer) -> None:
    bot = await start_node("examples/bot.mjs", arena.url, "klondike", "--deal", "7", "--moves", "60")
    out, err = await asyncio.wait_for(bot.communicate(), RUN_SECONDS)
    lines = out.decode().splitlines()
    assert bot.returncode == 0, lines + err.decode().splitlines()
    started = re.fullmatch(rf"playing WordLink ({GAME_ID.pattern}), deal 7", lines[0])
    assert started is not None, lines
    played = [line.split(": ", 1)[1] for line in lines if re.match(r"move \d+: ", line)]
    result = re.fullmatch(r"(won|resigned|lost): (\d+) moves in \d+\.\d s", lines[-1])
    assert result is not None, lines
    assert int(result.group(2)) == len(played) <= 60

    loaded = await arena.store.load_session(started.group(1))
    assert loaded is not None
    header, log = loaded
    assert header.bot and header.deal == 7 and header.status == result.group(1)
    assert [action.text for action in log if action.kind == "move"] == played, "every move the bot printed, in order"


async def test_a_player_and_a_watcher_come_back_from_a_restart_with_fresh_snapshots(arena: RestartableServer) -> None:
    """The server stays down until the player's next attempt finds nobody
    (a refused TCP connection, its admission check unanswered), then comes
    back on the same port with the same store."""
    script = await start_node("tests/client/sdk_reconnect.mjs", arena.url)
    stdout = script.stdout
    assert stdout is not None

    async def line() -> str:
        raw = await asyncio.wait_for(stdout.readline(), WAIT_SECONDS)
        if not raw:
            _, err = await script.communicate()
            raise AssertionError(f"the script ended early: {err.decode()[-4000:]}")
        return raw.decode().rstrip("\n")

    async def news() -> str:
        """The next line that is not a failed attempt's: those go on until the restart is seen."""
        while (said := await line()).startswith("offline "):
            pass
        return said

    try:
        ready = (await line()).split()
        assert ready[0] == "ready" and ready[2:] == ["1", "1"], ready
        await arena.stop()
        assert re.fullmatch(r"offline 10\d\d -", await line()), "the server's close, then at once an attempt"
        while (attempt := await line()) != "offline 1006 unreachable":
            assert attempt.startswith("offline "), attempt
        await arena.start()
        assert await news() == "same player true"
        assert await news() == "player snapshot 1", "the server's snapshot of the player's live game, after its welcome"
        assert await news() == "watcher snapshot 1", "the watched game is watched again"
        assert await news() == "watcher saw 2 true", "the diff after the restart reaches the watcher's view, the same as the player's"
        assert await news() == "closed"
        await asyncio.wait_for(script.wait(), WAIT_SECONDS)
    finally:
        if script.returncode is None:
            script.kill()
    assert script.returncode == 0


async def test_the_complete_bot_of_the_sdk_docs_runs_as_written(arena: RestartableServer, tmp_path: Path) -> None:
    """docs/sdk.md's example, with its import pointed at this repository's
    SDK and its address at the test's server."""
    text = (REPO_ROOT / "docs" / "sdk.md").read_text()
    section = text[text.index("## A complete bot"):]
    example = re.search(r"```js\n(.*?)```", section, re.DOTALL)
    assert example is not None, "docs/sdk.md has no example under 'A complete bot'"
    sdk = (REPO_ROOT / "client" / "web" / "js" / "sdk.js").as_uri()
    script = tmp_path / "tiny-bot.mjs"
    script.write_text(example.group(1).replace('"./js/sdk.js"', f'"{sdk}"').replace("ws://127.0.0.1:8765/ws", arena.url))
    bot = await start_node(str(script))
    out, err = await asyncio.wait_for(bot.communicate(), RUN_SECONDS)
    assert bot.returncode == 0, out.decode() + err.decode()
    assert re.fullmatch(r"(won|resigned) after \d+ moves\n", out.decode()), out.decode()


async def test_a_refused_request_rejects_with_the_servers_stable_code(arena: RestartableServer) -> None:
    bot = await start_node("examples/bot.mjs", arena.url, "nosuchgame", "--deal", "1")
    out, err = await asyncio.wait_for(bot.communicate(), RUN_SECONDS)
    assert bot.returncode == 1, out.decode() + err.decode()
    assert err.decode().startswith("error: unknown game 'nosuchgame'") and err.decode().endswith(" [unknown_game]\n"), err.decode()
