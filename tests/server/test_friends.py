"""Friends on the memory harness: codes, requests, the four states, blocks
and limits, across two hubs on one store (two processes), and what an
attacker gets: enumerating codes, flooding requests, a blocked player's view.
"""

from __future__ import annotations

from typing import Any

from tests.server.arena_memory import MemoryArena, MemoryClient
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WAIT_SECONDS, RecordingClient

from protocol import ErrorCode
from protocol import friends as pf
from protocol import to_client as tc
from protocol import to_server as ts
from server.storage.memory import MemoryStore
from server.storage.social import SocialRecords


async def player(arena: MemoryArena, name: str, address: str = "192.0.2.1") -> MemoryClient:
    client = await arena.client(address=address)
    await client.hello(name=name)
    return client


async def ask(client: RecordingClient, kind: type[ts.Request], **fields: Any) -> Any:
    return await client.request(kind, **fields)


async def code_of(client: RecordingClient) -> str:
    reply = await ask(client, pf.FriendCode)
    assert isinstance(reply, pf.FriendCodeReply)
    return str(reply.code)


async def states(client: MemoryClient) -> dict[str, str]:
    reply = await ask(client, pf.Friends)
    assert isinstance(reply, pf.FriendList)
    return {entry.name: entry.state for entry in reply.friends}


async def befriend(one: RecordingClient, other: RecordingClient) -> None:
    sent = await ask(one, pf.FriendAdd, code=await code_of(other))
    assert isinstance(sent, pf.FriendReply) and sent.state == "request_sent"
    accepted = await ask(other, pf.FriendChange, player_id=one.player_id, action="accept")
    assert isinstance(accepted, pf.FriendReply) and accepted.state == "friend"


def refused(reply: Any, code: ErrorCode) -> bool:
    return isinstance(reply, tc.Error) and reply.code == code


async def test_a_request_by_code_reaches_a_friend_on_another_process_who_accepts() -> None:
    store = MemoryStore()
    async with MemoryArena(make_settings(), store=store) as here, MemoryArena(make_settings(), store=store) as there:
        ann, bob = await player(here, "ann"), await player(there, "bob")
        code = await code_of(bob)
        assert len(code) == 9 and code[4] == "-"
        sent = await ask(ann, pf.FriendAdd, code=code.lower().replace("-", " "))
        assert isinstance(sent, pf.FriendReply) and (sent.name, sent.state) == ("bob", "request_sent")
        told = await bob.wait_for(lambda m: m.type == "notification", WAIT_SECONDS)
        assert told.notification.kind == "friend_request" and told.notification.sender.name == "ann"
        assert await states(bob) == {"ann": "request_received"}
        assert await states(ann) == {"bob": "request_sent"}
        await ask(bob, pf.FriendChange, player_id=ann.player_id, action="accept")
        accepted = await ann.wait_for(lambda m: m.type == "notification" and m.notification.kind == "friend_accepted", WAIT_SECONDS)
        assert accepted.notification.sender.name == "bob"
        assert await states(ann) == {"bob": "friend"} and await states(bob) == {"ann": "friend"}


async def test_requests_both_ways_make_friends_and_remove_ends_it_on_both_sides(arena: MemoryArena) -> None:
    ann, bob = await player(arena, "ann"), await player(arena, "bob")
    await ask(ann, pf.FriendAdd, code=await code_of(bob))
    both = await ask(bob, pf.FriendAdd, code=await code_of(ann))
    assert isinstance(both, pf.FriendReply) and both.state == "friend"
    assert await states(ann) == {"bob": "friend"}
    removed = await ask(ann, pf.FriendChange, player_id=bob.player_id, action="remove")
    assert isinstance(removed, pf.FriendReply) and removed.state == "none"
    assert await states(ann) == {} and await states(bob) == {}


