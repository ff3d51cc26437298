"""A Redis Cluster master dies during play, and its replica takes over.

Three masters, each with a replica (``RedisClusterServers(3, 1)``); a
game's master is killed with SIGKILL while its player keeps acting.  What
must hold: play resumes on the promoted replica by itself, the log never
forks, a subscription to the game resumes on the new master, and nothing
acknowledged before a ``WAIT`` that one replica confirmed is lost.  What
may be lost is the tail acknowledged after that (replication is
asynchronous): the test prints how much it was in this run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from redis.asyncio import Redis
from tests.redis_server import RedisClusterServers
from tests.storage_backends import ResumeSignal, heard_after_resume

from server.model.records import Action, SessionHeader
from server.storage import LogConflict, StorageUnavailable, open_store

pytestmark = pytest.mark.redis

FAILOVER_SECONDS = 30.0
"""Far more than the cluster needs (a node timeout of 1 s, then an election)."""


@pytest.fixture
def replicated_cluster(redis_cluster_factory: Callable[..., RedisClusterServers]) -> RedisClusterServers:
    return redis_cluster_factory(masters=3, replicas=1)


async def test_play_resumes_on_the_promoted_replica_and_loses_nothing_a_wait_confirmed(
    replicated_cluster: RedisClusterServers,
) -> None:
    cluster = replicated_cluster
    store = open_store(cluster.url, namespace="failover")
    watcher = open_store(cluster.url, namespace="failover")
    resumed = ResumeSignal()
    acknowledged: list[str] = []
    length = 0

    async def act(number: int) -> bool:
        """One move; True if acknowledged."""
        nonlocal length
        try:
            length = await store.append("g_1", length, Action("move", f"m{number}", number))
        except StorageUnavailable:
            return False
        except LogConflict as conflict:  # a reply lost after Redis wrote it
            length = conflict.actual_length
            return False
        acknowledged.append(f"m{number}")
        return True

    try:
        await store.create_session(SessionHeader("g_1", "klondike", 3, {}, "p_1", 0))
        subscription = await watcher.subscribe("game:g_1", resumed)
        messages = aiter(subscription)
        for number in range(20):
            assert await act(number)
        master = cluster.master_of("failover:session:{g_1}")
        direct = Redis(port=master.port)
        assert await direct.execute_command("WAIT", 1, 5000) == 1, "one replica has every write so far"
        await direct.aclose()
        confirmed = list(acknowledged)
        for number in range(20, 40):
            assert await act(number)
        master.stop(kill=True)
        refused = 0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + FAILOVER_SECONDS
        number = 40
        while len(acknowledged) < 60:
            assert loop.time() < deadline, "play did not resume on the promoted replica"
            if not await act(number):
                refused += 1
                await asyncio.sleep(0.05)
            number += 1
        loaded = await store.load_session("g_1")
        assert loaded is not None
        log = [action.text for action in loaded[1]]
        lost = [text for text in acknowledged if text not in log]
        print(f"failover: {len(acknowledged)} acknowledged, {refused} refused while electing, {len(lost)} lost: {lost}")
        assert all(text in log for text in confirmed), "nothing a WAIT confirmed is lost"
        assert set(lost) <= {f"m{n}" for n in range(20, 40)}, "only writes acknowledged after the WAIT, before the kill"
        assert log == sorted(set(log), key=lambda text: int(text[1:])), "one log, in order, never forked"
        heard = await heard_after_resume(messages, resumed, store, "game:g_1", b"after", FAILOVER_SECONDS)
        assert heard == b"after", "the watcher hears the new master"
        await subscription.close()
    finally:
        await store.close()
        await watcher.close()
