"""A real ``redis-server`` on a free loopback port, for tests and benchmarks.

Tests talk to a real Redis rather than a fake so that Lua scripts, expiry
and pub/sub behave exactly as in production.  The server runs in its own
temporary directory and, unless ``persistent`` is asked for, writes
nothing to disk (``--save "" --appendonly no``) so that it starts in a few
milliseconds.  ``stop`` and ``start`` again reuse the same port and
directory, which is how outage tests take Redis away and give it back.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

REDIS_SERVER = "/usr/bin/redis-server"
REDIS_CLI = "/usr/bin/redis-cli"
STARTUP_SECONDS = 10.0
CLUSTER_NODE_TIMEOUT_MS = 1000
"""How soon cluster nodes call an unreachable master down and fail it
over: quick, so failover tests take seconds."""


class RedisServerMissing(RuntimeError):
    """No ``redis-server`` binary on this machine."""


def _find(path: str, package: str, needed_by: str) -> str:
    """The binary at Debian's ``path``, or the first of its name on PATH."""
    if os.access(path, os.X_OK):
        return path
    name = os.path.basename(path)
    found = shutil.which(name)
    if found is None:
        raise RedisServerMissing(f"{name} is not installed (Debian: apt-get install {package}); {needed_by} need it")
    return found


def find_redis_server() -> str:
    return _find(REDIS_SERVER, "redis-server", "the Redis tests")


def find_redis_cli() -> str:
    """``redis-cli``, which creates clusters (``--cluster create``)."""
    return _find(REDIS_CLI, "redis-tools", "the Redis Cluster tests")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


CLUSTER_BUS_OFFSET = 10000
"""A cluster node also listens on its port + 10000 (the cluster bus)."""
CLUSTER_CREATE_SECONDS = 60
"""How long ``redis-cli --cluster create`` may take on a loaded machine (a
few seconds on a quiet one) before the cluster is made again elsewhere."""
CLUSTER_CREATE_ATTEMPTS = 3


def _is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_cluster_port() -> int:
    """A free port whose cluster bus port is free too (both below 65536)."""
    while True:
        port = random.randint(20000, 65535 - CLUSTER_BUS_OFFSET)
        if _is_free(port) and _is_free(port + CLUSTER_BUS_OFFSET):
            return port