async def test_a_reissued_code_reads_as_a_mistyped_one(arena: MemoryArena) -> None:
    ann, bob = await player(arena, "ann"), await player(arena, "bob")
    old = await code_of(bob)
    reissued = await ask(bob, pf.FriendCode, reissue=True)
    assert isinstance(reissued, pf.FriendCodeReply) and reissued.code != old
    stale, wrong, own = [await ask(ann, pf.FriendAdd, code=text) for text in (old, "ZZZZ-ZZZZ", await code_of(ann))]
    assert all(refused(reply, ErrorCode.FRIEND_CODE_UNKNOWN) for reply in (stale, wrong, own))
    assert stale.message.replace(old, "CODE") == wrong.message.replace("ZZZZ-ZZZZ", "CODE")
    fresh = await ask(ann, pf.FriendAdd, code=reissued.code)
    assert isinstance(fresh, pf.FriendReply) and fresh.state == "request_sent"


async def test_guessing_codes_is_refused_per_player_and_per_address_even_for_a_right_code() -> None:
    settings = make_settings(friend_lookup_failures_per_hour=3, friend_lookup_failures_per_address=5)
    async with MemoryArena(settings) as arena:
        target = await player(arena, "target", address="198.51.100.9")
        code = await code_of(target)
        guesser = await player(arena, "guesser")
        for guess in range(3):
            assert refused(await ask(guesser, pf.FriendAdd, code=f"AAAA-AAA{guess}"), ErrorCode.FRIEND_CODE_UNKNOWN)
        assert refused(await ask(guesser, pf.FriendAdd, code=code), ErrorCode.LOOKUPS_LIMITED)
        second = await player(arena, "second identity")
        for guess in range(2):
            assert refused(await ask(second, pf.FriendAdd, code=f"BBBB-BBB{guess}"), ErrorCode.FRIEND_CODE_UNKNOWN)
        third = await player(arena, "third identity")
        assert refused(await ask(third, pf.FriendAdd, code=code), ErrorCode.LOOKUPS_LIMITED)
        elsewhere = await player(arena, "elsewhere", address="203.0.113.5")
        assert isinstance(await ask(elsewhere, pf.FriendAdd, code=code), pf.FriendReply)


async def test_flooding_requests_meets_the_hourly_and_pending_limits() -> None:
    async with MemoryArena(make_settings(friend_requests_per_hour=3, friend_pending_limit=2)) as arena:
        flooder = await player(arena, "flooder")
        targets = [await player(arena, f"t{number}") for number in range(4)]
        codes = [await code_of(target) for target in targets]
        for code in codes[:2]:
            assert isinstance(await ask(flooder, pf.FriendAdd, code=code), pf.FriendReply)
        pending = await ask(flooder, pf.FriendAdd, code=codes[2])
        assert refused(pending, ErrorCode.FRIEND_LIMIT) and pending.reason == "pending"
        await ask(flooder, pf.FriendChange, player_id=targets[0].player_id, action="remove")
        assert isinstance(await ask(flooder, pf.FriendAdd, code=codes[2]), pf.FriendReply)
        await ask(flooder, pf.FriendChange, player_id=targets[1].player_id, action="remove")
        hourly = await ask(flooder, pf.FriendAdd, code=codes[3])
        assert refused(hourly, ErrorCode.FRIEND_LIMIT) and hourly.reason == "requests_per_hour"


