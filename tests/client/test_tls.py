"""TLS on the server's one port, and clients that trust it by a CA file.

The certificate is made here, by the ``openssl`` command, for 127.0.0.1
and localhost, self-signed: its own CA.  The server is real (in process,
or ``arena serve`` as a child process), the clients too: the library
(``ArenaClient(ca=...)``), the terminal client (``--ca``, ``ARENA_CA``)
and an HTTPS request with Python's own ``http.client``.
"""

from __future__ import annotations

import asyncio
import http.client
import re
import shutil
import signal
import ssl
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.unavailable import unavailable

from client import ArenaClient, ClientState
from client.errors import CannotConnect
from client.tls import client_context
from tests.client.arena_cli import RUN_SECONDS, WAIT_SECONDS, run
from tests.client.arena_restart import REPO_ROOT, RestartableServer, ServerFactory


@dataclass(frozen=True)
class Pair:
    """A certificate and its key, in PEM files."""

    cert: Path
    key: Path


def _make_pair(directory: Path, name: str) -> Pair:
    directory.mkdir()
    pair = Pair(directory / "cert.pem", directory / "key.pem")
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-days", "1", "-subj", f"/CN={name}", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout", str(pair.key), "-out", str(pair.cert),
        ],
        check=True, capture_output=True, timeout=RUN_SECONDS,
    )
    return pair


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Pair, Pair]:
    """Two self-signed certificates for this machine: the server's, and another."""
    if shutil.which("openssl") is None:
        unavailable("the openssl command is not installed: it makes the test certificates")
    root = tmp_path_factory.mktemp("tls")
    return _make_pair(root / "server", "localhost"), _make_pair(root / "other", "other")


@pytest.fixture
async def tls_arena(arena_factory: ServerFactory, pairs: tuple[Pair, Pair]) -> RestartableServer:
    pair = pairs[0]
    return await arena_factory(ssl_certfile=pair.cert, ssl_keyfile=pair.key)


def _https_get(port: int, path: str, context: ssl.SSLContext | None) -> tuple[int, bytes]:
    """One GET over HTTPS (plain HTTP without ``context``); status and body."""
    if context is None:
        connection: http.client.HTTPConnection = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_SECONDS)
    else:
        connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=WAIT_SECONDS, context=context)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


async def test_the_library_plays_over_wss_trusting_the_servers_ca(tls_arena: RestartableServer, pairs: tuple[Pair, Pair]) -> None:
    url = tls_arena.url
    assert url.startswith("wss://127.0.0.1:")
    async with ArenaClient(url, ca=pairs[0].cert, name="ada") as client:
        game = await client.new_game("klondike", deal=1)
        assert client.player_id is not None and game.game_id in client.games
    async with ArenaClient(url, ssl_context=client_context(pairs[0].cert), identify=False) as watcher:
        assert watcher.state is ClientState.OPEN


async def test_a_client_that_does_not_trust_the_certificate_is_told_to_give_a_ca(
    tls_arena: RestartableServer, pairs: tuple[Pair, Pair]
) -> None:
    url = tls_arena.url
    for client in (ArenaClient(url, identify=False), ArenaClient(url, ca=pairs[1].cert, identify=False)):
        with pytest.raises(CannotConnect, match=r"certificate verify failed.*give its CA: --ca FILE"):
            await client.start()
        await client.close()


async def test_plain_ws_and_http_to_the_tls_port_fail_cleanly_and_the_port_still_serves(
    tls_arena: RestartableServer, pairs: tuple[Pair, Pair]
) -> None:
    plain = ArenaClient(f"ws://127.0.0.1:{tls_arena.port}/ws", identify=False)
    with pytest.raises(CannotConnect, match=r"did not receive a valid HTTP response \(if the server speaks TLS, its URL starts wss://\)"):
        await plain.start()
    await plain.close()
    with pytest.raises(ConnectionError):
        await asyncio.to_thread(_https_get, tls_arena.port, "/healthz", None)
    async with ArenaClient(tls_arena.url, ca=pairs[0].cert, identify=False) as client:
        assert client.state is ClientState.OPEN


