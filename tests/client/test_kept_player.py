"""The terminal client remembers who you are: ``arena`` commands run as
real subprocesses against real servers, sharing one configuration
directory (``XDG_CONFIG_HOME``) the way one person's runs do."""

from __future__ import annotations

import json
import re
import signal
import stat
from pathlib import Path

import pytest

from tests.client.arena_cli import Running, run
from tests.client.arena_restart import RestartableServer, ServerFactory

from client import ArenaClient
from client.identity import KeptPlayer, Players, server_key

GAME_ID = re.compile(r"\bg_[A-Za-z0-9_-]+")


@pytest.fixture
def config_home(tmp_path: Path) -> Path:
    return tmp_path / "config"


def kept_files(config_home: Path) -> list[Path]:
    return sorted((config_home / "solitaire-arena" / "players").glob("*.json"))


async def cli(config_home: Path, *arguments: str, stdin: str = "") -> tuple[int, str]:
    code, out, err = await run("-m", "server.cli", *arguments, stdin=stdin, config_home=config_home)
    assert "Traceback" not in err, err
    return code, out


def test_a_server_is_known_by_its_url_written_one_way() -> None:
    assert server_key("ws://LocalHost/ws") == server_key("ws://localhost:80/ws") == "ws://localhost:80/ws"
    assert server_key("wss://example.org") == "wss://example.org:443/"
    assert server_key("ws://[::1]:8765/ws") == "ws://[::1]:8765/ws"
    assert server_key("ws://example.org/ws") != server_key("ws://example.org/other")


async def test_the_first_run_keeps_the_player_and_the_next_runs_are_that_player(
    arena: RestartableServer, config_home: Path
) -> None:
    code, out = await cli(config_home, "play", "chequers", "--name", "ann", "--server", arena.url, stdin="resign\n")
    assert code == 0 and "game over: resigned" in out, out
    [kept_file] = kept_files(config_home)
    assert stat.S_IMODE(kept_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept_file.parent.stat().st_mode) == 0o700
    kept = json.loads(kept_file.read_text())
    assert kept["server"] == server_key(arena.url) and kept["name"] == "ann"

    code, out = await cli(config_home, "records", "--server", arena.url)
    assert code == 0, out
    assert out.splitlines()[0] == f"records of ann ({kept['player_id']})"
    assert re.search(r"^  Chequers \S+: 0/1 won", out, re.MULTILINE), out

    code, out = await cli(config_home, "play", "chequers", "--server", arena.url, stdin="quit\n")
    assert code == 0 and f"--token={kept['token']}" in out, out
    assert len(kept_files(config_home)) == 1 and json.loads(kept_file.read_text()) == kept


