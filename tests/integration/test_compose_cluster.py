"""docker-compose.yml's cluster profile, checked without Docker.

No Docker daemon runs where the tests do, so the file is read as YAML
(PyYAML) and its wiring is checked the way ``docker compose`` would use
it: which services the profile adds and that the default stack is left
alone, that the servers' URL names every master, the start order through
health checks, the load balancer's view of the servers, and stop grace
periods long enough for the drain.  The one-shot that joins the masters,
``deploy/redis-cluster-create.sh``, runs for real against cluster-enabled
``redis-server`` processes on loopback.  TLS ends at the load balancer:
the one-shot that makes its certificate, ``deploy/lb-cert.sh``, runs for
real, and ``haproxy -c`` checks the configuration with that certificate.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml
from tests.unavailable import unavailable

from server.runtime.settings import Settings
from server.storage.redis_cluster import cluster_url
from tests.redis_server import RedisServer, RedisServerMissing, find_redis_cli

ROOT = Path(__file__).resolve().parents[2]
CREATE_SCRIPT = ROOT / "deploy" / "redis-cluster-create.sh"
HAPROXY_CONFIG = ROOT / "deploy" / "haproxy.cfg"
CERT_SCRIPT = ROOT / "deploy" / "lb-cert.sh"
CERTS_IN_LB = "/usr/local/etc/haproxy/certs"
TLS_BIND = f"bind :443 ssl crt {CERTS_IN_LB}/arena.pem alpn http/1.1"
"""The committed TLS listener; the load balancer test moves it to loopback."""
PROFILE = "cluster"
SERVERS = ["arena-1", "arena-2"]
DEFAULT_STACK = {"redis", "server"}
ONE_SHOTS = ("cluster-create", "lb-cert")


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return dict(compose["services"])


def profile(services: dict[str, Any]) -> dict[str, Any]:
    return {name: service for name, service in services.items() if PROFILE in service.get("profiles", [])}


def masters(services: dict[str, Any]) -> dict[str, Any]:
    return {name: service for name, service in profile(services).items() if flag(service, "--cluster-enabled") == "yes"}


def flag(service: dict[str, Any], name: str) -> str | None:
    """The value after ``name`` in the service's command, if it has one."""
    command = service.get("command", [])
    return command[command.index(name) + 1] if name in command else None


def seconds(duration: str) -> float:
    """A compose or haproxy duration ("30s", "1m30s", "25s") in seconds."""
    parts = re.fullmatch(r"(?:(\d+)m)?(?:(\d+)s)?", duration)
    assert parts and duration, f"not a duration: {duration!r}"
    return int(parts[1] or 0) * 60 + int(parts[2] or 0)


def haproxy_lines() -> list[list[str]]:
    lines = (line.split("#", 1)[0].split() for line in HAPROXY_CONFIG.read_text().splitlines())
    return [line for line in lines if line]


