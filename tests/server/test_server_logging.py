"""The operator's log: ``arena serve --log-level/--log-format`` writes a
start-up line and one line per connection opened and closed to standard
error; the terminal client prints the library's warnings as its own lines.

A real ``arena serve`` process and a real WebSocket client: the log is
what an operator would read.
"""

from __future__ import annotations

import ast
import asyncio
import json
import logging
import re
import signal
import sys
from pathlib import Path

import pytest
import uvloop
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from client.console import Console
from client.terminal import run
from server.runtime.version import arena_version
from server.commands.serve import event_loop, store_text
from server.runtime.settings import Settings
from server.runtime.logs import WEBSOCKETS_LOGGER

ROOT = Path(__file__).resolve().parents[2]


async def _serve_and_connect_once(*flags: str) -> tuple[list[str], list[str]]:
    """Start a server, fetch /healthz, open and close one connection, stop
    it; the lines it wrote on standard output and on standard error."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", "--memory", "--port", "0", *flags,
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        ready = (await asyncio.wait_for(process.stdout.readline(), 60)).decode()
        url = json.loads(ready)["url"] if ready.startswith("{") else ready.removeprefix("arena: listening on ").strip()
        host, port = url.removeprefix("ws://").split("/")[0].rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(f"GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        await reader.read()
        writer.close()
        async with connect(url, subprotocols=[Subprotocol("arena.v1.json")]) as websocket:
            await websocket.send(json.dumps({"type": "ping", "id": 1}))
            await websocket.recv()
        process.send_signal(signal.SIGTERM)
        out, err = await asyncio.wait_for(process.communicate(), 60)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, err.decode()
    return [ready.rstrip("\n"), *out.decode().splitlines()], err.decode().splitlines()


STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"


async def test_serve_logs_its_start_and_each_connection_with_time_level_and_logger() -> None:
    out, lines = await _serve_and_connect_once("--log-level", "info")
    assert out[0].startswith("arena: listening on ws://") and out[1:] == ["arena: stopped"]
    start = [line for line in lines if "listening on" in line]
    assert len(start) == 1, lines
    assert re.match(rf"^{STAMP} INFO arena\.serve: arena {re.escape(arena_version())} listening on ws://\S+, store in memory, loop uvloop$", start[0])
    opened = [match for line in lines if (match := re.match(rf"^{STAMP} INFO arena\.app: connection (\w+) \(anonymous, arena\.v1\.json\) opened from ", line))]
    closed = [match for line in lines if (match := re.match(rf"^{STAMP} INFO arena\.app: connection (\w+) \(anonymous, arena\.v1\.json\) closed with code 1000$", line))]
    assert len(opened) == len(closed) == 1, lines
    assert opened[0].group(1) == closed[0].group(1), "one connection id on its open and close lines"
    assert not any("arena.access" in line for line in lines), "the access log is opt-in"


def test_serve_runs_on_uvloop_unless_the_setting_turns_it_off() -> None:
    assert event_loop(Settings()) is uvloop.new_event_loop
    assert event_loop(Settings(uvloop=False)) is None


async def test_in_json_mode_every_line_of_every_stream_is_json_with_structured_fields() -> None:
    out, err = await _serve_and_connect_once("--log-format", "JSON", "--access-log")
    printed = [json.loads(line) for line in out]
    assert printed[0]["message"].startswith("listening on ws://") and printed[0]["url"].startswith("ws://")
    assert printed[-1]["message"] == "stopped" and all(record["logger"] == "arena.serve" for record in printed)
    records = [json.loads(line) for line in err]
    assert all({"time", "level", "logger", "message"} <= set(record) for record in records)
    assert all(record["logger"].startswith("arena.") for record in records), {record["logger"] for record in records}
    opened = [record for record in records if "opened from" in record["message"]]
    closed = [record for record in records if "closed with code" in record["message"]]
    assert len(opened) == len(closed) == 1
    assert opened[0]["connection"] == closed[0]["connection"] and opened[0]["peer"] == "127.0.0.1"
    assert closed[0]["close_code"] == 1000
    requests = [record for record in records if record["logger"] == "arena.access"]
    assert [(record["method"], record["path"], record["status"]) for record in requests] == [
        ("GET", "/healthz", 200),
        ("GET", "/ws", 101),
    ], requests
    assert all(record["duration_ms"] >= 0 and record["peer"] == "127.0.0.1" for record in requests)


async def test_levels_are_read_in_any_case_and_warning_leaves_info_out() -> None:
    out, err = await _serve_and_connect_once("--log-level", "WARNING")
    assert err == [] and out[-1] == "arena: stopped"


async def test_a_log_config_file_configures_the_log_instead_of_the_flags(tmp_path: Path) -> None:
    written = tmp_path / "arena.log"
    config = tmp_path / "logging.json"
    config.write_text(json.dumps({
        "version": 1,
        "formatters": {"short": {"format": "%(levelname)s|%(name)s|%(message)s"}},
        "handlers": {"file": {"class": "logging.FileHandler", "filename": str(written), "formatter": "short"}},
        "root": {"level": "INFO", "handlers": ["file"]},
    }))
    _, err = await _serve_and_connect_once("--log-config", str(config), "--log-format", "json")
    assert err == [], "the configured handler replaced the standard error one"
    lines = written.read_text().splitlines()
    assert any(line.startswith("INFO|arena.serve|arena ") and "listening on" in line for line in lines), lines
    assert any(line.startswith("INFO|arena.app|connection ") and line.endswith("closed with code 1000") for line in lines)


@pytest.mark.parametrize("content", ["{not json", '{"version": 1, "handlers": {"h": {"class": "no.such.Handler"}}}', None])
async def test_a_bad_log_config_is_a_usage_error_in_one_line(tmp_path: Path, content: str | None) -> None:
    config = tmp_path / "logging.json"
    if content is not None:
        config.write_text(content)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", "--memory", "--port", "0", "--log-config", str(config),
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 2 and out == b""
    assert err.decode().startswith(f"arena serve: bad setting: log_config {config}: ") and err.decode().count("\n") == 1


def test_every_logger_of_the_server_is_named_under_arena() -> None:
    """A collector routes on the logger's name: one prefix, not a module path."""
    names = {"WEBSOCKETS_LOGGER": WEBSOCKETS_LOGGER}
    found = []
    for path in sorted((ROOT / "server").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "getLogger" and node.args:
                argument = node.args[0]
                name = argument.value if isinstance(argument, ast.Constant) else names.get(ast.unparse(argument), "?")
                found.append((f"{path.relative_to(ROOT)}:{node.lineno}", str(name)))
    assert len(found) > 20
    assert [entry for entry in found if not entry[1].startswith("arena.")] == []


def test_the_terminal_client_prints_library_warnings_as_its_own_lines(capsys: pytest.CaptureFixture[str]) -> None:
    async def work(console: Console) -> int:
        logging.getLogger("arena.client").warning("the server refused the reconnection: %s", "bad token")
        logging.getLogger("arena.client").info("reconnecting failed")
        return 0

    assert run(work) == 0
    captured = capsys.readouterr()
    assert captured.out == "note: the server refused the reconnection: bad token\n" and captured.err == ""


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (None, "in memory"),
        ("redis://localhost:6379/0", "redis://localhost:6379/0"),
        ("redis://:s3cret@redis.internal:6379/2", "redis://redis.internal:6379/2"),
        ("redis+sentinel://arena:s3cret@s1:26379,s2:26379/mymaster", "redis+sentinel://s1:26379,s2:26379/mymaster"),
    ],
)
def test_the_start_up_line_names_the_store_without_its_password(url: str | None, shown: str) -> None:
    assert store_text(url) == shown
