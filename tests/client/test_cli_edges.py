"""The terminal client's small words: a count of one is singular, a board
fits 80 columns, ``arena watch`` tells nobody to type, news that comes
while the prompt waits leaves the prompt under it, a request that gets no
answer says so in words, the connection's drop and return are told, and
``arena prepare-dailies`` refuses a store that would be thrown away."""

from __future__ import annotations

import asyncio
import io
import os
import re
from pathlib import Path

import pytest

import engine
from client import ArenaClient, RequestTimeout
from client.board import WIDTH, counted, game_over_text, render
from client.mirror import GameMirror
from client.notices import close_text
from client.race_terminal import RACE_HELP, RaceSession
from client.race_text import racer_line
from client.console import PROMPT, Console, InputLines
from client.terminal import HELP
from protocol import to_client as tc
from server.runtime.exits import EXIT_USAGE
from tests.client.arena_cli import Running, run
from tests.client.arena_restart import RestartableServer, ServerFactory

HOUR_MS = 3_600_000


def test_a_count_of_one_is_singular() -> None:
    assert (counted(1, "move"), counted(0, "move"), counted(2, "move")) == ("1 move", "0 moves", "2 moves")
    over = tc.GameOver(game_id="g_1", result="resigned", moves=1, time_ms=5_000, score=None, deal=3, counters={})
    assert "after 1 move in 0:05" in game_over_text(over)
    racer = tc.Racer(
        player_id="p_1", name="ann", game_id=None, state="playing", ranked=False, moves=1, foundation=0, counters={},
        elapsed_ms=0,
    )
    assert re.search(r" 1 move +0 on foundations", racer_line(racer))
    racer2 = racer.model_copy(update={"moves": 12})
    assert racer_line(racer).index("on foundations") == racer_line(racer2).index("on foundations"), "columns stay aligned"


def mirror_of(game_id: str, legal: int = 0) -> GameMirror:
    """A mirror holding a fresh deal of ``game_id`` as a snapshot would,
    with the longest values its header can show."""
    game = engine.new_game(game_id, 3)
    mirror = GameMirror("g_" + "W" * 12)
    mirror.ready, mirror.game, mirror.title, mirror.seq = True, game_id, game.title, 9999
    mirror.view, mirror.status = game.view(), "abandoned"
    mirror.counters = {name: 9999 for name in game.counters}
    mirror.score = -99999 if game.HAS_SCORE else None
    mirror.clock = tc.Clock(started_ms=0, finished_ms=None, elapsed_ms=99 * HOUR_MS)
    mirror.legal = [f"t{number}-t{number + 1}" for number in range(legal)] if legal else None
    return mirror


@pytest.mark.parametrize("game_id", list(engine.GAMES))
def test_a_boards_header_and_settings_fit_80_columns(game_id: str) -> None:
    lines = render(mirror_of(game_id)).splitlines()
    pile_names = set(engine.new_game(game_id, 3).view()["piles"])
    heading = [line for line in lines if line.split(" ", 1)[0] not in pile_names | {"foundations"}]
    assert heading and all(len(line) <= WIDTH for line in heading), "\n".join(heading)
    assert "seq 9999" in heading[0] and any("moves 9999" in line for line in heading)


def test_the_help_fits_80_columns() -> None:
    long = [line for line in (HELP + "\n" + RACE_HELP).splitlines() if len(line) > WIDTH]
    assert not long, long


def test_a_watched_board_shows_its_legal_moves_without_asking_to_type() -> None:
    game = mirror_of("klondike", legal=20)
    assert "(+4 more: type legal)" in render(game)
    watched = render(game, typing=False)
    assert "(+4 more)" in watched and "type" not in watched


async def test_news_while_the_prompt_waits_is_written_above_a_new_prompt() -> None:
    out = io.StringIO()
    console = Console(out)
    console.say("board")
    console.prompt()
    console.say("» bob playing")
    assert out.getvalue() == f"board\n{PROMPT}\n» bob playing\n{PROMPT}"
    console.answered()
    console.say("moved")
    assert out.getvalue().endswith(f"{PROMPT}moved\n"), "a reply to a typed line comes on the next line as it is"