def make_lb_cert(directory: Path) -> subprocess.CompletedProcess[str]:
    """The certificate one-shot as compose runs it, into ``directory``
    (skipped without the openssl command, failed under CI)."""
    if shutil.which("openssl") is None:
        unavailable("the openssl command is not installed: deploy/lb-cert.sh needs it")
    return subprocess.run(["sh", str(CERT_SCRIPT), str(directory), "localhost"], capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_default_stack_is_left_as_it_was(services: dict[str, Any]) -> None:
    assert {name for name, service in services.items() if "profiles" not in service} == DEFAULT_STACK
    assert services["server"]["ports"] == ["8765:8765"]
    assert all(service["profiles"] == [PROFILE] for service in profile(services).values())
    assert set(services) == DEFAULT_STACK | set(profile(services))


def test_three_redis_7_masters_each_announcing_its_service_name(services: dict[str, Any]) -> None:
    found = masters(services)
    assert sorted(found) == ["redis-1", "redis-2", "redis-3"]
    for name, master in found.items():
        assert master["image"].startswith("redis:7"), "sharded pub/sub needs Redis 7"
        assert flag(master, "--cluster-announce-hostname") == name
        assert flag(master, "--cluster-preferred-endpoint-type") == "hostname"
        assert flag(master, "--cluster-config-file") == "nodes.conf" and master["volumes"][0].endswith(":/data")
        assert "redis-cli" in master["healthcheck"]["test"]
    assert len({master["volumes"][0] for master in found.values()}) == 3, "one volume per node"


def test_every_server_and_the_one_shot_name_every_master(services: dict[str, Any]) -> None:
    addresses = [(name, int(flag(master, "--port") or 6379)) for name, master in masters(services).items()]
    for name in SERVERS:
        url = flag(services[name], "--redis")
        assert url is not None and url.startswith("redis+cluster://")
        assert sorted(cluster_url(url).nodes) == sorted(addresses)
    create = services["cluster-create"]
    assert create["command"][:2] == ["sh", "/deploy/redis-cluster-create.sh"]
    assert sorted(create["command"][2:]) == sorted(f"{host}:{port}" for host, port in addresses)
    assert create["volumes"] == ["./deploy/redis-cluster-create.sh:/deploy/redis-cluster-create.sh:ro"]
    assert CREATE_SCRIPT.exists()


def test_each_service_starts_once_what_it_needs_is_healthy(services: dict[str, Any]) -> None:
    create = services["cluster-create"]
    assert create["depends_on"] == {name: {"condition": "service_healthy"} for name in masters(services)}
    assert create["restart"] == "no", "a one-shot: restarting it would loop"
    for name in SERVERS:
        assert services[name]["depends_on"] == {"cluster-create": {"condition": "service_completed_successfully"}}
        assert "/healthz" in " ".join(services[name]["healthcheck"]["test"])
    assert services["lb"]["depends_on"] == {
        **{name: {"condition": "service_healthy"} for name in SERVERS},
        "lb-cert": {"condition": "service_completed_successfully"},
    }
    assert services["lb-cert"]["restart"] == "no"
    for name, service in profile(services).items():
        assert name in ONE_SHOTS or service["healthcheck"]["test"], f"{name} has no health check"


def test_the_load_balancer_sends_every_connection_to_the_two_servers(services: dict[str, Any]) -> None:
    lb = services["lb"]
    assert lb["volumes"][0] == "./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro"
    published, inside = lb["ports"][0].split(":")
    assert published != "8765", "the default stack's server publishes 8765"
    lines = haproxy_lines()
    assert ["bind", f":{inside}"] in lines
    listening = Settings().port
    assert all(flag(services[name], "--port") is None for name in SERVERS), "the servers listen on the default port"
    assert [line[1:3] for line in lines if line[0] == "server"] == [[name, f"{name}:{listening}"] for name in SERVERS]
    assert all("ports" not in services[name] for name in SERVERS), "reached through the load balancer only"
    assert ["option", "httpchk", "GET", "/healthz"] in lines
    assert ["timeout", "tunnel", "1h"] in lines, "an upgraded WebSocket must outlive the HTTP timeouts"
    assert ["option", "forwardfor"] in lines
    for name in SERVERS:
        assert services[name]["environment"]["ARENA_FORWARDED_FOR_HEADER"] == "X-Forwarded-For"


def test_the_load_balancer_terminates_tls_with_the_one_shots_certificate(services: dict[str, Any], tmp_path: Path) -> None:
    lb, maker = services["lb"], services["lb-cert"]
    assert "8443:443" in lb["ports"]
    assert TLS_BIND in HAPROXY_CONFIG.read_text()
    assert f"lb-certs:{CERTS_IN_LB}:ro" in lb["volumes"]
    assert maker["command"][:3] == ["sh", "/deploy/lb-cert.sh", "/certs"] and "lb-certs:/certs" in maker["volumes"]
    assert f"./deploy/{CERT_SCRIPT.name}:/deploy/{CERT_SCRIPT.name}:ro" in maker["volumes"]
    assert all(flag(services[name], "--ssl-certfile") is None for name in SERVERS), "plain behind the load balancer"

    made = make_lb_cert(tmp_path)
    assert made.returncode == 0 and "made a self-signed certificate" in made.stdout, made.stdout + made.stderr
    first = (tmp_path / "arena.pem").read_bytes()
    assert b"BEGIN CERTIFICATE" in first and b"PRIVATE KEY" in first
    assert (tmp_path / "ca.pem").read_bytes() in first
    again = make_lb_cert(tmp_path)
    assert again.returncode == 0 and "kept" in again.stdout and (tmp_path / "arena.pem").read_bytes() == first

    haproxy = shutil.which("haproxy")
    if haproxy is None:
        unavailable("haproxy is not installed (apt-get install haproxy): haproxy -c checks the configuration")
    config = tmp_path / "haproxy.cfg"
    config.write_text(HAPROXY_CONFIG.read_text().replace(f"{CERTS_IN_LB}/", f"{tmp_path}/"))
    checked = subprocess.run([haproxy, "-c", "-f", str(config)], capture_output=True, text=True, timeout=120, check=False)
    assert checked.returncode == 0 and "Configuration file is valid" in checked.stdout, checked.stdout + checked.stderr


def test_stop_grace_periods_cover_the_drain(services: dict[str, Any]) -> None:
    defaults = Settings()
    drain = defaults.shutdown_grace_seconds + defaults.close_timeout
    for name in SERVERS:
        assert seconds(services[name]["stop_grace_period"]) > drain
    lb = services["lb"]
    assert lb["stop_signal"] == "SIGUSR1", "haproxy's soft stop; SIGTERM would cut every WebSocket at once"
    hard_stop = next(line[1] for line in haproxy_lines() if line[0] == "hard-stop-after")
    assert seconds(hard_stop) < seconds(lb["stop_grace_period"])


@pytest.fixture
def cluster_nodes() -> Iterator[list[RedisServer]]:
    """Three cluster-enabled Redis nodes, not joined yet."""
    try:
        nodes = [RedisServer(cluster=True) for _ in range(3)]
        find_redis_cli()
    except RedisServerMissing as missing:
        unavailable(str(missing))
    for node in nodes:
        node.start()
    yield nodes
    for node in nodes:
        node.remove()


def run_create(nodes: list[RedisServer]) -> subprocess.CompletedProcess[str]:
    """The one-shot as compose runs it, on names that resolve (localhost)."""
    names = [f"localhost:{node.port}" for node in nodes]
    return subprocess.run(["sh", str(CREATE_SCRIPT), *names], capture_output=True, text=True, timeout=120, check=False)


def cluster_info(node: RedisServer) -> str:
    answer = subprocess.run([find_redis_cli(), "-p", str(node.port), "cluster", "info"], capture_output=True, text=True,
                            timeout=30, check=True)
    return answer.stdout


@pytest.mark.redis
def test_the_one_shot_joins_the_masters_once_and_later_only_waits(cluster_nodes: list[RedisServer]) -> None:
    first = run_create(cluster_nodes)
    assert first.returncode == 0, first.stdout + first.stderr
    for node in cluster_nodes:
        info = cluster_info(node)
        assert "cluster_state:ok" in info and "cluster_known_nodes:3" in info and "cluster_slots_assigned:16384" in info

    again = run_create(cluster_nodes)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "already form a cluster" in again.stdout and "cluster ok" in again.stdout
