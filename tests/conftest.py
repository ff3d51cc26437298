"""Shared fixtures: a real redis-server, and the compiled solver ready."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterator, TypeVar
from uuid import uuid4

import pytest
from tests.unavailable import unavailable

from tests.redis_server import RedisClusterServers, RedisServer, RedisServerMissing
from tests.server.arena_servers import SUITE_WORKER_NICENESS

import engine
from engine.solver.compiled import proof_search
from engine.solver.freecell import kernel_available
from engine.solver.klondike import KlondikeDomain
from server.runtime.settings import env_name

Made = TypeVar("Made")


def _or_skip(make: Callable[[], Made]) -> Made:
    """``make()`` (a stopped server or cluster), or a skip when a Redis
    binary is missing (a failure under CI, which installs redis-server and
    redis-cli, so that a missing binary can never pass as green)."""
    try:
        return make()
    except RedisServerMissing as exc:
        unavailable(str(exc))


def _new_redis_server(*, persistent: bool = False) -> RedisServer:
    return _or_skip(lambda: RedisServer(persistent=persistent))


@pytest.fixture(scope="session", autouse=True)
def compiled_solver() -> None:
    """Compile the WordLink proof kernel and Broken Deck's win search once,
    before any test's time bound runs.  numba caches the machine code on disk, so the server's worker
    processes then load it in a fraction of a second; without this the
    first proofs of a fresh clone compile it in several workers at once,
    about 10 s each on a quiet machine, and far longer beside CPU burners,
    inside requests that tests wait on."""
    game = engine.new_game("klondike", 1, draw=3)
    search = proof_search(KlondikeDomain(game), game.position, None, None)
    if search is not None:
        search.run(1)
    kernel_available()


@pytest.fixture(scope="session", autouse=True)
def workers_as_nice_as_the_suite() -> Iterator[None]:
    """Every ``arena serve`` the suite starts runs its workers at the
    suite's priority (``tests.server.arena_servers.SUITE_WORKER_NICENESS``)."""
    variable = env_name("worker_niceness")
    before = os.environ.get(variable)
    os.environ[variable] = str(SUITE_WORKER_NICENESS)
    yield
    if before is None:
        del os.environ[variable]
    else:
        os.environ[variable] = before


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One Redis for the whole run; tests keep apart by key namespace
    (``redis_namespace``).  Tests that stop Redis use ``own_redis_server``."""
    server = _new_redis_server()
    with server:
        yield server


@pytest.fixture
def redis_server_factory() -> Iterator[Callable[..., RedisServer]]:
    """Start Redis servers of this test alone (``persistent=True`` for an
    append-only file that survives a restart); all removed at the end."""
    servers: list[RedisServer] = []

    def start(*, persistent: bool = False) -> RedisServer:
        server = _new_redis_server(persistent=persistent)
        servers.append(server)
        server.start()
        return server

    yield start
    for server in servers:
        server.remove()


@pytest.fixture
def own_redis_server(redis_server_factory: Callable[..., RedisServer]) -> RedisServer:
    """A Redis of this test alone, which it may stop and start again."""
    return redis_server_factory()


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisClusterServers]:
    """One Redis Cluster (three masters) for the whole run, shared by
    namespace as ``redis_server`` is."""
    with _or_skip(RedisClusterServers) as cluster:
        yield cluster


@pytest.fixture
def redis_cluster_factory() -> Iterator[Callable[..., RedisClusterServers]]:
    """Start Redis Clusters of this test alone (``masters``, ``replicas``
    each), which it may reshard or break; all removed at the end."""
    clusters: list[RedisClusterServers] = []

    def start(masters: int = 3, replicas: int = 0) -> RedisClusterServers:
        cluster = _or_skip(lambda: RedisClusterServers(masters, replicas))
        clusters.append(cluster)
        cluster.start()
        return cluster

    yield start
    for cluster in clusters:
        cluster.remove()


@pytest.fixture
def own_redis_cluster(redis_cluster_factory: Callable[..., RedisClusterServers]) -> RedisClusterServers:
    """A Redis Cluster (three masters) of this test alone, which it may reshard or break."""
    return redis_cluster_factory()


@pytest.fixture
def redis_namespace() -> str:
    return f"test-{uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def _data_homes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("data-homes")


@pytest.fixture(autouse=True)
def own_data_home(_data_homes: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``XDG_DATA_HOME`` of this test alone (made only if something writes
    there): an ``arena serve`` it starts keeps its daily secret and records
    there, and ``arena daily`` the commitments it saw, never in the home
    directory of whoever runs the tests nor beside another test's."""
    home = _data_homes / uuid4().hex[:12]
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def own_config_home(_data_homes: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``XDG_CONFIG_HOME`` of this test alone: the terminal client keeps
    the players it makes there, never in the home directory of whoever
    runs the tests (``tests.client.arena_cli`` gives each program it runs
    a directory of its own inside, unless a test shares one on purpose)."""
    home = _data_homes / f"config-{uuid4().hex[:12]}"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home
