"""Friends on two ``arena serve`` processes sharing one Redis (and a Redis
Cluster, where the two sides of a friendship are in two slots): a request
made on one process reaches its player on the other at once, the
acceptance comes back the same way, a challenge made on one process is
accepted on the other and both players are in the same race's lobby, and
a blocked player on the other process does not see the blocker's games.
The challenged friend is connected to the other process only: that it is
online is known from presence, which spans processes.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.integration.arena_processes import ClientOpener, ServerProcess, ServerStarter, WireClient
from tests.redis_server import RedisClusterServers, RedisServer

from protocol import friends as pf
from protocol import to_server as ts

pytestmark = pytest.mark.redis


@pytest.fixture(params=["redis", "cluster"])
def shared_redis_url(request: pytest.FixtureRequest) -> str:
    shared: RedisServer | RedisClusterServers = request.getfixturevalue(
        "own_redis_cluster" if request.param == "cluster" else "own_redis_server"
    )
    return shared.url


async def signed(clients: ClientOpener, process: ServerProcess, name: str, token: str | None = None) -> WireClient:
    client = await clients(process.url)
    await client.hello(token=token, name=name)
    return client


async def ask(client: WireClient, kind: type[ts.Request], **fields: Any) -> Any:
    """A request's reply, read by its ``type`` in the test."""
    return await client.request(kind, **fields)


@pytest.fixture
async def a_and_b(shared_redis_url: str, arena_processes: ServerStarter) -> tuple[ServerProcess, ServerProcess]:
    """Two server processes on one store."""
    return await arena_processes(shared_redis_url), await arena_processes(shared_redis_url)


def notified(kind: str) -> Any:
    return lambda m: m.type == "notification" and m.notification.kind == kind


async def test_friends_on_two_processes_request_accept_challenge_and_race(
    a_and_b: tuple[ServerProcess, ServerProcess], clients: ClientOpener
) -> None:
    a, b = a_and_b
    ann, bob = await signed(clients, a, "ann"), await signed(clients, b, "bob")
    code = await ask(bob, pf.FriendCode)
    assert code.type == "friend_code", code
    sent = await ask(ann, pf.FriendAdd, code=code.code)
    assert sent.type == "friend" and sent.state == "request_sent", sent
    request = await bob.wait_for(notified("friend_request"))
    assert request.notification.sender.name == "ann"
    accepted = await ask(bob, pf.FriendChange, player_id=ann.player_id, action="accept")
    assert accepted.type == "friend" and accepted.state == "friend", accepted
    told = await ann.wait_for(notified("friend_accepted"))
    assert told.notification.sender.name == "bob"
    listed = await ask(ann, pf.Friends)
    assert [(entry.name, entry.state) for entry in listed.friends] == [("bob", "friend")]

    created = await ask(ann, pf.Challenge, player_id=bob.player_id, game="klondike", options={"draw": 1}, deal="winnable")
    assert created.type == "race" and created.event == "created", created
    challenge = (await bob.wait_for(notified("challenge"))).notification
    assert challenge.race_code == created.race.code
    joined = await ask(bob, pf.ChallengeAnswer, challenge_id=challenge.notification_id, accept=True)
    assert joined.type == "race" and joined.race.race_id == created.race.race_id, joined
    heard = await ann.wait_for(lambda m: m.type == "race" and m.event == "joined")
    assert {racer.name for racer in heard.race.racers} == {"ann", "bob"}


async def test_a_blocked_player_on_another_process_does_not_see_the_blockers_games(
    a_and_b: tuple[ServerProcess, ServerProcess], clients: ClientOpener
) -> None:
    a, b = a_and_b
    ann, eve = await signed(clients, a, "ann"), await signed(clients, b, "eve")
    code = await ask(ann, pf.FriendCode)
    await ask(eve, pf.FriendAdd, code=code.code)
    blocked = await ask(ann, pf.FriendChange, player_id=eve.player_id, action="block")
    assert blocked.type == "friend" and blocked.state == "blocked", blocked
    started, _ = await ann.new_game("klondike", deal=5)
    listed = await ask(eve, ts.ListGames)
    assert listed.type == "games" and started.game_id not in [game.game_id for game in listed.games]
    refused = await ask(eve, ts.Watch, game_id=started.game_id)
    assert refused.type == "error" and refused.code == "game_not_found", refused
    again = await ask(eve, pf.FriendAdd, code=code.code)
    assert again.type == "friend" and again.state == "request_sent", again
