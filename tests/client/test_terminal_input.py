"""Ctrl-C reaches the terminal client however the kernel picks the thread.

The kernel hands a process's SIGINT to any thread that does not block
it.  Taken by the thread that reads standard input, Python only notes it
for the main thread, which sleeps in the event loop with nothing to wake
it: Ctrl-C then did nothing until the next line or message (seen as a
hang in ``test_ctrl_c_after_hello_keeps_the_player_and_its_open_game``).
So the reader blocks SIGINT, and the kernel always picks the main thread.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from pathlib import Path

import pytest

from client.console import InputLines


def blocked_signals(thread: threading.Thread) -> int:
    """The mask of signals ``thread`` blocks, as Linux reports it."""
    status = Path(f"/proc/self/task/{thread.native_id}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("SigBlk:")).split()[1], 16)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads a thread's signal mask from Linux's /proc")
async def test_the_standard_input_reader_blocks_ctrl_c_so_the_main_thread_takes_it() -> None:
    reading, writing = os.pipe()
    with open(reading, encoding="utf-8") as stream, open(writing, "w", encoding="utf-8") as feed:
        lines = InputLines(stream)
        reader = next(thread for thread in threading.enumerate() if thread.name == "stdin reader")
        feed.write("draw\n")
        feed.flush()
        assert await asyncio.wait_for(lines.next(), 30) == "draw"
        assert blocked_signals(reader) & (1 << (signal.SIGINT - 1)), "the reader thread could take Ctrl-C"
        assert not blocked_signals(threading.main_thread()) & (1 << (signal.SIGINT - 1))
