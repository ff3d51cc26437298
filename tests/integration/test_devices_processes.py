"""A player's devices across two ``arena serve`` processes on one Redis
(and on a Redis Cluster): a code asked for on process A is redeemed on
process B; a device revoked on A is ``bad_token`` on B at once and its
open connection on B is closed; a token rotated on B is refused on A and
the old token's connection on A is closed.  Everything crosses processes
through Redis only (the store, and the ``devices`` channel)."""

from __future__ import annotations

import pytest
from tests.integration.arena_processes import ClientOpener, ServerProcess
from tests.integration.test_processes_share_redis import a_and_b, shared_redis_url

from protocol import ErrorCode
from protocol import to_server as ts
from server.social.devices import CLOSE_REVOKED

pytestmark = pytest.mark.redis


__all__ = ["a_and_b", "shared_redis_url"]


async def test_a_device_revoked_on_one_process_is_bad_token_and_closed_on_the_other(
    a_and_b: tuple[ServerProcess, ServerProcess], clients: ClientOpener
) -> None:
    a, b = a_and_b
    ann = await clients(a.url)
    await ann.hello(name="ann")
    code = await ann.request(ts.LinkDevice)
    assert code.type == "link_code"
    phone = await clients(b.url)
    linked = await phone.request(ts.Hello, link_code=code.code, device="phone")
    assert linked.type == "welcome" and linked.player_id == ann.player_id
    devices = await ann.request(ts.ListDevices)
    assert devices.type == "device_list"
    phone_id = next(entry.device_id for entry in devices.devices if entry.name == "phone")

    revoked = await ann.request(ts.RevokeDevice, device_id=phone_id)
    assert revoked.type == "device_revoked"
    assert await phone.closed() == CLOSE_REVOKED, "the phone's open connection on the other process"
    for process in (a, b):
        late = await clients(process.url)
        refused = await late.request(ts.Hello, token=linked.token)
        assert refused.type == "error" and refused.code == ErrorCode.BAD_TOKEN, process.name
    assert not ann.ended


async def test_a_token_rotated_on_one_process_is_refused_and_closed_on_the_other(
    a_and_b: tuple[ServerProcess, ServerProcess], clients: ClientOpener
) -> None:
    a, b = a_and_b
    tab_on_a = await clients(a.url)
    welcome = await tab_on_a.hello(name="ann")
    tab_on_b = await clients(b.url)
    await tab_on_b.hello(token=welcome.token)
    rotated = await tab_on_b.request(ts.RotateToken)
    assert rotated.type == "token_rotated"
    assert await tab_on_a.closed() == CLOSE_REVOKED
    refused = await (await clients(a.url)).request(ts.Hello, token=welcome.token)
    assert refused.type == "error" and refused.code == ErrorCode.BAD_TOKEN
    again = await (await clients(a.url)).hello(token=rotated.token)
    assert again.player_id == welcome.player_id
    assert not tab_on_b.ended
