"""The operator's log: ``arena serve --log-level/--log-format`` writes a
start-up line and one line per connection opened and closed to standard
error; the terminal client prints the library's warnings as its own lines.

A real ``arena serve`` process and a real WebSocket client: the log is
what an operator would read.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import signal
import sys
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from client.terminal import Console, run
from server.runtime.version import arena_version
from server.commands.serve import store_text

ROOT = Path(__file__).resolve().parents[2]


async def _serve_and_connect_once(*flags: str) -> list[str]:
    """Start a server, open and close one connection, stop it; its log lines."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", "--memory", "--port", "0", *flags,
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        ready = (await asyncio.wait_for(process.stdout.readline(), 60)).decode()
        url = ready.removeprefix("arena: listening on ").strip()
        async with connect(url, subprotocols=[Subprotocol("arena.v1.json")]) as websocket:
            await websocket.send(json.dumps({"type": "ping", "id": 1}))
            await websocket.recv()
        process.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(process.communicate(), 60)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, err.decode()
    return err.decode().splitlines()


async def test_serve_logs_its_start_and_each_connection_with_time_level_and_logger() -> None:
    lines = await _serve_and_connect_once("--log-level", "info")
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
    start = [line for line in lines if "listening on" in line]
    assert len(start) == 1, lines
    assert re.match(rf"^{stamp} INFO arena\.serve: arena {re.escape(arena_version())} listening on ws://\S+, store in memory$", start[0])
    assert any(re.match(rf"^{stamp} INFO arena\.app: connection \w+ opened from ", line) for line in lines), lines
    assert any(re.match(rf"^{stamp} INFO arena\.app: connection \w+ closed with code 1000$", line) for line in lines), lines


async def test_serve_logs_json_lines_and_leaves_info_out_at_warning() -> None:
    assert await _serve_and_connect_once("--log-level", "warning") == []
    records = [json.loads(line) for line in await _serve_and_connect_once("--log-format", "json")]
    assert {"time", "level", "logger", "message"} <= set(records[0])
    assert any(record["logger"] == "arena.app" and "closed with code 1000" in record["message"] for record in records)


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
