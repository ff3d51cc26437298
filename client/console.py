"""The terminal client's console: where it writes, and the lines it reads.

Both are shared by every command that talks to a person (play, watch,
race, the friends' and leagues' commands); they know nothing of games.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from typing import TextIO


PROMPT = "> "
ERASE_LINE = "\r\x1b[K"


class Console:
    """Where the terminal client writes: every line flushed at once.

    News that comes while the prompt waits for a line (a rival's move,
    ``go!``, a dropped connection) takes the prompt's place and the prompt
    is written again under it, so the reader always sees where to type."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.prompting = False

    def say(self, text: str = "") -> None:
        if self.prompting:
            self.out.write((ERASE_LINE if self.out.isatty() else "\n") + text + "\n" + PROMPT)
        else:
            self.out.write(text + "\n")
        self.out.flush()

    def prompt(self) -> None:
        self.prompting = True
        self.out.write(PROMPT)
        self.out.flush()

    def answered(self) -> None:
        """The line the prompt asked for has come (or is no longer awaited)."""
        self.prompting = False


class InputLines:
    """Lines of a text stream, read by a daemon thread into a queue."""

    def __init__(self, stream: TextIO) -> None:
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        threading.Thread(target=self._pump, args=(stream, loop), daemon=True, name="stdin reader").start()

    def _pump(self, stream: TextIO, loop: asyncio.AbstractEventLoop) -> None:
        """Read ``stream`` into the queue, with Ctrl-C blocked in this thread.
        The kernel hands a process's SIGINT to any thread that does not
        block it; taken here, Python would only note it for the main
        thread, which sleeps in the event loop with nothing to wake it, so
        Ctrl-C would do nothing until the next line or message.

        A stream closed under the thread (by a program that embeds the
        terminal and closes its end) is the end of input, as is a loop
        that has closed: nobody reads the queue any more."""
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            for line in stream:
                loop.call_soon_threadsafe(self._queue.put_nowait, line)
        except (ValueError, OSError):
            pass
        except RuntimeError:
            return
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self._queue.put_nowait, None)

    async def next(self) -> str | None:
        """The next line without its newline; None at the end of input."""
        line = await self._queue.get()
        return None if line is None else line.rstrip("\r\n")