async def test_https_serves_healthz_and_the_web_client_with_the_ca(tls_arena: RestartableServer, pairs: tuple[Pair, Pair]) -> None:
    context = client_context(pairs[0].cert)
    assert await asyncio.to_thread(_https_get, tls_arena.port, "/healthz", context) == (200, b"ok\n")
    status, page = await asyncio.to_thread(_https_get, tls_arena.port, "/", context)
    assert status == 200 and b"<html" in page.lower()


async def _serve(*flags: str) -> tuple[int, str, str]:
    """``arena serve`` that should refuse to start: its exit code and streams."""
    return await run("-m", "server.cli", "serve", "--memory", "--port", "0", *flags)


async def test_a_certificate_or_key_that_cannot_serve_is_a_one_line_usage_error(
    pairs: tuple[Pair, Pair], tmp_path: Path
) -> None:
    mine, other = pairs
    cases = {
        ("--ssl-certfile", str(tmp_path / "missing.pem"), "--ssl-keyfile", str(mine.key)): "cannot read .*missing.pem: No such file",
        ("--ssl-certfile", str(mine.cert), "--ssl-keyfile", str(other.key)): "the key does not match the certificate",
        ("--ssl-certfile", str(mine.key)): "not a PEM certificate chain and key",
        ("--ssl-keyfile", str(mine.key)): r"ARENA_SSL_KEYFILE \(--ssl-keyfile\) needs ARENA_SSL_CERTFILE",
    }
    for flags, reason in cases.items():
        code, out, err = await _serve(*flags)
        assert code == 2 and out == "", (flags, out, err)
        assert len(err.splitlines()) == 1 and err.startswith("arena serve: bad setting: "), err
        assert re.search(reason, err), err


async def test_arena_serve_says_wss_and_the_terminal_client_connects_with_ca_or_arena_ca(
    pairs: tuple[Pair, Pair], monkeypatch: pytest.MonkeyPatch
) -> None:
    pair = pairs[0]
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", "--memory", "--port", "0",
        "--ssl-certfile", str(pair.cert), "--ssl-keyfile", str(pair.key),
        cwd=REPO_ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert server.stdout is not None
        ready = (await asyncio.wait_for(server.stdout.readline(), WAIT_SECONDS)).decode().strip()
        assert ready.startswith("arena: listening on wss://127.0.0.1:"), ready
        url = ready.removeprefix("arena: listening on ")
        code, out, err = await run("-m", "server.cli", "watch", "--server", url, "--ca", str(pair.cert))
        assert (code, out.strip(), err) == (0, "no live games", ""), (out, err)
        code, out, _ = await run("-m", "server.cli", "watch", "--server", url)
        assert code == 1 and "certificate verify failed" in out and "--ca FILE" in out, out
        code, out, err = await run("-m", "server.cli", "watch", "--server", url.replace("wss://", "ws://"))
        assert code == 1 and "its URL starts wss://" in out, out
        monkeypatch.setenv("ARENA_CA", str(pair.cert))
        code, out, err = await run("-m", "server.cli", "watch", "--server", url)
        assert (code, out.strip(), err) == (0, "no live games", ""), (out, err)
        server.send_signal(signal.SIGTERM)
        _, log = await asyncio.wait_for(server.communicate(), WAIT_SECONDS)
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()
    assert server.returncode == 0, log.decode()
    assert "Traceback" not in log.decode() and " ERROR " not in log.decode(), log.decode()


async def test_a_ca_file_that_cannot_be_read_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = await run("-m", "server.cli", "watch", "--ca", str(tmp_path / "missing.pem"))
    assert code == 2 and "argument --ca: cannot read" in err, err
    (tmp_path / "empty.pem").write_text("")
    monkeypatch.setenv("ARENA_CA", str(tmp_path / "empty.pem"))
    code, _, err = await run("-m", "server.cli", "leaderboard", "klondike")
    assert code == 2 and "argument --ca:" in err and "holds no PEM certificate" in err, err
