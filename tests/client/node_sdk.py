"""Running a Node program of the JavaScript SDK (client/web/js/sdk.js)
as a real subprocess against a real server.

Node 22 and later have a global WebSocket; Node 20 and 21 have it behind
``--experimental-websocket``, which the SDK's docs tell a user to pass, so
the command asks ``node --version`` and adds the flag where it is needed."""

from __future__ import annotations

import asyncio
import shutil
import subprocess

from tests.client.arena_restart import REPO_ROOT
from tests.unavailable import unavailable

GLOBAL_WEBSOCKET_SINCE = 22


def node_command(*arguments: str) -> list[str]:
    """``node ARGUMENTS``, with the WebSocket flag this Node needs."""
    node = shutil.which("node")
    if node is None:
        unavailable("node is missing: install Debian's nodejs package to run the JavaScript SDK's tests")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout
    major = int(version.strip().lstrip("v").split(".")[0])
    flags = ["--experimental-websocket"] if major < GLOBAL_WEBSOCKET_SINCE else []
    return [node, *flags, *arguments]


async def start_node(*arguments: str) -> asyncio.subprocess.Process:
    """``node ARGUMENTS`` in the repository, its output piped."""
    return await asyncio.create_subprocess_exec(
        *node_command(*arguments), cwd=REPO_ROOT,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
