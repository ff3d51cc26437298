"""A friend list, a friends' board and a league's listing, board and
standings read the store as often with ten friends or members as with
two, on the default store (SQLite): their players, the other sides of
each pair, the memberships and the ranked claims come in one call per
kind (``server.storage.reads_base``), not one read per person.  One read
per friend made a board of a hundred friends cost 8.5 ms of server CPU,
which any player can ask for ten times a second.  Presence asks the
blocks between a player and all its friends in one read too, and a
blocker still stays hidden.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, AsyncIterator, Iterable

import pytest
from tests.server.arena_memory import MemoryArena, MemoryClient
from tests.server.arena_servers import make_settings
from tests.server.test_friends import befriend, player
from tests.server.test_friends_board import KLONDIKE, by_name

from protocol import friends as pf
from protocol import friends_board as pb
from protocol import leagues as pl
from protocol import to_client as tc
from protocol import to_server as ts
from server.model.records import DayResult, PlayerRecord
from server.storage import SqliteStore
from server.storage.social import SocialRecords


class CountingStore(SqliteStore):
    """The SQLite store, counting the reads of players, settings,
    documents and days it is asked for: one key at a time, or many in one
    call."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.reads: Counter[str] = Counter()

    async def get_player(self, player_id: str) -> PlayerRecord | None:
        self.reads["one"] += 1
        return await super().get_player(player_id)

    async def get_setting(self, name: str) -> str | None:
        self.reads["one"] += 1
        return await super().get_setting(name)

    async def get_document(self, kind: str, key: str) -> dict[str, Any] | None:
        self.reads["one"] += 1
        return await super().get_document(kind, key)

    async def days(self, player_id: str) -> list[DayResult]:
        self.reads["one"] += 1
        return await super().days(player_id)

    async def days_of(self, player_ids: list[str]) -> dict[str, list[DayResult]]:
        self.reads["many"] += 1
        return await super().days_of(player_ids)

    async def get_players(self, player_ids: Iterable[str]) -> dict[str, PlayerRecord]:
        self.reads["many"] += 1
        return await super().get_players(player_ids)

    async def get_settings(self, names: Iterable[str]) -> dict[str, str]:
        self.reads["many"] += 1
        return await super().get_settings(names)

    async def get_documents(self, kind: str, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        self.reads["many"] += 1
        return await super().get_documents(kind, keys)


@pytest.fixture
async def counted(tmp_path: Path) -> AsyncIterator[MemoryArena]:
    async with MemoryArena(make_settings(), CountingStore(tmp_path / "arena.db")) as running:
        yield running


async def reads_of(arena: MemoryArena, client: MemoryClient, kind: type[Any], **fields: Any) -> tuple[Any, Counter[str]]:
    """The reply to one request, and the reads of players, settings and documents it made."""
    store = arena.store
    assert isinstance(store, CountingStore)
    store.reads.clear()
    reply = await client.request(kind, **fields)
    return reply, Counter(store.reads)


async def start_daily(player: MemoryClient) -> None:
    """A ranked attempt at today's deal, once the board updates it sends out
    (which read the store in a task of their own) have reached its player."""
    await player.request(pb.FriendsBoard, watch=True, **KLONDIKE)
    await player.new_game(deal="daily", **KLONDIKE)
    await player.wait_for(lambda message: message.type == "friends_board_update")


async def test_a_friend_list_and_a_board_read_the_store_as_often_with_ten_friends_as_with_two(counted: MemoryArena) -> None:
    ann = await player(counted, "ann")
    await ann.request(pf.FriendCode)
    friends = [await player(counted, f"friend{number}") for number in range(10)]
    for friend in friends[:2]:
        await befriend(ann, friend)
        await start_daily(friend)
    listed, list_reads = await reads_of(counted, ann, pf.Friends)
    shown, board_reads = await reads_of(counted, ann, pb.FriendsBoard, **KLONDIKE)
    assert isinstance(listed, pf.FriendList) and len(listed.friends) == 2
    assert isinstance(shown, pb.FriendsBoardReply) and by_name(shown)["friend1"].state == "playing"
    for friend in friends[2:]:
        await befriend(ann, friend)
        await start_daily(friend)
    listed, more_list_reads = await reads_of(counted, ann, pf.Friends)
    shown, more_board_reads = await reads_of(counted, ann, pb.FriendsBoard, **KLONDIKE)
    assert isinstance(listed, pf.FriendList) and len(listed.friends) == 10
    assert isinstance(shown, pb.FriendsBoardReply) and len(shown.rows) == 11
    assert [row.state for row in shown.rows if not row.me] == ["playing"] * 10, [(row.player.name, row.state) for row in shown.rows]
    assert more_list_reads == list_reads and more_board_reads == board_reads, (list_reads, board_reads)
    assert list_reads["one"] == 1 and board_reads["one"] == 0, "only the list's friend code is read alone"


async def test_a_league_is_listed_boarded_and_ranked_with_as_many_reads_for_ten_members_as_for_two(
    counted: MemoryArena,
) -> None:
    ann = await player(counted, "ann")
    members = [await player(counted, f"member{number}") for number in range(9)]
    created = await ann.request(pl.CreateLeague, name="Lunch", variants=[KLONDIKE])
    assert isinstance(created, pl.League)
    league_id, code = created.league.league_id, created.league.code

    async def read_all() -> tuple[list[Counter[str]], list[Any]]:
        asked = [(pl.Leagues, {}), (pl.LeagueBoard, {"league_id": league_id}), (pl.LeagueStandings, {"league_id": league_id})]
        replies, reads = [], []
        for kind, fields in asked:
            reply, counted_reads = await reads_of(counted, ann, kind, **fields)
            replies.append(reply)
            reads.append(counted_reads)
        return reads, replies

    joined = await members[0].request(pl.JoinLeague, code=code)
    assert isinstance(joined, pl.League)
    await start_daily(members[0])
    few, (listed, shown, ranked) = await read_all()
    assert isinstance(listed, pl.LeagueList) and len(listed.leagues[0].members) == 2
    assert isinstance(shown, pl.LeagueBoardReply) and len(shown.rows) == 2
    assert isinstance(ranked, pl.LeagueStandingsReply)
    for member in members[1:]:
        assert isinstance(await member.request(pl.JoinLeague, code=code), pl.League)
        await start_daily(member)
    many, (listed, shown, ranked) = await read_all()
    assert isinstance(listed, pl.LeagueList) and len(listed.leagues[0].members) == 10
    assert isinstance(shown, pl.LeagueBoardReply) and len(shown.rows) == 10
    assert [row.state for row in shown.rows if not row.me] == ["playing"] * 9
    assert many == few, few


async def test_presence_hides_a_friend_who_blocked_you_before_your_side_is_repaired(counted: MemoryArena) -> None:
    ann, bob, cat = [await player(counted, name) for name in ("ann", "bob", "cat")]
    for friend in (bob, cat):
        await befriend(ann, friend)
    seen = await ann.request(ts.FriendsPresence)
    assert isinstance(seen, tc.Presences)
    assert {presence.player_id for presence in seen.players} == {bob.player_id, cat.player_id}
    # A block writes the blocker's side first; ann's side still says friend.
    await SocialRecords(counted.store).put_edge(bob.player_id, ann.player_id, "blocked", 0, None)
    seen = await ann.request(ts.FriendsPresence)
    assert isinstance(seen, tc.Presences) and [presence.player_id for presence in seen.players] == [cat.player_id]
