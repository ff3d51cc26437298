"""Notifications and challenges on the memory harness: an inbox kept for
an offline player and sent on hello, marked read, bounded; a challenge
from one process accepted on another lands both players in one race; its
refusals (a stranger, a blocker, an offline friend, too late); and a
friend's ranked daily attempt told as counts only.
"""

from __future__ import annotations

from tests.server.arena_memory import MemoryArena
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WAIT_SECONDS
from tests.server.test_friends import ask, befriend, player, refused

from protocol import ErrorCode
from protocol import friends as pf
from protocol import to_client as tc
from protocol import to_server as ts
from server.storage.memory import MemoryStore


async def test_an_offline_player_finds_its_notifications_on_hello_and_marks_them_read(arena: MemoryArena) -> None:
    ann, bob = await player(arena, "ann"), await player(arena, "bob")
    code = (await ask(bob, pf.FriendCode)).code
    token = bob.token
    await bob.close()
    await ask(ann, pf.FriendAdd, code=code)
    again = await arena.client()
    await again.hello(token=token)
    told = await again.wait_for(lambda m: m.type == "notification", WAIT_SECONDS)
    assert told.notification.kind == "friend_request" and told.notification.sender.name == "ann"
    listed = await ask(again, pf.Notifications, unread=True)
    assert isinstance(listed, pf.NotificationList) and listed.unread == 1
    assert isinstance(await ask(again, pf.ReadNotifications), tc.Ack)
    after = await ask(again, pf.Notifications)
    assert after.unread == 0 and [entry.read for entry in after.notifications] == [True]
    third = await arena.client()
    await third.hello(token=token)
    await third.request(ts.Ping)
    assert not [m for m in third.received if m.type == "notification"]


async def test_the_inbox_keeps_only_its_newest_entries() -> None:
    async with MemoryArena(make_settings(inbox_size=2)) as arena:
        bob = await player(arena, "bob")
        code = (await ask(bob, pf.FriendCode)).code
        for name in ("a1", "a2", "a3"):
            await ask(await player(arena, name), pf.FriendAdd, code=code)
        listed = await ask(bob, pf.Notifications)
        assert [entry.sender.name for entry in listed.notifications] == ["a3", "a2"]


async def test_a_challenge_across_processes_lands_both_friends_in_one_race() -> None:
    store = MemoryStore()
    async with MemoryArena(make_settings(), store=store) as here, MemoryArena(make_settings(), store=store) as there:
        ann, bob = await player(here, "ann"), await player(there, "bob")
        await befriend(ann, bob)
        bob_here = await here.client()
        await bob_here.hello(token=bob.token)
        race = await ask(ann, pf.Challenge, player_id=bob.player_id, game="klondike", options={"draw": 1}, deal="winnable")
        assert isinstance(race, tc.Race) and race.event == "created"
        told = await bob.wait_for(lambda m: m.type == "notification" and m.notification.kind == "challenge", WAIT_SECONDS)
        assert told.notification.race_code == race.race.code and told.notification.sender.name == "ann"
        joined = await ask(bob, pf.ChallengeAnswer, challenge_id=told.notification.notification_id, accept=True)
        assert isinstance(joined, tc.Race) and joined.event == "joined" and joined.race.race_id == race.race.race_id
        await ann.wait_for(lambda m: m.type == "race" and m.event == "joined", WAIT_SECONDS)
        assert {racer.name for racer in joined.race.racers} == {"ann", "bob"}
        again = await ask(bob, pf.ChallengeAnswer, challenge_id=told.notification.notification_id, accept=True)
        assert refused(again, ErrorCode.CHALLENGE_NOT_FOUND)


async def test_a_declined_challenge_is_told_and_a_late_one_is_expired(arena: MemoryArena) -> None:
    ann, bob = await player(arena, "ann"), await player(arena, "bob")
    await befriend(ann, bob)
    for _ in range(2):
        await ask(ann, pf.Challenge, player_id=bob.player_id, game="klondike", deal="winnable")
    first, second = [
        (await bob.wait_for(lambda m: m.type == "notification" and m.notification.kind == "challenge", WAIT_SECONDS)).notification
        for _ in range(2)
    ]
    assert isinstance(await ask(bob, pf.ChallengeAnswer, challenge_id=first.notification_id, accept=False), tc.Ack)
    declined = await ann.wait_for(lambda m: m.type == "notification" and m.notification.kind == "challenge_declined", WAIT_SECONDS)
    assert declined.notification.sender.name == "bob"
    now = arena.hub.clock()
    arena.hub.clock = lambda: now + arena.settings.challenge_seconds * 1000
    late = await ask(bob, pf.ChallengeAnswer, challenge_id=second.notification_id, accept=True)
    assert refused(late, ErrorCode.CHALLENGE_EXPIRED)


async def test_a_stranger_a_blocked_player_and_an_offline_friend_cannot_be_challenged(arena: MemoryArena) -> None:
    ann, bob, eve, cat = [await player(arena, name) for name in ("ann", "bob", "eve", "cat")]
    await befriend(ann, eve)
    await befriend(ann, cat)
    challenge = {"game": "klondike", "deal": "winnable"}
    assert refused(await ask(ann, pf.Challenge, player_id=bob.player_id, **challenge), ErrorCode.NOT_FRIENDS)
    assert refused(await ask(ann, pf.Challenge, player_id="p_nobodyatall", **challenge), ErrorCode.NOT_FRIENDS)
    await ask(ann, pf.FriendChange, player_id=eve.player_id, action="block")
    assert refused(await ask(eve, pf.Challenge, player_id=ann.player_id, **challenge), ErrorCode.NOT_FRIENDS)
    assert refused(await ask(ann, pf.Challenge, player_id=eve.player_id, **challenge), ErrorCode.NOT_FRIENDS)
    await cat.close()
    assert refused(await ask(ann, pf.Challenge, player_id=cat.player_id, **challenge), ErrorCode.FRIEND_OFFLINE)
    assert not [m for m in ann.received if m.type == "race"]


async def test_friends_hear_of_a_ranked_daily_attempt_as_counts_only(arena: MemoryArena) -> None:
    ann, bob = await player(arena, "ann"), await player(arena, "bob")
    await befriend(ann, bob)
    started, _ = await ann.new_game("klondike", deal="daily")
    await ann.request(ts.Resign, game_id=started.game_id)
    told = await bob.wait_for(
        lambda m: m.type == "notification" and m.notification.kind == "friend_finished_daily", WAIT_SECONDS * 4
    )
    entry = told.notification
    assert (entry.sender.name, entry.game, entry.result) == ("ann", "klondike", "resigned")
    assert entry.moves is not None and entry.race_code is None
    assert "card" not in told.model_dump_json()
