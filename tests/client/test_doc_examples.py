"""The README's and docs/client.md's examples run as written.

Every Python example that is a whole program (it calls ``asyncio.run``)
runs against a real server, its URL the only change; every shell command
(a line of a ``sh`` block, or one after ``$ `` in a transcript) runs as a
subprocess with ``ARENA_SERVER`` pointing at that server, one kept player
shared by the commands as a person's would be; and the transcript of
``arena play`` fed by a pipe matches, line for line, what the command
prints.  An example that cannot run here is named in ``CANNOT_RUN`` or
``FRAGMENTS`` with the reason and the test that covers it instead, so a
new example is either run or explained."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.client.arena_cli import run
from tests.client.arena_restart import REPO_ROOT, RestartableServer
from tests.races.arena_races import pin_daily_deal

DOCS = (REPO_ROOT / "README.md", REPO_ROOT / "docs" / "client.md")
DEFAULT_URL = "ws://127.0.0.1:8765/ws"
DEFAULT_HTTP = "http://127.0.0.1:8765/"
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)

CANNOT_RUN = {
    r"^pip install": "installs the package: the suite runs in the tree it installed",
    r"^python -m pytest": "the test suite itself",
    r"^arena serve": "starts a server on the default port: this test runs its own (tests/server/test_server_shutdown.py starts arena serve)",
    r"^arena prepare-dailies|^arena backup|^arena export": "an operator's store: tests/storage/test_prepare_store.py, test_default_store.py and test_transfer.py run them",
    r"^arena race (create|join)": "waits at its prompt for the other racers: tests/client/test_terminal_races.py races from the terminal",
    r"^arena analyse g_": "needs a finished game's id: tests/client/test_terminal_and_bot.py analyses one",
    r"^arena challenge": "needs a friend who is online: tests/client/test_cli_friends.py challenges one",
    r"^arena daily --verify": "needs a revealed day: tests/client/test_daily_verify.py verifies one",
    r"^python examples/bot\.py": "plays a whole game by hints, minutes on a loaded machine: tests/client/test_terminal_and_bot.py runs it",
    r"^python bench/": "a benchmark: minutes of load, not a check",
    r"^node examples/bot\.mjs": "needs node (and --experimental-websocket before Node 22): tests/client/test_js_sdk.py runs it",
}
"""Shell commands that do not run here, by a pattern of the command, and why."""

REFUSED_HERE = {
    "arena stats --share": (
        "you have no ended ranked attempt",
        "the daily attempt arena play left open is still being played, and docs/client.md says the share waits for its end",
    ),
}
"""Commands that run and are refused as documented, given the commands
before them: the sentence expected, and why."""

FRAGMENTS = {
    "seen = game.seq": "the body of an async function with a game: tests/client/test_client_requests.py",
    "game = await spectator.watch(game_id)": "the body of an async function watching a game: tests/client/test_client_mirror.py",
    "async with ArenaClient(url, name=\"ann\") as ann,": "the body of an async function: tests/client/test_client_races.py",
    "info = await client.daily(game=\"klondike\", ready=True)": "the body of an async function: tests/client/test_client_requests.py",
}
"""Python examples that are parts of a program, by their first line, and where their behaviour is tested."""


def blocks(language: str, docs: tuple[Path, ...] = DOCS) -> list[tuple[Path, str]]:
    return [(doc, body) for doc in docs for kind, body in BLOCK.findall(doc.read_text(encoding="utf-8")) if kind == language]


def shell_commands(doc: Path) -> list[str]:
    """Each command of ``doc``'s ``sh`` blocks, then each ``$ `` line of its transcripts."""
    commands = [line for _, body in blocks("sh", (doc,)) for line in body.splitlines()]
    commands += [line[2:] for _, body in blocks("", (doc,)) for line in body.splitlines() if line.startswith("$ ")]
    return [command.split("  #")[0].strip() for command in commands if command.strip() and not command.startswith("#")]


def reason_not_run(command: str) -> str | None:
    return next((why for pattern, why in CANNOT_RUN.items() if re.search(pattern, command)), None)


@pytest.fixture
async def daily_arena(arena: RestartableServer) -> RestartableServer:
    """A server whose daily WordLink deal (draw 3) is fixed, so that no
    example waits for a proof."""
    today = datetime.now(timezone.utc).date()
    for variant in ("draw=1,scoring=standard", "draw=3,scoring=standard"):
        await pin_daily_deal(arena.store, today, variant=variant)
    return arena