class Screen(io.StringIO):
    """A console's output that can be waited on."""

    def __init__(self) -> None:
        super().__init__()
        self.written = asyncio.Event()

    def write(self, text: str) -> int:
        self.written.set()
        return super().write(text)

    async def until(self, pattern: str) -> re.Match[str]:
        async with asyncio.timeout(60):
            while (found := re.search(pattern, self.getvalue(), re.DOTALL)) is None:
                self.written.clear()
                await self.written.wait()
        return found


async def test_the_race_board_that_comes_after_go_ends_with_a_prompt(arena_factory: ServerFactory) -> None:
    arena = await arena_factory(race_countdown_seconds=0.3)
    screen = Screen()
    reading, writing = os.pipe()
    async with ArenaClient(arena.url, name="ann") as ann, ArenaClient(arena.url, name="bob") as bob:
        race = await ann.create_race("klondike", {"draw": 1}, deal=1)
        followed = await bob.join_race(race.code or "")
        with open(reading, encoding="utf-8") as stream, open(writing, "w", encoding="utf-8") as feed:
            session = asyncio.create_task(RaceSession(bob, followed, Console(screen)).run(InputLines(stream), True))
            await screen.until(f"waiting for ann to start\n{PROMPT}$")
            await ann.start_race(race.race_id)
            board = await screen.until(r"\ngo!\n(.*)$")
            assert board.group(1).endswith(PROMPT), "the board after go! is followed by a prompt"
            assert "t7" in board.group(1)
            feed.write("quit\n")
            feed.flush()
            assert await session == 0


async def test_a_request_with_no_answer_says_which_in_words(arena: RestartableServer) -> None:
    async with ArenaClient(arena.url, identify=False, timeout=0.2, message_filter=lambda m: m.type != "daily_info") as c:
        with pytest.raises(RequestTimeout) as waited:
            await c.daily()
    assert str(waited.value) == "the server did not answer the daily request within 0.2 s"


def test_a_close_code_is_told_in_words() -> None:
    assert close_text(1012, "server restarting") == "the server is restarting (1012)"
    assert close_text(1006, "") == close_text(None, "") == "the connection dropped"
    assert close_text(1008, "too many messages") == "the server closed it (1008: too many messages)"


async def test_arena_play_tells_the_connection_dropping_and_coming_back(arena: RestartableServer) -> None:
    terminal = await Running.start("-m", "server.cli", "play", "klondike", "--deal", "5", "--server", arena.url)
    try:
        await terminal.expect(r"^legal: ")
        await arena.stop()
        await terminal.expect(r"^connection lost: the server is restarting \(1012\); reconnecting\.\.\.$")
        await arena.start()
        await terminal.expect(r"^reconnected: back in step with the server$")
        await terminal.send("draw", "quit")
        code, lines = await terminal.finish()
    finally:
        if terminal.process.returncode is None:
            terminal.process.kill()
    assert code == 0, lines
    assert any(re.fullmatch(r".*moves 1\b.*", line) for line in lines), "the game goes on after the reconnection"


@pytest.mark.parametrize("memory", [["--memory"], ["ARENA_REDIS_URL=none"]], ids=["flag", "environment"])
async def test_prepare_dailies_refuses_to_keep_its_deals_nowhere_before_any_work(
    memory: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store in memory and no data directory: nothing outlives the command."""
    monkeypatch.setenv("ARENA_DATA_DIR", "none")
    arguments = [word for word in memory if word.startswith("--")]
    for setting in set(memory) - set(arguments):
        monkeypatch.setenv(*setting.split("=", 1))
    code, out, err = await run("-m", "server.cli", "prepare-dailies", "--date", "2026-03-20", *arguments)
    assert code == EXIT_USAGE and out == "", err
    assert "nothing would keep the deals" in err and "no server would ever use them" in err and "--data" in err


async def test_prepare_dailies_in_memory_says_its_deals_are_kept_in_the_data_directory(tmp_path: Path) -> None:
    code, out, err = await run("-m", "server.cli", "prepare-dailies", "--memory", "--data", str(tmp_path), "--date", "2026-03-20")
    assert code == 0, err
    assert f"kept in the data directory {tmp_path};" in err and "store" not in err.splitlines()[-1].split(";")[0]
    assert (tmp_path / "daily" / "2026-03-20").is_dir()
