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
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

REDIS_SERVER = "/usr/bin/redis-server"
STARTUP_SECONDS = 10.0


class RedisServerMissing(RuntimeError):
    """No ``redis-server`` binary on this machine."""


def find_redis_server() -> str:
    """The binary to run: Debian's, or the first on PATH."""
    if os.access(REDIS_SERVER, os.X_OK):
        return REDIS_SERVER
    found = shutil.which("redis-server")
    if found is None:
        raise RedisServerMissing(
            "redis-server is not installed (Debian: apt-get install redis-server); the Redis tests need it"
        )
    return found


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """One ``redis-server`` process; ``start`` and ``stop`` may repeat."""

    def __init__(self, *, persistent: bool = False, replica_of: int | None = None) -> None:
        self.binary = find_redis_server()
        self.port = free_port()
        self.persistent = persistent
        self.replica_of = replica_of
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
