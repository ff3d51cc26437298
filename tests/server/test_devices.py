"""One player, many devices, through the protocol on the hub in memory:
a link code makes another device the same player with a token of its
own; devices are listed, revoked (their connections closed, their token
``bad_token``) and rotated; what counts per player counts once for all
its devices; and an attacker guessing codes meets the limit long before
the code space matters, with one answer for a wrong, used or expired code.
"""

from __future__ import annotations

import pytest
from tests.races.arena_races import arena_settings, noon_arena, noon_clock
from tests.server.arena_clock import FakeClock
from tests.server.arena_memory import MemoryArena, MemoryClient

from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts
from server.model.codes import LINK_CODE
from server.social.devices import CLOSE_REVOKED

__all__ = ["arena_settings", "noon_arena", "noon_clock"]


async def signed_in(arena: MemoryArena, name: str = "ann", address: str = "192.0.2.1") -> MemoryClient:
    client = await arena.client(address=address)
    await client.hello(name=name)
    return client


async def link_code(client: MemoryClient) -> tc.LinkCode:
    reply = await client.request(ts.LinkDevice)
    assert reply.type == "link_code", reply
    return reply


async def redeem(arena: MemoryArena, code: str, address: str = "192.0.2.9", device: str | None = None) -> tuple[
        MemoryClient, tc.Welcome | tc.Error]:
    client = await arena.client(address=address)
    reply = await client.request(ts.Hello, link_code=code, device=device)
    if reply.type == "welcome":
        client.token = reply.token
    return client, reply


async def device_list(client: MemoryClient) -> list[tc.DeviceEntry]:
    reply = await client.request(ts.ListDevices)
    assert reply.type == "device_list", reply
    return reply.devices


async def test_a_code_links_a_device_as_the_same_player_with_its_own_token(arena: MemoryArena, clock: FakeClock) -> None:
    ann = await signed_in(arena)
    code = await link_code(ann)
    assert code.expires == clock.ms + 600_000
    assert len(LINK_CODE.normalize(code.code) or "") == LINK_CODE.length and code.code[5] == "-"
    clock.ms += 1000  # devices list oldest first; made in the same millisecond, their random ids would decide
    phone, welcome = await redeem(arena, code.code.lower(), device="phone")
    assert welcome.type == "welcome" and welcome.player_id == ann.player_id and welcome.name == "ann"
    assert welcome.token != ann.token
    listed = await device_list(phone)
    assert [(entry.name, entry.current, entry.last_seen) for entry in listed] == [
        ("", False, None), ("phone", True, clock.ms)]
    again = await arena.client()
    assert (await again.hello(token=welcome.token, name="ann")).player_id == ann.player_id
    assert [entry.current for entry in await device_list(ann)] == [True, False]


async def test_a_code_works_once_and_a_used_expired_or_wrong_one_gets_the_same_answer(
    arena: MemoryArena, clock: FakeClock
) -> None:
    ann = await signed_in(arena)
    used = (await link_code(ann)).code
    assert (await redeem(arena, used))[1].type == "welcome"
    expired = (await link_code(ann)).code
    clock.ms += 600_000
    wrong = "0" * LINK_CODE.length if used.replace("-", "") != "0" * LINK_CODE.length else "1" * LINK_CODE.length
    answers = [(await redeem(arena, code, address=f"198.51.100.{n}"))[1] for n, code in enumerate(
        (used, expired, wrong, "not a code"))]
    assert {(answer.type, getattr(answer, "code", None), getattr(answer, "message", None)) for answer in answers} == {
        ("error", ErrorCode.BAD_LINK_CODE, "this link code is wrong, used or expired; ask for a new one")}


async def test_guessing_codes_meets_the_address_limit_long_before_the_code_space(arena: MemoryArena) -> None:
    settings = arena.settings
    tries_a_year = settings.link_redeems_per_hour * 24 * 365
    live_codes_of_a_player = settings.link_codes_per_hour * settings.link_code_seconds / 3600
    assert tries_a_year * live_codes_of_a_player / LINK_CODE.space < 1e-9, \
        "a year of one address's tries finds one player's code with a chance below one in a billion"
    ann = await signed_in(arena)
    code = (await link_code(ann)).code
    guesses = [f"{n:010d}" for n in range(settings.link_redeems_per_hour)]
    for guess in guesses:
        _, wrong = await redeem(arena, guess, address="203.0.113.7")
        assert wrong.type == "error" and wrong.code == ErrorCode.BAD_LINK_CODE
    _, refused = await redeem(arena, code, address="203.0.113.7")
    assert refused.type == "error" and refused.code == ErrorCode.TOO_MANY_ATTEMPTS, "the right code too, once over"
    assert (await redeem(arena, code, address="203.0.113.8"))[1].type == "welcome", "not used up by the refusal"