async def test_a_blocked_player_learns_nothing_and_cannot_request_watch_or_list(arena: MemoryArena) -> None:
    ann, bob, eve = await player(arena, "ann"), await player(arena, "bob"), await player(arena, "eve")
    await befriend(ann, eve)
    blocked = await ask(ann, pf.FriendChange, player_id=eve.player_id, action="block")
    assert isinstance(blocked, pf.FriendReply) and blocked.state == "blocked"
    assert await states(ann) == {"eve": "blocked"}
    assert await states(eve) == {}
    requests_before = requests_from(ann, "eve")
    again = await ask(eve, pf.FriendAdd, code=await code_of(ann))
    declined = await ask(eve, pf.FriendAdd, code=await code_of(bob))
    await ask(bob, pf.FriendChange, player_id=eve.player_id, action="decline")
    assert isinstance(again, pf.FriendReply) and again.state == declined.state == "request_sent"
    assert await states(eve) == {"ann": "request_sent", "bob": "request_sent"}
    assert await states(ann) == {"eve": "blocked"}
    assert requests_from(ann, "eve") == requests_before
    started = await ask(ann, ts.NewGame, game="klondike", deal=3)
    assert isinstance(started, tc.GameStarted)
    listed = await ask(eve, ts.ListGames)
    assert isinstance(listed, tc.Games) and started.game_id not in [game.game_id for game in listed.games]
    seen_by_bob = await ask(bob, ts.ListGames)
    assert started.game_id in [game.game_id for game in seen_by_bob.games]
    watched = await ask(eve, ts.Watch, game_id=started.game_id)
    assert refused(watched, ErrorCode.GAME_NOT_FOUND)
    assert refused(await ask(eve, ts.Watch, game_id="g_nosuchgame0"), ErrorCode.GAME_NOT_FOUND)
    await ask(ann, pf.FriendChange, player_id=eve.player_id, action="unblock")
    assert isinstance(await ask(eve, ts.Watch, game_id=started.game_id), tc.Snapshot)


def requests_from(client: MemoryClient, name: str) -> int:
    return sum(1 for m in client.received if m.type == "notification" and m.notification.sender.name == name
               and m.notification.kind == "friend_request")


async def test_a_pair_written_half_is_repaired_or_harmless_when_listed(arena: MemoryArena) -> None:
    """A crash between the two writes of a change (two players, two Cluster
    slots) leaves one side written: listing either side settles it."""
    ann, bob, cat = await player(arena, "ann"), await player(arena, "bob"), await player(arena, "cat")
    records = SocialRecords(arena.store)
    await ask(ann, pf.FriendAdd, code=await code_of(bob))
    await records.put_edge(bob.player_id, ann.player_id, "friend", 1, None)
    assert await states(ann) == {"bob": "friend"}
    assert await states(bob) == {"ann": "friend"}
    await befriend(ann, cat)
    await records.drop_edge(ann.player_id, cat.player_id)
    assert not await arena.hub.friends.are_friends(cat.player_id, ann.player_id)
    refused_challenge = await ask(cat, pf.Challenge, player_id=ann.player_id, game="klondike", deal="winnable")
    assert refused(refused_challenge, ErrorCode.NOT_FRIENDS)
    assert await states(cat) == {}
    await records.put_edge(cat.player_id, bob.player_id, "request_received", 1, 3600)
    assert await states(cat) == {}


async def test_a_full_friend_list_refuses_one_more() -> None:
    async with MemoryArena(make_settings(friends_limit=1)) as arena:
        ann, bob, cat = await player(arena, "ann"), await player(arena, "bob"), await player(arena, "cat")
        await befriend(ann, bob)
        full = await ask(ann, pf.FriendAdd, code=await code_of(cat))
        assert refused(full, ErrorCode.FRIEND_LIMIT) and full.reason == "friends"
        await ask(cat, pf.FriendAdd, code=await code_of(ann))
        accepting = await ask(ann, pf.FriendChange, player_id=cat.player_id, action="accept")
        assert refused(accepting, ErrorCode.FRIEND_LIMIT) and accepting.reason == "friends"


async def test_an_unanswered_request_lapses_and_blocks_have_a_limit() -> None:
    now = [1_800_000_000_000]
    async with MemoryArena(make_settings(friend_block_limit=1), clock=lambda: now[0]) as arena:
        ann, bob, cat = await player(arena, "ann"), await player(arena, "bob"), await player(arena, "cat")
        await ask(ann, pf.FriendAdd, code=await code_of(bob))
        now[0] += arena.settings.friend_request_days * 86_400_000 + 1
        assert await states(ann) == {} and await states(bob) == {}
        await ask(ann, pf.FriendChange, player_id=bob.player_id, action="block")
        over = await ask(ann, pf.FriendChange, player_id=cat.player_id, action="block")
        assert refused(over, ErrorCode.FRIEND_LIMIT) and over.reason == "blocks"
