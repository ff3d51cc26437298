"""Running the ``arena`` command line (or an example script) as a real
subprocess: all at once (``run``) or line by line as it goes (``Running``)."""

from __future__ import annotations

import asyncio
import re
import sys

from tests.client.arena_restart import REPO_ROOT

# Both only bound a hang, so they are generous: a passing run never waits
# for them, while at load 20 on 2 cores the example bots (hints searched
# in the bot's own process) took over 20 s to finish a race and over 60 s
# to play Lara's Game's daily deal.
RUN_SECONDS = 180
WAIT_SECONDS = 60


class Running:
    """A CLI subprocess whose output is read line by line as it comes."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []

    @classmethod
    async def start(cls, *arguments: str) -> Running:
        """``python ARGUMENTS`` in the repository, its three streams piped."""
        process = await asyncio.create_subprocess_exec(
            sys.executable, *arguments, cwd=REPO_ROOT,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        return cls(process)

    async def expect(self, pattern: str) -> re.Match[str]:
        """Read lines until one matches ``pattern``; its match."""
        assert self.process.stdout is not None
        try:
            async with asyncio.timeout(WAIT_SECONDS):
                while raw := await self.process.stdout.readline():
                    line = raw.decode().rstrip("\n")
                    self.lines.append(line)
                    if found := re.search(pattern, line):
                        return found
        except TimeoutError:
            pass
        raise AssertionError(f"no line matched {pattern!r}; the output so far:\n" + "\n".join(self.lines))

    async def send(self, *lines: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("".join(line + "\n" for line in lines).encode())
        await self.process.stdin.drain()

    async def finish(self) -> tuple[int, list[str]]:
        """Wait for the program to end by itself; its exit code and every line."""
        out, err = await asyncio.wait_for(self.process.communicate(), WAIT_SECONDS)
        self.lines += out.decode().splitlines()
        assert self.process.returncode is not None, err.decode()
        return self.process.returncode, self.lines



async def run(*command: str, stdin: str = "") -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *command,
        cwd=REPO_ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(stdin.encode()), RUN_SECONDS)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()
