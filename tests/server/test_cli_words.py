"""What ``arena``'s commands say to a person: a description for every
command, options in the words the terminal client uses, and a refused
port or an IPv6 address written so that the line can be acted on."""

from __future__ import annotations

import argparse
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from engine.options import option_text
from server.cli import build_parser
from server.transport.listener import host_and_port

ROOT = Path(__file__).resolve().parents[2]


def _commands(parser: argparse.ArgumentParser, path: str = "arena") -> list[tuple[str, argparse.ArgumentParser]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.append((f"{path} {name}", sub))
                found += _commands(sub, f"{path} {name}")
    return found


def test_every_command_has_a_description_and_its_help_names_nothing_outside_the_program() -> None:
    commands = _commands(build_parser())
    assert {"arena solve", "arena deals", "arena deals verify", "arena schema", "arena prepare-dailies"} <= {
        name for name, _ in commands
    }
    assert [name for name, parser in commands if not parser.description] == []
    for name, parser in commands:
        text = parser.format_help()
        assert not re.search(r"\bissue\b|TARGETS", text), f"{name} --help:\n{text}"


@pytest.mark.parametrize(("value", "shown"), [(True, "on"), (False, "off"), (None, "none"), (3, "3"), ("vegas", "vegas")])
def test_options_are_written_as_people_read_them(value: object, shown: str) -> None:
    assert option_text(value) == shown


def test_arena_solve_writes_its_options_as_the_terminal_client_does() -> None:
    solved = subprocess.run(
        [sys.executable, "-m", "server.cli", "solve", "klondike", "--deal", "1", "--budget", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    first = solved.stdout.splitlines()[0]
    assert "auto_collect=off" in first and "undo_limit=none" in first and "False" not in first, solved.stdout


def test_an_ipv6_host_is_written_in_brackets() -> None:
    assert host_and_port("::1", 8783) == "[::1]:8783"
    assert host_and_port("127.0.0.1", 8783) == "127.0.0.1:8783"


def test_a_port_in_use_is_named_in_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        served = subprocess.run(
            [sys.executable, "-m", "server.cli", "serve", "--memory", "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT, capture_output=True, text=True, timeout=120,
        )
    assert served.returncode == 1 and served.stdout == ""
    assert served.stderr == f"arena serve: cannot listen on 127.0.0.1:{port}: Address already in use\n"