async def test_every_python_example_that_is_a_program_runs(daily_arena: RestartableServer, tmp_path: Path) -> None:
    programs = []
    for doc, body in blocks("python"):
        first = body.splitlines()[0]
        if "asyncio.run(" in body:
            programs.append((doc, body.replace(DEFAULT_URL, daily_arena.url)))
        else:
            assert any(first.startswith(start) for start in FRAGMENTS), f"{doc.name}: an example neither run nor explained: {first}"
    assert programs, "the docs have whole programs"
    for doc, program in programs:
        code, out, err = await run("-c", program, config_home=tmp_path)
        assert code == 0, f"{doc.name}'s example failed:\n{program}\n{out}\n{err}"


async def test_every_shell_command_runs_or_says_why_not(
    daily_arena: RestartableServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each document's commands in its order, as one reader of it would
    type them: one kept player per document, the documents' readers at
    the same time (each command is a process that mostly waits on its
    start and the server)."""
    monkeypatch.setenv("ARENA_SERVER", daily_arena.url)

    async def read_through(doc: Path) -> list[str]:
        ran = []
        for command in shell_commands(doc):
            if reason_not_run(command) is not None or "|" in command:
                continue
            words = shlex.split(command)
            if words[:2] == ["curl", "-s"] and len(words) == 3:
                await fetch_as_curl_would(words[2], daily_arena.url)
                ran.append(command)
                continue
            assert words[0] == "arena", f"{doc.name}: a command neither run nor explained: {command}"
            code, out, err = await run("-m", "server.cli", *words[1:], config_home=tmp_path / doc.stem)
            refused, _ = REFUSED_HERE.get(command, (None, None))
            if refused is None:
                assert code == 0, f"{command}\n{out}\n{err}"
            else:
                assert code == 1 and refused in out, f"{command}\n{out}\n{err}"
            ran.append(command)
        return ran

    ran = [command for commands in await asyncio.gather(*map(read_through, DOCS)) for command in commands]
    assert {"arena play klondike --deal daily --draw 3", "arena leaderboard klondike --draw 3", "arena devices link"} <= set(ran)
    assert any(command.startswith("curl") for command in ran), "the README's HTTP API example ran"


async def fetch_as_curl_would(url: str, server_url: str) -> None:
    """A documented ``curl -s URL`` of the HTTP API, asked of the test's
    server instead of the default address: it must answer 200 with JSON."""
    assert url.startswith(DEFAULT_HTTP), f"an HTTP example away from the default server: {url}"
    here = server_url.replace("ws://", "http://", 1).removesuffix("ws") + url.removeprefix(DEFAULT_HTTP)
    with await asyncio.to_thread(urllib.request.urlopen, here, timeout=30) as answer:
        assert answer.status == 200, url
        json.loads(answer.read())


async def test_the_piped_game_prints_what_its_transcript_shows(arena: RestartableServer, tmp_path: Path) -> None:
    text = (REPO_ROOT / "docs" / "client.md").read_text(encoding="utf-8")
    transcript = re.search(r"^\$ (printf '([^']*)' \| arena (play [^\n]*))\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    assert transcript is not None
    _, typed, command, shown = transcript.groups()
    code, out, err = await run(
        "-m", "server.cli", *shlex.split(command), "--server", arena.url, stdin=typed.encode().decode("unicode_escape"),
        config_home=tmp_path,
    )
    assert code == 0, err
    printed = iter(same_ids(out).splitlines())
    for line in same_ids(shown).splitlines():
        if line == "..." or line.endswith("--token …"):
            continue
        assert line in printed, f"the transcript's line {line!r} is not printed in its place:\n{out}"


def same_ids(text: str) -> str:
    """``text`` with its game ids written alike, since each run makes its
    own.  An id may end with ``-``, after which a ``\\b`` finds no word's
    end: the id's end is where its characters stop."""
    return re.sub(r"\bg_[\w-]{12}(?![\w-])", "g_ID", text)


def test_game_ids_are_written_alike_whatever_character_ends_them() -> None:
    assert same_ids("new WordLink game g_xiYo1mSTkRE-, number deal") == "new WordLink game g_ID, number deal"
    assert same_ids("resume g_H_Yc7xKoITCE --token") == "resume g_ID --token"


def test_the_shell_reader_finds_commands_and_their_reasons() -> None:
    client_doc = REPO_ROOT / "docs" / "client.md"
    assert "arena devices link" in shell_commands(client_doc) and "arena serve &" in shell_commands(client_doc)
    assert reason_not_run("arena serve &") is not None and reason_not_run("arena daily") is None
