"""``deploy/haproxy.cfg`` in front of two real ``arena serve`` processes.

The cluster profile's load balancer runs here as a real ``haproxy``
(skipped, with the reason, where it is not installed), with the
committed configuration changed in three places only: it listens on free
loopback ports instead of 8765 and 443, reads the certificate that
``deploy/lb-cert.sh`` made in the test's directory, and names the two
processes by their loopback ports instead of their compose service names.  Through its one
port a player and a spectator land on different processes (``leastconn``)
sharing a Redis Cluster, play and watch over upgraded WebSockets, and
each process counts the client's own address, which haproxy forwards
(``option forwardfor``) and the server trusts
(``ARENA_FORWARDED_FOR_HEADER``), not haproxy's.  Over the TLS port a
client that trusts the certificate plays through haproxy, which speaks
plain WebSocket to the processes.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import AsyncIterator, Awaitable, Callable

import pytest
from tests.unavailable import unavailable
from tests.integration.arena_processes import ServerProcess, ServerStarter, WireClient
from client import ArenaClient
from tests.integration.test_compose_cluster import CERTS_IN_LB, HAPROXY_CONFIG, SERVERS, TLS_BIND, make_lb_cert
from tests.integration.test_processes_share_redis import MOVES, diffs_until, shared_part
from tests.redis_server import RedisClusterServers, free_port

from protocol import to_server as ts

pytestmark = pytest.mark.redis

LISTENING_IN_COMPOSE = "bind :8765"
READY_SECONDS = 60.0
"""A hang bound only: haproxy answers within milliseconds of starting."""
PLAYER_ADDRESS = "127.0.0.3"
SPECTATOR_ADDRESS = "127.0.0.4"


class LoadBalancer:
    """``haproxy`` in the foreground on the committed configuration, aimed
    at ``ports`` on loopback."""

    def __init__(self, directory: Path, ports: list[int]) -> None:
        self.port = free_port()
        text = HAPROXY_CONFIG.read_text()
        assert text.count(LISTENING_IN_COMPOSE) == 1
        text = text.replace(LISTENING_IN_COMPOSE, f"bind 127.0.0.1:{self.port}")
        self.tls_port = free_port()
        assert text.count(TLS_BIND) == 1
        local_tls = TLS_BIND.replace("bind :443", f"bind 127.0.0.1:{self.tls_port}")
        text = text.replace(TLS_BIND, local_tls.replace(f"{CERTS_IN_LB}/", f"{directory}/"))
        made = make_lb_cert(directory)
        assert made.returncode == 0, made.stdout + made.stderr
        self.ca = directory / "ca.pem"
        self.tls_url = f"wss://localhost:{self.tls_port}/ws"
        for name, port in zip(SERVERS, ports, strict=True):
            assert text.count(f" {name}:8765") == 1, f"haproxy.cfg no longer names {name}:8765"
            text = text.replace(f" {name}:8765", f" 127.0.0.1:{port}")
        self.config = directory / "haproxy.cfg"
        self.config.write_text(text)
        self.output = directory / "haproxy.out"
        self.url = f"ws://127.0.0.1:{self.port}/ws"
        self._process: subprocess.Popen[bytes] | None = None

    async def start(self) -> None:
        binary = shutil.which("haproxy")
        assert binary is not None
        with self.output.open("wb") as output:
            self._process = subprocess.Popen([binary, "-db", "-f", str(self.config)], stdout=output, stderr=output)
        deadline = asyncio.get_running_loop().time() + READY_SECONDS
        while await asyncio.to_thread(self._health) != 200:
            if self._process.poll() is not None or asyncio.get_running_loop().time() > deadline:
                raise RuntimeError(f"haproxy did not start:\n{self.output.read_text(errors='replace')[-2000:]}")
            await asyncio.sleep(0.05)

    def _health(self) -> int:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/lb-healthz", timeout=5) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            return int(error.code)
        except OSError:
            return 0

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()


@pytest.fixture
def haproxy_installed() -> None:
    """Skip without haproxy, except under CI (``.ci/run`` installs it), where
    a skip would pass as green."""
    if shutil.which("haproxy") is None:
        unavailable("haproxy is not installed (apt-get install haproxy): the load balancer test needs it")


@pytest.fixture
async def behind_the_load_balancer(
    haproxy_installed: None,
    own_redis_cluster: RedisClusterServers,
    arena_processes: ServerStarter,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> AsyncIterator[tuple[LoadBalancer, list[ServerProcess]]]:
    """Two server processes on one Redis Cluster, configured as compose
    configures them (the forwarded header trusted), behind haproxy."""
    monkeypatch.setenv("ARENA_FORWARDED_FOR_HEADER", "X-Forwarded-For")
    processes = [await arena_processes(own_redis_cluster.url) for _ in SERVERS]
    balancer = LoadBalancer(tmp_path, [process.port for process in processes])
    try:
        await balancer.start()
        yield balancer, processes
    finally:
        balancer.stop()


Opener = Callable[[str, str], Awaitable[WireClient]]


@pytest.fixture
async def open_from() -> AsyncIterator[Opener]:
    """Open a wire client from a loopback address of its own (all closed
    at the end), so that the address a server counts tells who it is."""
    opened: list[WireClient] = []

    async def open_client(url: str, address: str) -> WireClient:
        client = await WireClient.open(url, local_addr=(address, 0))
        opened.append(client)
        return client

    yield open_client
    for client in opened:
        await client.close()


async def test_a_player_and_a_spectator_through_one_port_land_on_both_processes(
    behind_the_load_balancer: tuple[LoadBalancer, list[ServerProcess]], open_from: Opener
) -> None:
    balancer, processes = behind_the_load_balancer
    player = await open_from(balancer.url, PLAYER_ADDRESS)
    await player.hello()
    started, snapshot = await player.new_game(deal=12)
    spectator = await open_from(balancer.url, SPECTATOR_ADDRESS)
    watched = await spectator.request(ts.Watch, game_id=started.game_id)
    assert watched.type == "snapshot" and watched.seq == 0

    replies = await player.play_first_legal(started.game_id, snapshot.legal, MOVES)
    seen = await diffs_until(spectator, started.game_id, MOVES)
    assert [shared_part(diff) for diff in seen] == [shared_part(reply) for reply in replies]

    logs = [process.log() for process in processes]
    counted = [[address for address in (PLAYER_ADDRESS, SPECTATOR_ADDRESS) if f"opened from {address}\n" in log]
               for log in logs]
    assert sorted(counted) == [[PLAYER_ADDRESS], [SPECTATOR_ADDRESS]], (
        "one connection on each process (leastconn), each counted by the client's address, not haproxy's:\n"
        + "\n".join(logs)
    )


async def test_a_player_plays_over_wss_through_the_tls_port(
    behind_the_load_balancer: tuple[LoadBalancer, list[ServerProcess]]
) -> None:
    balancer, processes = behind_the_load_balancer
    async with ArenaClient(balancer.tls_url, ca=balancer.ca, name="ada") as client:
        game = await client.new_game("klondike", deal=12)
        assert client.player_id is not None and game.game_id in client.games
    assert any(" opened from " in process.log() for process in processes), "a process behind haproxy served it"
