"""Running the ``arena`` command line (or an example script) as a real
subprocess: all at once (``run``) or line by line as it goes (``Running``).

Each program keeps the players it makes in a configuration directory of
its own (``XDG_CONFIG_HOME``, made inside the test's own), as if run by a
person of its own: two racers started by one test are two players, as
they were before the client kept players.  A test of what is kept passes
one ``config_home`` to every run that should share it."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
import tempfile
from pathlib import Path
from typing import Awaitable, Callable

from tests.client.arena_restart import REPO_ROOT

# Both only bound a hang, so they are generous: a passing run never waits
# for them.  A program whose run takes as long as the machine makes it
# (an example bot playing a whole game by hints searched in its own
# process: over 60 s at load 20 on 2 cores) is waited for while it makes
# progress (``Running.finish``), each step bounded, never the whole.
RUN_SECONDS = 180
WAIT_SECONDS = 60

Progress = Callable[[], Awaitable[object]]
"""Something that changes while a program is getting on (a bot's moves)."""


def _ctrl_c_as_from_a_terminal() -> None:
    """Give the program the default SIGINT, as a shell in a terminal does.
    A signal ignored in the test process (some runner or earlier test may
    leave it so) stays ignored across exec, and Python keeps it ignored:
    the program would then be deaf to the Ctrl-C a test sends it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Running:
    """A CLI subprocess whose output is read line by line as it comes."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []

    @classmethod
    async def start(cls, *arguments: str, config_home: Path | None = None) -> Running:
        """``python ARGUMENTS`` in the repository, its three streams piped."""
        process = await asyncio.create_subprocess_exec(
            sys.executable, *arguments, cwd=REPO_ROOT, env=environment(config_home),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            preexec_fn=_ctrl_c_as_from_a_terminal,
        )
        return cls(process)

    async def expect(self, pattern: str) -> re.Match[str]:
        """Read lines until one matches ``pattern``; its match."""
        assert self.process.stdout is not None
        raw: bytes | None = None
        try:
            async with asyncio.timeout(WAIT_SECONDS):
                while raw := await self.process.stdout.readline():
                    line = raw.decode().rstrip("\n")
                    self.lines.append(line)
                    if found := re.search(pattern, line):
                        return found
        except TimeoutError:
            pass
        ended = self.process.returncode is not None or raw == b""
        errors = ""
        if ended and self.process.stderr is not None:
            errors = "\nit ended; its standard error:\n" + (await self.process.stderr.read()).decode()[-8000:]
        raise AssertionError(f"no line matched {pattern!r}; the output so far:\n" + "\n".join(self.lines) + errors)

    async def send(self, *lines: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("".join(line + "\n" for line in lines).encode())
        await self.process.stdin.drain()

    async def finish(self, progress: Progress | None = None) -> tuple[int, list[str]]:
        """Wait for the program to end by itself; its exit code and every
        line.  With ``progress`` (say, the moves a bot has made), however
        long that takes while what ``progress`` returns keeps changing: a
        bot's game on a loaded machine takes what it takes, and only
        ``WAIT_SECONDS`` without a change is a hang.  Without it,
        ``WAIT_SECONDS`` bounds the whole wait."""
        ending = asyncio.ensure_future(self.process.communicate())
        last = None if progress is None else await progress()
        while not (await asyncio.wait({ending}, timeout=WAIT_SECONDS))[0]:
            now = None if progress is None else await progress()
            if progress is None or now == last:
                self.process.send_signal(signal.SIGABRT)
                out, err = await ending
                raise AssertionError(
                    f"no progress in {WAIT_SECONDS} s (still at {now!r}); the output so far:\n"
                    + "\n".join(self.lines + out.decode().splitlines())
                    + "\nwhere each of its threads was (faulthandler, on SIGABRT):\n" + err.decode()[-8000:]
                )
            last = now
        out, err = ending.result()
        self.lines += out.decode().splitlines()
        assert self.process.returncode is not None, err.decode()
        return self.process.returncode, self.lines


def environment(config_home: Path | None) -> dict[str, str]:
    """This process's environment with ``config_home`` as the program's
    ``XDG_CONFIG_HOME``, or a new directory of its own; with Python's
    faulthandler on, so that a program that hangs says where when
    ``Running.finish`` aborts it."""
    if config_home is None:
        shared = os.environ.get("XDG_CONFIG_HOME")
        if shared is not None:
            Path(shared).mkdir(parents=True, exist_ok=True)
        config_home = Path(tempfile.mkdtemp(prefix="program-", dir=shared))
    return {**os.environ, "XDG_CONFIG_HOME": str(config_home), "PYTHONFAULTHANDLER": "1"}


async def run(*command: str, stdin: str = "", config_home: Path | None = None) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *command,
        cwd=REPO_ROOT,
        env=environment(config_home),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(stdin.encode()), RUN_SECONDS)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()