def _ask(port: int, command: bytes) -> bytes:
    """One inline command's raw reply (up to 64 KiB), or b"" if the port does not answer."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(command + b"\r\n")
            return conn.recv(65536)
    except OSError:
        return b""


def _answers_ping(port: int) -> bool:
    return _ask(port, b"PING").startswith(b"+PONG")


class RedisServer:
    """One ``redis-server`` process; ``start`` and ``stop`` may repeat."""

    def __init__(self, *, persistent: bool = False, replica_of: int | None = None, cluster: bool = False) -> None:
        self.binary = find_redis_server()
        self.port = free_cluster_port() if cluster else free_port()
        self.persistent = persistent
        self.replica_of = replica_of
        self.cluster = cluster
        self.directory = Path(tempfile.mkdtemp(prefix="arena-redis-"))
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int:
        """The running server's process id (to SIGSTOP it: a stalled Redis)."""
        assert self._process is not None, "start the server first"
        return self._process.pid

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def _arguments(self) -> list[str]:
        arguments = [
            self.binary,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.directory),
            "--save", "",
            "--daemonize", "no",
            "--logfile", str(self.directory / "redis.log"),
        ]
        if self.persistent:
            arguments += ["--appendonly", "yes", "--appendfsync", "always"]
        else:
            arguments += ["--appendonly", "no"]
        if self.replica_of is not None:
            arguments += ["--replicaof", "127.0.0.1", str(self.replica_of)]
        if self.cluster:
            arguments += [
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", str(CLUSTER_NODE_TIMEOUT_MS),
            ]
        return arguments

    def start(self) -> None:
        """Run the server and return once it answers PING."""
        if self.running:
            return
        self._process = subprocess.Popen(self._arguments(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _answers_ping(self.port):
            if self._process.poll() is not None or time.monotonic() > deadline:
                log = (self.directory / "redis.log").read_text(errors="replace")[-2000:]
                self.stop()
                raise RuntimeError(f"redis-server did not start on port {self.port}:\n{log}")
            time.sleep(0.01)

    def stop(self, *, kill: bool = False) -> None:
        """Stop the server: SIGTERM (a clean shutdown) or, with ``kill``, SIGKILL."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def pause(self) -> None:
        """SIGSTOP: Redis stalls with its connections open, as a machine
        that swaps or a stuck disk makes it; commands wait in its socket buffers."""
        assert self._process is not None, "the server is not running"
        self._process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT: Redis goes on, and reads the commands sent meanwhile."""
        assert self._process is not None, "the server is not running"
        self._process.send_signal(signal.SIGCONT)

    def restart(self) -> None:
        self.stop()
        self.start()

    def remove(self) -> None:
        """Stop the server and delete its directory."""
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> RedisServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.remove()


class RedisClusterServers:
    """A Redis Cluster on loopback: ``masters`` nodes sharing the 16,384
    slots, each with ``replicas`` replicas, joined by ``redis-cli --cluster
    create``.  ``start`` returns once every node reports the cluster ok and
    agrees on who serves each slot."""

    def __init__(self, masters: int = 3, replicas: int = 0) -> None:
        self.cli = find_redis_cli()
        self.replicas = replicas
        self.size = masters * (1 + replicas)
        self.nodes = [RedisServer(cluster=True) for _ in range(self.size)]

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"127.0.0.1:{node.port}" for node in self.nodes) + "/"

    def start(self) -> None:
        """Start the nodes and join them.  A join that does not end in its
        time is made again with fresh nodes on fresh ports: once, under
        load, ``redis-cli`` was still waiting for the cluster to join after
        60 s, where it takes a few seconds, and no test should fail on it."""
        for attempt in range(CLUSTER_CREATE_ATTEMPTS):
            for node in self.nodes:
                node.start()
            addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
            try:
                created = subprocess.run(
                    [self.cli, "--cluster", "create", *addresses, "--cluster-replicas", str(self.replicas), "--cluster-yes"],
                    capture_output=True, text=True, timeout=CLUSTER_CREATE_SECONDS, check=False,
                )
            except subprocess.TimeoutExpired as stuck:
                self.remove()
                if attempt + 1 == CLUSTER_CREATE_ATTEMPTS:
                    raise RuntimeError(f"redis-cli --cluster create did not end, {CLUSTER_CREATE_ATTEMPTS} times") from stuck
                self.nodes = [RedisServer(cluster=True) for _ in range(self.size)]
                continue
            if created.returncode != 0:
                self.remove()
                raise RuntimeError(f"redis-cli --cluster create failed:\n{created.stdout}{created.stderr}")
            break
        self.wait_ok()
        self.wait_replicated()

    def wait_ok(self, seconds: float = STARTUP_SECONDS) -> None:
        """Return once every running node says ``cluster_state:ok``."""
        deadline = time.monotonic() + seconds
        while not all(b"cluster_state:ok" in _ask(node.port, b"CLUSTER INFO") for node in self.nodes if node.running):
            if time.monotonic() > deadline:
                raise RuntimeError("the Redis Cluster did not reach cluster_state:ok")
            time.sleep(0.05)

    def wait_replicated(self, seconds: float = STARTUP_SECONDS) -> None:
        """Return once every replica's link to its master is up."""
        deadline = time.monotonic() + seconds
        while True:
            infos = [_ask(node.port, b"INFO replication") for node in self.nodes if node.running]
            if all(b"role:master" in info or b"master_link_status:up" in info for info in infos):
                return
            if time.monotonic() > deadline:
                raise RuntimeError("the cluster's replicas did not link to their masters")
            time.sleep(0.05)

    def master_of(self, key: str) -> RedisServer:
        """The node that serves ``key``'s slot now."""
        for node in self.nodes:
            if node.running and _ask(node.port, f"GET {key}".encode()).split(b" ")[0] not in (b"-MOVED", b""):
                return node
        raise RuntimeError(f"no running node serves {key!r}")

    def move_slot(self, key: str, to: RedisServer) -> None:
        """Give the slot of ``key`` (holding no keys) to the master ``to``,
        as a resharding does: importing, migrating, then the new owner
        announced to every master."""
        slot = int(_ask(to.port, f"CLUSTER KEYSLOT {key}".encode())[1:].strip())
        source = self.master_of(key)
        source_id, target_id = (_ask(node.port, b"CLUSTER MYID").split(b"\r\n")[1].decode() for node in (source, to))
        _ask(to.port, f"CLUSTER SETSLOT {slot} IMPORTING {source_id}".encode())
        _ask(source.port, f"CLUSTER SETSLOT {slot} MIGRATING {target_id}".encode())
        for node in self.nodes:
            if node.running:
                _ask(node.port, f"CLUSTER SETSLOT {slot} NODE {target_id}".encode())
        assert self.master_of(key) is to

    def remove(self) -> None:
        for node in self.nodes:
            node.remove()

    def __enter__(self) -> RedisClusterServers:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.remove()


class RedisSentinel:
    """One Sentinel (``redis-server --sentinel``) watching a master as the
    service ``service``, quick to call it down (``down_after_ms``) so that
    failover tests take seconds.  Sentinel rewrites its config file, so it
    gets one of its own in a temporary directory."""

    def __init__(self, master_port: int, service: str = "arena", down_after_ms: int = 500) -> None:
        self.binary = find_redis_server()
        self.port = free_port()
        self.service = service
        self.directory = Path(tempfile.mkdtemp(prefix="arena-sentinel-"))
        config = self.directory / "sentinel.conf"
        config.write_text(
            f"port {self.port}\n"
            "bind 127.0.0.1\n"
            f"dir {self.directory}\n"
            f"logfile {self.directory / 'sentinel.log'}\n"
            f"sentinel monitor {service} 127.0.0.1 {master_port} 1\n"
            f"sentinel down-after-milliseconds {service} {down_after_ms}\n"
            f"sentinel failover-timeout {service} 2000\n"
        )
        self._process = subprocess.Popen(
            [self.binary, str(config), "--sentinel"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _answers_ping(self.port):
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.remove()
                raise RuntimeError(f"redis sentinel did not start on port {self.port}")
            time.sleep(0.01)

    @property
    def url(self) -> str:
        return f"redis+sentinel://127.0.0.1:{self.port}/{self.service}/0"

    def master_port(self) -> int | None:
        """The master's port as Sentinel knows it now."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
            conn.sendall(f"SENTINEL get-master-addr-by-name {self.service}\r\n".encode())
            reply = conn.recv(256).decode().split("\r\n")
        return int(reply[4]) if len(reply) > 4 and reply[0] == "*2" else None

    def remove(self) -> None:
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)