async def test_a_token_given_wins_over_the_kept_one_and_is_not_kept(
    arena: RestartableServer, config_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await cli(config_home, "play", "chequers", "--name", "ann", "--server", arena.url, stdin="quit\n")
    async with ArenaClient(arena.url, name="bob") as bob:
        token = bob.token
    assert token is not None
    code, out = await cli(config_home, "records", f"--token={token}", "--server", arena.url)
    assert code == 0 and out.startswith("records of bob "), out
    monkeypatch.setenv("ARENA_TOKEN", token)
    code, out = await cli(config_home, "records", "--server", arena.url)
    assert code == 0 and out.startswith("records of bob "), out
    [kept_file] = kept_files(config_home)
    assert json.loads(kept_file.read_text())["name"] == "ann"


async def test_ctrl_c_after_hello_keeps_the_player_and_its_open_game(
    arena: RestartableServer, config_home: Path
) -> None:
    terminal = await Running.start(
        "-m", "server.cli", "play", "klondike", "--deal", "5", "--server", arena.url, config_home=config_home
    )
    game_id = (await terminal.expect(rf"^new WordLink game ({GAME_ID.pattern}),")).group(1)
    terminal.process.send_signal(signal.SIGINT)
    code, lines = await terminal.finish()
    assert code == 130, lines
    code, out = await cli(
        config_home, "play", "klondike", "--resume", game_id, "--server", arena.url, stdin="resign\n"
    )
    assert code == 0 and "game over: resigned after 0 moves" in out, out


async def test_logout_forgets_the_player_and_prints_how_to_come_back(
    arena: RestartableServer, config_home: Path
) -> None:
    await cli(config_home, "play", "chequers", "--name", "ann", "--server", arena.url, stdin="quit\n")
    [kept_file] = kept_files(config_home)
    kept = json.loads(kept_file.read_text())
    code, out = await cli(config_home, "logout", "--server", arena.url)
    expected = f"forgot ann ({kept['player_id']}) on {kept['server']}; to be them again: arena login --server {arena.url} --token={kept['token']}"
    assert code == 0 and out.strip() == expected, out
    assert kept_files(config_home) == []
    code, out = await cli(config_home, "records", "--server", arena.url)
    assert code == 2 and "needs --token" in out, out
    code, out = await cli(config_home, "logout", "--server", arena.url)
    assert code == 0 and out.strip() == f"no player is kept for {kept['server']}"

    code, out = await cli(config_home, "login", f"--token={kept['token']}", "--server", arena.url)
    assert code == 0 and out.startswith(f"you are ann ({kept['player_id']}) on {kept['server']}, kept in "), out
    code, out = await cli(config_home, "records", "--server", arena.url)
    assert code == 0 and out.startswith(f"records of ann ({kept['player_id']})"), out
    async with ArenaClient(arena.url, name="bob") as bob:
        token = bob.token
    code, out = await cli(config_home, "login", f"--token={token}", "--server", arena.url)
    assert code == 1 and "ann" in out and "arena logout" in out, out
    code, out = await cli(config_home, "logout", "--server", arena.url)
    code, out = await cli(config_home, "login", "--token=nobody-has-this-token", "--server", arena.url)
    assert code == 1 and "[bad_token]" in out and kept_files(config_home) == [], out


async def test_two_servers_keep_two_players(arena_factory: ServerFactory, config_home: Path) -> None:
    first, second = await arena_factory(), await arena_factory()
    for server, name in ((first, "ann"), (second, "bea")):
        code, out = await cli(config_home, "play", "chequers", "--name", name, "--server", server.url, stdin="quit\n")
        assert code == 0, out
    assert len(kept_files(config_home)) == 2
    for server, name in ((first, "ann"), (second, "bea")):
        code, out = await cli(config_home, "records", "--server", server.url)
        assert code == 0 and out.startswith(f"records of {name} "), out


async def test_a_kept_token_the_server_refuses_is_an_error_and_makes_no_new_player(
    arena_factory: ServerFactory, config_home: Path
) -> None:
    """The server may create one player per hour for this address: had the
    client made one over the refused token, the library's could not; the
    next new player is refused, and the refusal says no token is kept."""
    wiped, other = await arena_factory(identities_per_hour=1), await arena_factory()
    async with ArenaClient(other.url, name="ann") as ann:
        assert ann.token is not None and ann.player_id is not None
        stale = KeptPlayer(server_key(wiped.url), ann.token, ann.player_id, "ann")
    players = Players(config_home / "solitaire-arena" / "players")
    assert players.keep(stale) and not players.keep(stale)

    code, out = await cli(config_home, "play", "chequers", "--server", wiped.url, stdin="quit\n")
    assert code == 1, out
    assert out.startswith(f"error: the server does not know the player kept for it, ann ({ann.player_id}) in "), out
    assert "[bad_token]; no new player was made over it" in out
    assert f"arena logout --server {wiped.url} forgets the kept token" in out
    assert players.get(wiped.url) == stale

    async with ArenaClient(wiped.url, name="first") as first:
        assert first.player_id is not None
    players.forget(wiped.url)
    code, out = await cli(config_home, "play", "chequers", "--server", wiped.url, stdin="quit\n")
    assert code == 1 and "come back with your token" in out and "[too_many_identities]" in out, out
    assert f"(no token is kept for {server_key(wiped.url)} in " in out and "arena login --token=TOKEN keeps one)" in out