async def test_a_player_asks_for_a_limited_number_of_codes_and_has_a_limited_number_of_devices(
    arena: MemoryArena, clock: FakeClock
) -> None:
    ann = await signed_in(arena)
    for _ in range(arena.settings.link_codes_per_hour):
        await link_code(ann)
    refused = await ann.request(ts.LinkDevice)
    assert refused.type == "error" and refused.code == ErrorCode.TOO_MANY_ATTEMPTS
    for round_ in range(arena.settings.max_devices - 1):
        clock.ms += 3_600_000
        assert (await redeem(arena, (await link_code(ann)).code, address=f"198.51.100.{round_}"))[1].type == "welcome"
    full = await ann.request(ts.LinkDevice)
    assert full.type == "error" and full.code == ErrorCode.TOO_MANY_DEVICES


async def test_a_revoked_device_is_closed_and_its_token_is_bad(arena: MemoryArena) -> None:
    ann = await signed_in(arena)
    phone, welcome = await redeem(arena, (await link_code(ann)).code)
    assert welcome.type == "welcome"
    phone_id = next(entry.device_id for entry in await device_list(phone) if entry.current)
    done = await ann.request(ts.RevokeDevice, device_id=phone_id)
    assert done.type == "device_revoked" and done.device_id == phone_id
    assert await phone.closed() == CLOSE_REVOKED
    later = await arena.client()
    refused = await later.request(ts.Hello, token=welcome.token)
    assert refused.type == "error" and refused.code == ErrorCode.BAD_TOKEN
    again = await ann.request(ts.RevokeDevice, device_id=phone_id)
    assert again.type == "error" and again.code == ErrorCode.DEVICE_NOT_FOUND
    assert not ann.ended


async def test_revoking_its_own_device_answers_then_closes_the_connection(arena: MemoryArena) -> None:
    ann = await signed_in(arena)
    own = next(entry.device_id for entry in await device_list(ann) if entry.current)
    assert (await ann.request(ts.RevokeDevice, device_id=own)).type == "device_revoked"
    assert await ann.closed() == CLOSE_REVOKED
    refused = await (await arena.client()).request(ts.Hello, token=ann.token)
    assert refused.type == "error" and refused.code == ErrorCode.BAD_TOKEN


async def test_a_rotated_token_replaces_the_old_one_and_closes_its_other_connections(arena: MemoryArena) -> None:
    ann = await signed_in(arena)
    second_tab = await arena.client()
    await second_tab.hello(token=ann.token)
    rotated = await ann.request(ts.RotateToken)
    assert rotated.type == "token_rotated" and rotated.token != ann.token
    assert await second_tab.closed() == CLOSE_REVOKED
    assert not ann.ended, "the connection that asked stays"
    refused = await (await arena.client()).request(ts.Hello, token=ann.token)
    assert refused.type == "error" and refused.code == ErrorCode.BAD_TOKEN
    assert (await (await arena.client()).hello(token=rotated.token)).player_id == ann.player_id


@pytest.mark.parametrize("request_type", [ts.LinkDevice, ts.ListDevices, ts.RotateToken])
async def test_device_requests_need_hello(arena: MemoryArena, request_type: type[ts.Request]) -> None:
    refused = await (await arena.client()).request(request_type)
    assert refused.type == "error" and refused.code == ErrorCode.HELLO_REQUIRED


async def test_a_token_and_a_link_code_together_are_a_bad_message(arena: MemoryArena) -> None:
    client = await arena.client(subprotocol=None)
    await client.send_raw('{"type": "hello", "id": 1, "token": "x", "link_code": "ABCDE-FGHJK"}')
    refused = await client.wait_for(lambda message: message.type == "error")
    assert refused.code == ErrorCode.BAD_MESSAGE and "not both" in refused.message


async def test_a_linked_device_cannot_take_a_second_ranked_daily_attempt(arena: MemoryArena) -> None:
    ann = await signed_in(arena)
    phone, _ = await redeem(arena, (await link_code(ann)).code)
    first, _ = await ann.new_game("chequers", deal="daily")
    assert first.ranked
    await ann.request(ts.Resign, game_id=first.game_id)
    second, _ = await phone.new_game("chequers", deal="daily")
    assert (second.ranked, second.practice) == (False, True), "the player's one attempt, whichever device"
    records = await arena.store.records(ann.player_id)
    assert sum(record.games for record in records.values()) == 1


async def test_a_revocation_whose_news_was_lost_closes_its_connection_when_the_channel_resumes(
    arena: MemoryArena,
) -> None:
    """Pub/sub loses what is published while a subscriber's connection is
    down (Redis; the memory store never does): the revocation is in the
    store anyway, and the subscription's resumption checks against it."""
    ann = await signed_in(arena)
    phone, _ = await redeem(arena, (await link_code(ann)).code)
    phone_id = next(entry.device_id for entry in await device_list(phone) if entry.current)
    assert await arena.store.revoke_device(ann.player_id, phone_id), "written, never published"
    assert not phone.ended
    await arena.hub.devices.check_open_devices()
    assert await phone.closed() == CLOSE_REVOKED
    assert not ann.ended
